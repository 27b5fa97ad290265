"""Paper K's tables (simlib.studies.kumar.tables) on synthetic cubes with
known values: improvements, Tables III-VII, n-bar, dedicated jobs, and their files."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from helpers_kumar_study import load_cube

from simlib.studies.kumar import tables as T
from simlib.studies.kumar.published import load_published

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def published():
    return load_published(REPO / "config/published/kumar.yaml")


def test_paired_improvement_of_a_uniformly_better_policy():
    cube = load_cube()
    r = T.paired_improvement(cube, "ps02", "delayed_los", "los", "mean_wait")
    # 800 vs 1000 at every load and seed: exactly 20 %, no spread.
    assert r["max_of_mean"] == pytest.approx(20.0)
    assert r["mean"] == pytest.approx(20.0) and r["ci"] == pytest.approx(0.0, abs=1e-9)
    assert r["per_seed_max_median"] == pytest.approx(20.0) and r["n"] == 3
    u = T.paired_improvement(cube, "ps02", "delayed_los", "los", "utilization")
    assert u["max_of_mean"] == 0.0 and u["mean"] == 0.0


def test_a_max_over_a_noisy_sweep_overstates_the_gain():
    # One lucky run (seed 0, first load) makes the new policy 50 % better there.
    cube = load_cube(noise=0.5)
    r = T.paired_improvement(cube, "ps02", "delayed_los", "los", "mean_wait")
    # Seed 0's own maximum (the paper's procedure) sees the lucky 60 %; the
    # seed-mean curve is diluted; the mean over the sweep even more.
    assert r["per_seed_max_p95"] > r["max_of_mean"] > r["mean"] > 20.0
    # Per-seed maxima 60, 20, 20 %: 95th percentile (linear) 56 %, median 20 %.
    assert r["per_seed_max_p95"] == pytest.approx(56.0)
    assert r["per_seed_max_median"] == pytest.approx(20.0)


def test_tables_frame_puts_published_beside_ours(published):
    t = T.tables_frame(load_cube(), published)
    assert len(t) == 4 * 2 * 3
    row = t[(t["table"] == "IV") & (t["base"] == "los") & (t["metric"] == "mean_wait")].iloc[0]
    assert row["published"] == 31.88 and row["ours_max"] == pytest.approx(20.0)
    assert row["verdict"] == "published above our range"
    easy = t[(t["table"] == "IV") & (t["base"] == "easy") & (t["metric"] == "mean_wait")].iloc[0]
    assert easy["ours_max"] == pytest.approx(100 * (900 - 800) / 900)
    assert set(t["new"]) == {"delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"}


def test_range_verdicts():
    assert T._range_verdict(5.0, 4.0, 6.0) == "within our range"
    assert T._range_verdict(7.0, 4.0, 6.0) == "published above our range"
    assert T._range_verdict(1.0, 4.0, 6.0) == "published below our range"
    assert T._range_verdict(1.0, math.nan, 6.0) == "not testable"


def test_improvements_by_load_has_one_row_per_pair_metric_and_load(published):
    df = T.improvements_by_load(load_cube(loads=(0.5, 0.7, 0.9)), published)
    assert len(df) == 24 * 3
    assert np.allclose(df[(df["base"] == "los") & (df["metric"] == "mean_wait")]
                       ["mean_improvement"], 20.0)


def test_n_bar_frame_compares_with_published(published):
    docs = {"ps05": {"params": {"p_s": 0.5, "size_scale": "log2"}, "expected_n_bar": 133.4,
                     "n_bar_se": 4.0,
                     "entries": [{"seed": 0, "load": 0.5, "n_bar": 130.0},
                                 {"seed": 0, "load": 0.9, "n_bar": 130.0},
                                 {"seed": 1, "load": 0.5, "n_bar": 136.0}]}}
    df = T.n_bar_frame(docs, published)
    row = df.iloc[0]
    assert row["n_bar"] == 133.0 and row["seeds"] == 2   # one value per seed
    assert row["published"] == 139.35 and row["published_figure"] == "Fig. 5"
    assert row["published_z"] == pytest.approx((139.35 - 133.4) / 4.0)
    assert row["expected_linear"] == pytest.approx(144.0)


def test_algorithms_frame_is_table_iii(published):
    df = T.algorithms_frame(published)
    assert len(df) == 12 and (df["matches_published"] == "yes").all()
    assert df.set_index("registry_name").loc["easy_de", "algorithm"] == "EASY-DE"
    assert set(df["workload"]) == {"Batch", "Heterogeneous"}


def test_dedicated_frame_skips_policies_without_dedicated_jobs():
    from simlib.cube import build_cube
    info = {m: ("1", "", "") for m in ("dedicated_on_time", "dedicated_jobs")}
    info["dedicated_mean_delay"] = ("s", "", "")
    recs = [{"workload": w, "policy": p, "load": 0.5, "seed": s,
             "dedicated_on_time": (0.25 + s / 2) if n else math.nan,
             "dedicated_mean_delay": 7200.0 * (1 + s) if n else math.nan, "dedicated_jobs": n}
            for w, p, n in (("het", "hybrid_los", 4), ("ps02", "easy", 0)) for s in (0, 1)]
    df = T.dedicated_frame(build_cube(recs, ["workload", "policy", "load", "seed"], list(info),
                                      metric_info=info))
    # Means over loads and seeds.
    assert df.to_dict("records") == [{"workload": "het", "policy": "Hybrid-LOS",
                                      "on_time": 0.5, "mean_delay_h": 3.0}]


def test_table_iii_as_csv_and_markdown(published, tmp_path):
    table = T.write_table(T.algorithms_frame(published), tmp_path / "t3.csv", tmp_path / "t3.md",
                          "table3_algorithms.md.j2")
    md = (tmp_path / "t3.md").read_text()
    assert md.startswith("# Table III: list of all algorithms")
    # One Markdown row per algorithm, below the header and the alignment row.
    assert md.count("\n| ") == len(table) + 1 and "| Hybrid-LOS-E |" in md
    assert (tmp_path / "t3.csv").read_text().splitlines()[0].startswith("algorithm,registry_name")


def test_write_tables_writes_every_file_with_the_scale(published, tmp_path):
    doc = {"params": {"p_s": 0.2, "size_scale": "log2"}, "expected_n_bar": 179.0,
           "n_bar_se": 5.0, "entries": [{"seed": 0, "load": 0.5, "n_bar": 175.0},
                                        {"seed": 1, "load": 0.5, "n_bar": 181.0}]}
    out = {k: tmp_path / f"{k}.{k.rsplit('_', 1)[1]}" for k in
           ("tables_iv_vii_csv", "tables_iv_vii_md", "improvements_by_load_csv", "n_bar_csv",
            "n_bar_md")}
    tables, nbar = T.write_tables(load_cube(), published, {"ps02": doc}, scale="smoke",
                                  seeds=3, out=out)
    assert len(tables) == 24 and set(tables["scale"]) == {"smoke"}
    assert list(nbar.columns[:2]) == ["scale", "workload"] and nbar["n_bar"].item() == 178.0
    md = out["tables_iv_vii_md"].read_text()
    assert md.startswith("# Tables IV–VII: maximum % improvement (smoke scale, 3 seeds per point)")
    assert "**A maximum over a noisy sweep overstates the gain**" in md
    assert out["n_bar_md"].read_text().startswith("# n̄ (mean job size, processors) per workload")
    assert published["n_bar"]["source"] in out["n_bar_md"].read_text()
    assert out["improvements_by_load_csv"].read_text().startswith("scale,table,workload,new,base,metric,load")
