"""Paper K under other readings (simlib.studies.kumar.readings): Tables I–II beside
lublin99's model, a reading's runs in place of the load sweep's, its verdicts and files."""
from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest

from helpers_kumar_study import config, load_cube

from simlib.studies.kumar import readings as RD
from simlib.studies.kumar.plan import KumarPlan
from simlib.studies.kumar.published import load_published

REPO = Path(__file__).resolve().parents[1]
READINGS = {"slow": {"description": "the new policies wait twice as long",
                     "generator": {"size_scale": "linear"}, "workloads": ["ps02"]}}


def test_tables_i_ii_beside_lublin99():
    t = RD.parameter_tables().set_index("parameter")
    # Table I is lublin99's typeless runtime model; Table II differs in three values.
    assert (t.loc[["a1", "b1", "a2", "b2", "pa", "pb"], "paper"]
            == t.loc[["a1", "b1", "a2", "b2", "pa", "pb"], "lublin99"]).all()
    assert t.loc["aarr", ["paper", "lublin99"]].tolist() == ["13.2303", "10.2303"]
    assert t.loc["anum", ["paper", "lublin99"]].tolist() == ["15.1737", "8.1737"]
    assert t.loc["bnum", ["paper", "lublin99"]].tolist() == ["0.9631", "3.9631"]
    assert t.loc["arar", "paper"] == t.loc["arar", "lublin99"]
    # lublin99's barr (0.4871) lies in the paper's printed range.
    assert t.loc["barr", ["paper", "lublin99"]].tolist() == ["varies in [0.4101, 0.6101]",
                                                            "0.4871"]


@pytest.fixture(scope="module")
def reading():
    """(plan, load cube, readings cube): the new policies of ps02 wait twice as long."""
    plan = KumarPlan.from_config(config(readings=READINGS))
    load = load_cube()
    slow = load.sel(workload=["ps02"]).copy(deep=True)
    new = slow["mean_wait"].loc[{"policy": "delayed_los"}]
    slow["mean_wait"].loc[{"policy": "delayed_los"}] = new * 2
    slow = slow.assign(beta_arr=slow["utilization"] * 0 + 0.5)
    return plan, load.assign(beta_arr=load["utilization"] * 0 + 0.45), slow.expand_dims(
        reading=["slow"])


def test_reading_view_replaces_only_the_workloads_it_ran(reading):
    _, load, readings = reading
    view = RD.reading_view(load, readings, "slow")
    w = view["mean_wait"]
    assert np.allclose(w.sel(workload="ps02", policy="delayed_los"),
                       2 * load["mean_wait"].sel(workload="ps02", policy="delayed_los"))
    assert w.sel(workload="ps05").equals(load["mean_wait"].sel(workload="ps05"))


def test_reading_view_with_variable_ran():
    # Cubes as the pipeline builds them, with ran: a workload the reading did not
    # re-run keeps its load-sweep values; one it re-ran takes the reading's policies.
    from simlib.studies.kumar.cubes import build_kumar_cube
    recs = [{"workload": w, "policy": p, "load": 0.5, "seed": 0, "cs": None, "mean_wait": 1.0}
            for w in ("ps02", "ps05") for p in ("easy", "los")]
    load = build_kumar_cube(recs, "load")
    slow = [dict(r, workload=f"slow@{r['workload']}", mean_wait=2.0) for r in recs[:1]]
    other = [dict(r, workload=f"other@{r['workload']}") for r in recs[2:]]
    view = RD.reading_view(load, build_kumar_cube(slow + other, "readings"), "slow")
    assert view["mean_wait"].sel(workload="ps05").equals(load["mean_wait"].sel(workload="ps05"))
    assert view["ran"].sel(workload="ps05").values.tolist() == [True, True]
    assert view["ran"].sel(workload="ps02").values.tolist() == [True, False]
    assert view["mean_wait"].sel(workload="ps02", policy="easy").item() == 2.0


def test_verdicts_under_each_reading_and_the_files(reading, tmp_path):
    plan, load, readings = reading
    published = load_published(REPO / "config/published/kumar.yaml")
    matrix = RD.write_readings(load, readings, published, plan, md=tmp_path / "r.md",
                               csv=tmp_path / "r.csv", scale="smoke")
    row = matrix[matrix["claim"] == "Delayed-LOS outperforms LOS for P_S = 0.2"].iloc[0]
    assert (row[RD.MAIN], row["slow"]) == ("partly reproduced", "not reproduced")
    assert (matrix[matrix["claim"].str.contains("P_S = 0.5")][RD.MAIN]
            == matrix[matrix["claim"].str.contains("P_S = 0.5")]["slow"]).all()
    beta = RD.beta_arr_frame(load, readings, plan).set_index(["reading", "workload"])
    assert beta.loc[("slow", "ps02"), "size_scale"] == "linear"
    assert beta.loc[("main", "ps02"), "in_paper_range"] == 1.0
    md = (tmp_path / "r.md").read_text()
    assert md.startswith("# Paper K under other readings (smoke scale, 2 seeds per point)")
    assert "**slow** (re-runs ps02)" in md
    assert (tmp_path / "r.csv").read_text().startswith("claim,source,main,ours_main,slow")


def test_readings_examples():
    assert doctest.testmod(RD).failed == 0
