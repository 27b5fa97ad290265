"""Paper K's tables, claims and README (simlib.studies.kumar_report) on
synthetic cubes with known values."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers_kumar_study import config, cs_cube, fig1_cube, load_cube

from simlib.studies import kumar as K
from simlib.studies import kumar_report as R

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def published():
    return K.load_published(REPO / "config/published/kumar.yaml")


@pytest.fixture(scope="module")
def plan():
    return K.KumarPlan.from_config(config())


def test_paired_improvement_of_a_uniformly_better_policy():
    cube = load_cube()
    r = R.paired_improvement(cube, "ps02", "delayed_los", "los", "mean_wait")
    # 800 vs 1000 at every load and seed: exactly 20 %, no spread.
    assert r["max_of_mean"] == pytest.approx(20.0)
    assert r["mean"] == pytest.approx(20.0) and r["ci"] == pytest.approx(0.0, abs=1e-9)
    assert r["per_seed_max_median"] == pytest.approx(20.0) and r["n"] == 3
    u = R.paired_improvement(cube, "ps02", "delayed_los", "los", "utilization")
    assert u["max_of_mean"] == 0.0 and u["mean"] == 0.0


def test_a_max_over_a_noisy_sweep_overstates_the_gain():
    # One lucky run (seed 0, first load) makes the new policy 50 % better there.
    cube = load_cube(noise=0.5)
    r = R.paired_improvement(cube, "ps02", "delayed_los", "los", "mean_wait")
    # Seed 0's own maximum (the paper's procedure) sees the lucky 60 %; the
    # seed-mean curve is diluted; the mean over the sweep even more.
    assert r["per_seed_max_p95"] > r["max_of_mean"] > r["mean"] > 20.0
    # Per-seed maxima 60, 20, 20 %: 95th percentile (linear) 56 %, median 20 %.
    assert r["per_seed_max_p95"] == pytest.approx(56.0)
    assert r["per_seed_max_median"] == pytest.approx(20.0)


def test_tables_frame_puts_published_beside_ours(published):
    t = R.tables_frame(load_cube(), published)
    assert len(t) == 4 * 2 * 3
    row = t[(t["table"] == "IV") & (t["base"] == "los") & (t["metric"] == "mean_wait")].iloc[0]
    assert row["published"] == 31.88 and row["ours_max"] == pytest.approx(20.0)
    assert row["verdict"] == "published above our range"
    easy = t[(t["table"] == "IV") & (t["base"] == "easy") & (t["metric"] == "mean_wait")].iloc[0]
    assert easy["ours_max"] == pytest.approx(100 * (900 - 800) / 900)
    assert set(t["new"]) == {"delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"}


def test_range_verdicts():
    assert R._range_verdict(5.0, 4.0, 6.0) == "within our range"
    assert R._range_verdict(7.0, 4.0, 6.0) == "published above our range"
    assert R._range_verdict(1.0, 4.0, 6.0) == "published below our range"
    assert R._range_verdict(1.0, math.nan, 6.0) == "not testable"


def test_improvements_by_load_has_one_row_per_pair_metric_and_load(published):
    df = R.improvements_by_load(load_cube(loads=(0.5, 0.7, 0.9)), published)
    assert len(df) == 24 * 3
    assert np.allclose(df[(df["base"] == "los") & (df["metric"] == "mean_wait")]
                       ["mean_improvement"], 20.0)


def test_n_bar_frame_compares_with_published(published):
    docs = {"ps05": {"params": {"p_s": 0.5, "size_scale": "log2"}, "expected_n_bar": 133.4,
                     "n_bar_se": 4.0,
                     "entries": [{"seed": 0, "load": 0.5, "n_bar": 130.0},
                                 {"seed": 0, "load": 0.9, "n_bar": 130.0},
                                 {"seed": 1, "load": 0.5, "n_bar": 136.0}]}}
    df = R.n_bar_frame(docs, published)
    row = df.iloc[0]
    assert row["n_bar"] == 133.0 and row["seeds"] == 2   # one value per seed
    assert row["published"] == 139.35 and row["published_figure"] == "Fig. 5"
    assert row["published_z"] == pytest.approx((139.35 - 133.4) / 4.0)
    assert row["expected_linear"] == pytest.approx(144.0)


def test_algorithms_frame_is_table_iii(published):
    df = R.algorithms_frame(published)
    assert len(df) == 12 and (df["matches_published"] == "yes").all()
    assert df.set_index("registry_name").loc["easy_de", "algorithm"] == "EASY-DE"
    assert set(df["workload"]) == {"Batch", "Heterogeneous"}


def _verdict(df, text):
    rows = df[df["claim"].str.contains(text, regex=False)]
    assert len(rows) >= 1, text
    return rows["verdict"].tolist()


def test_claims_apply_the_documented_rules(published, plan):
    load = load_cube(seeds=(0, 1, 2, 3))
    # Make the utilization of the new policies slightly better in a way that
    # differs per seed, so its CI is finite and above 0.
    u = load["utilization"].values.copy()
    pols = list(load["policy"].values)
    for p in ("delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"):
        u[:, pols.index(p)] *= 1 + 0.01 * (1 + np.arange(4) / 10)
    load["utilization"].values[:] = u
    cs = cs_cube(cs=(1, 3, 5, 7, 8, 9), best=7)
    picks = K.pick_cs(cs)
    tables = R.tables_frame(load, published)
    df = R.claims(published=published, load_cube=load, cs_cube=cs, fig1_cube=fig1_cube(),
                  picks=picks, tables=tables, plan=plan)
    assert _verdict(df, "LOS outperforms EASY in mean wait on the SDSC log") == ["partly reproduced"]
    assert _verdict(df, "Delayed-LOS outperforms LOS for P_S = 0.2") == ["reproduced"]
    assert _verdict(df, "Delayed-LOS's C_s optimum lies near 7–8") == ["reproduced"]
    # EASY (900) is better than LOS (1000) everywhere in the synthetic cube.
    assert _verdict(df, "LOS performs worse than EASY when job sizes vary") == ["reproduced"]
    # Delayed-LOS is 11 % better than EASY: not "close" (10 % rule).
    assert set(_verdict(df, "Delayed-LOS comes close to EASY")) == {"not reproduced"}
    assert _verdict(df, "10,000-job") == ["not tested"]
    assert set(df["figure"]) >= {"fig1", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10",
                                 "fig11", "tables"}
    # The C_s sweep is not flat beyond 3 in this cube (quadratic around 7).
    assert _verdict(df, "insensitive to C_s") == ["not reproduced"]


def test_outperform_verdicts():
    assert R._outperform_verdict(["better", "better"]) == "reproduced"
    assert R._outperform_verdict(["better", "n.s."]) == "partly reproduced"
    assert R._outperform_verdict(["n.s.", "n.s."]).startswith("not reproduced")
    assert R._outperform_verdict(["better", "worse"]) == "mixed"
    assert R._outperform_verdict(["worse", "worse"]) == "contradicted"
    assert R._status(1.0, 0.5) == "better" and R._status(-1.0, 0.5) == "worse"
    assert R._status(0.2, 0.5) == "n.s." and R._status(1.0, math.nan) == "n/a"


def test_ranges():
    assert R._ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert R._ranges([]) == ""


def test_render_readme_lists_every_artifact_and_the_note(published, plan):
    load = load_cube()
    cs = cs_cube()
    picks = K.pick_cs(cs)
    tables = R.tables_frame(load, published)
    nbar = pd.DataFrame([{"workload": "ps05", "p_s": 0.5, "p_d": 0.0, "size_scale": "log2",
                          "n_bar": 133.0, "ci": 1.0, "seeds": 2, "expected": 133.4,
                          "expected_linear": 144.0, "expected_log2": 133.4, "se_500": 4.0,
                          "published": 139.35, "published_figure": "Fig. 5",
                          "published_z": 1.5}])
    df = R.claims(published=published, load_cube=load, cs_cube=cs, picks=picks, tables=tables,
                  n_bar=nbar, plan=plan)
    arts = K.artifact_list(plan)
    text = R.render_readme(plan=plan, artifacts=arts, n_bar=nbar, picks=picks, tables=tables,
                           claims_df=df, algorithms=R.algorithms_frame(published),
                           published=published, fig2=K.fig2_example(),
                           cubes=["results/kumar_load.smoke.nc"])
    for a in arts:
        assert f"[`{a['file']}`]({a['file']})" in text
    for heading in ("## Artifacts", "## n̄ per workload", "## C_s picked by the pipeline",
                    "## Tables IV–VII", "## Claims and verdicts", "## Table III",
                    "## Interpretations and deviations"):
        assert heading in text
    assert "A maximum over a noisy sweep overstates the gain" in text
    assert "**smoke** scale" in text
    assert "LOS: 7 of 10 busy at t = 0; Delayed-LOS: 10 of 10" in text
    assert "12 of 12 rows match" in text


def test_dedicated_frame_skips_policies_without_dedicated_jobs():
    from simlib.cube import build_cube
    info = {m: ("1", "", "") for m in ("dedicated_on_time", "dedicated_jobs")}
    info["dedicated_mean_delay"] = ("s", "", "")
    recs = [{"workload": w, "policy": p, "load": 0.5, "seed": 0,
             "dedicated_on_time": 0.25 if n else math.nan,
             "dedicated_mean_delay": 7200.0 if n else math.nan, "dedicated_jobs": n}
            for w, p, n in (("het", "hybrid_los", 4), ("ps02", "easy", 0))]
    df = R.dedicated_frame(build_cube(recs, ["workload", "policy", "load", "seed"], list(info),
                                      metric_info=info))
    assert df.to_dict("records") == [{"workload": "het", "policy": "Hybrid-LOS",
                                      "on_time": 0.25, "mean_delay_h": 2.0}]
