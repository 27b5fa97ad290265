"""Paper Z's tables: printed data rendered, Table 4 sampled back, SSP and §4.8 tables."""
import numpy as np

from helpers_pipeline import REPO
from simlib.studies.zeng.cubes import build
from simlib.studies.zeng.published import load_published
from simlib.studies.zeng.tables import published_tables, ssp_table, table4, table5, validation_table
from simlib.studies.zeng.workloads import generate, table5 as measure

PUB = load_published(REPO / "config/published/zeng.yaml")


def test_published_tables_render_every_printed_value():
    md = published_tables(PUB)
    for text in ("| MAX_SL | 1.25 |", "Transport: 48^3 problems | 1.29 | 1.15 | 1.09 | 1.21",
                 "| F_slack | Slack factor used for fairness check |"):
        assert text in md, text


def test_table4_from_our_draws_matches_the_printed_shares():
    frames = [generate(10.33, 5000, s) for s in (0, 1)]
    t4 = table4(PUB, frames, [0])
    assert int(t4["sl_scr_draws"][0]) == 10000 and int(t4["sl_cos_draws"][0]) == 2 * 4999
    for col in ("sl_scr", "sl_sno", "sl_cos"):
        assert t4[f"{col}_within_4se"].all(), col
        assert abs(t4[f"{col}_ours"].sum() - 100) < 1e-6


def test_table4_notices_draws_from_another_distribution():
    frame = generate(10.33, 5000, 0)
    frame["sl_sno"] = 1.05  # every draw in one range
    assert not table4(PUB, [frame], [0])["sl_sno_within_4se"].all()


def test_table5_puts_ours_beside_the_printed_rows():
    recs = [{"workload": w, "machine": "multicore", "seed": 0, "mean_queue": q}
            for w, q in (("W1", 5.0), ("W2", 9.0))]
    infos = [{"workload": w, **measure(generate(a, 500, 0))} for w, a in (("W1", 10.33), ("W2", 9.83))]
    t5 = table5(PUB, infos, build(recs))
    row = t5.set_index("quantity").loc["serial jobs (%)"]
    assert row["printed"] == 24.0 and row["W1"] == row["W2"]
    queue = t5[t5["quantity"].str.contains("waiting jobs")]
    assert queue["printed"].tolist() == [10.6, 13.0]
    assert queue["W1"].iloc[0] == 5.0 and np.isnan(queue["W1"].iloc[1])


def test_ssp_and_validation_tables_by_hand():
    recs = []
    for w in ("W1", "W2"):
        for m in ("multicore", "single_core"):
            for s, v in enumerate((2.0, 4.0)):
                recs.append({"workload": w, "machine": m, "seed": s, "rr_all": v,
                             "mean_response_all": v * (2 if m == "multicore" else 1)})
    cube = build(recs)
    ssp = ssp_table(cube, PUB).set_index("variable")
    assert ssp.loc["rr_all", "W1_mean"] == 3.0 and ssp.loc["rr_all", "printed_W2"] == 10.65
    val = validation_table(cube.assign(**{v: cube["rr_all"] for v in (
        "mean_response_medium", "mean_response_long", "rr_medium", "rr_long", "u_node")}))
    row = val[(val["workload"] == "W1") & (val["metric"] == "mean_response_all")].iloc[0]
    assert row["ratio_mean"] == 2.0 and row["seeds"] == 2
