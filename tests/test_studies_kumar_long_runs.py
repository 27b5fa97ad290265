"""Paper K's long runs against the 500-job load sweep (simlib.studies.kumar.long_runs)."""
from __future__ import annotations

import numpy as np
import pytest

from simlib.cube import build_cube
from simlib.studies.kumar import long_runs as L
from simlib.studies.kumar.cubes import RUN_INFO
from simlib.studies.kumar.report import long_runs_equivalent

DIMS = ["workload", "policy", "load", "seed"]


def cube(waits, utilization=None, loads=(0.5, 0.9)):
    """A sweep cube: ``waits[policy][load]`` is the per-seed mean waits; utilization per load."""
    util = utilization or {x: x for x in loads}
    return build_cube([{"workload": "ps02", "policy": p, "load": x, "seed": s, "mean_wait": w,
                        "offered_load": x, "utilization": util[x]}
                       for p, by_load in waits.items() for x, ws in by_load.items()
                       for s, w in enumerate(ws)], DIMS,
                      ["mean_wait", "offered_load", "utilization"], metric_info=RUN_INFO)


SHORT = cube({"easy": {0.5: [100, 110, 90], 0.9: [300, 320, 280]},
              "los": {0.5: [90, 99, 81], 0.9: [270, 288, 252]}})     # LOS 10 % better


def test_saturated_points_fall_short_of_the_offered_load():
    long = cube({"easy": {0.5: [1, 1], 0.9: [1, 1]}}, utilization={0.5: 0.49, 0.9: 0.85})
    t = L.saturation_table(long, "long")
    assert t[["load", "saturated"]].values.tolist() == [[0.5, False], [0.9, True]]


def test_the_same_improvement_is_equivalent_and_a_different_one_is_not():
    same = cube({"easy": {0.5: [200, 220, 180], 0.9: [500, 520, 480]},
                 "los": {0.5: [180, 198, 162], 0.9: [450, 468, 432]}})
    t = L.comparison_table(SHORT, same, {"ps02": ["easy", "los"]})
    assert (t["new"] == "los").all() and (t["base"] == "easy").all()
    np.testing.assert_allclose(t["improvement_500"], 10.0)
    np.testing.assert_allclose(t["difference"], 0.0, atol=1e-9)
    assert (t["point"] == "equivalent").all()
    assert long_runs_equivalent(t, 10000).verdict.value == "reproduced"
    worse = cube({"easy": {0.5: [200, 220, 180], 0.9: [500, 520, 480]},
                  "los": {0.5: [240, 262, 219], 0.9: [600, 622, 579]}})  # LOS ~20 % worse
    t = L.comparison_table(SHORT, worse, {"ps02": ["easy", "los"]})
    assert (t["point"] == "different").all()
    claim = long_runs_equivalent(t, 10000)
    # Every point different: the opposite of "no significant difference".
    assert claim.verdict.value == "contradicted" and "different at 2" in claim.ours


def test_the_interval_is_welchs():
    from scipy import stats
    short = cube({"easy": {0.5: [100, 100, 100, 100]}, "los": {0.5: [90, 95, 85, 92]}},
                 loads=(0.5,))
    long = cube({"easy": {0.5: [100, 100, 100]}, "los": {0.5: [80, 99, 91]}}, loads=(0.5,))
    row = L.comparison_table(short, long, {"ps02": ["easy", "los"]}).iloc[0]
    s, g = np.array([10, 5, 15, 8.0]), np.array([20, 1, 9.0])
    ci = stats.ttest_ind(g, s, equal_var=False).confidence_interval(0.95)
    assert row["difference"] == pytest.approx(g.mean() - s.mean())
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    # Covers 0 but is wider than +-10 points: too few seeds to tell.
    assert row["point"] == "inconclusive"
    claim = long_runs_equivalent(L.comparison_table(short, long, {"ps02": ["easy", "los"]}))
    # Too few seeds at the one point: the verdict cannot be decided.
    assert claim.verdict.value == "inconclusive" and "inconclusive at 1" in claim.ours
    wide = L.comparison_table(short, long, {"ps02": ["easy", "los"]}, margin=50)
    assert wide["point"].tolist() == ["equivalent"]


def test_zero_waits():
    # Nobody waits: 0 % improvement in both sweeps, equivalent.
    zero = cube({"easy": {0.5: [0, 0]}, "los": {0.5: [0, 0]}}, loads=(0.5,))
    t = L.comparison_table(zero, zero, {"ps02": ["easy", "los"]})
    assert t["difference"].tolist() == [0.0] and t["point"].tolist() == ["equivalent"]
    # The base never waits but the new policy does: no finite improvement.
    bad = cube({"easy": {0.5: [0, 0]}, "los": {0.5: [5, 0]}}, loads=(0.5,))
    t = L.comparison_table(zero, bad, {"ps02": ["easy", "los"]})
    assert t["point"].tolist() == ["no interval"]


def test_saturated_points_are_left_out_of_the_verdict():
    worse_at_09 = cube({"easy": {0.5: [200, 220, 180], 0.9: [500, 520, 480]},
                        "los": {0.5: [180, 198, 162], 0.9: [600, 622, 579]}},
                       utilization={0.5: 0.5, 0.9: 0.8})
    t = L.comparison_table(SHORT, worse_at_09, {"ps02": ["easy", "los"]})
    assert t["saturated"].tolist() == [False, True]
    claim = long_runs_equivalent(t, 10000)
    assert claim.verdict.value == "reproduced" and "ps02@0.9" in claim.ours


def test_one_seed_gives_no_interval_and_no_verdict():
    one = cube({"easy": {0.5: [200], 0.9: [500]}, "los": {0.5: [180], 0.9: [450]}})
    t = L.comparison_table(SHORT, one, {"ps02": ["easy", "los"]})
    assert t["ci_low"].isna().all() and (t["point"] == "no interval").all()
    assert long_runs_equivalent(t, 10000).verdict.value == "not testable here"
    assert long_runs_equivalent().verdict.value == "not testable here"


def test_tables_are_written(tmp_path):
    t = L.write_long_tables(SHORT, SHORT, {"workloads": {"ps02": ["easy", "los"]},
                                           "n_jobs": 10000, "margin": 10.0},
                            md=tmp_path / "l.md", csv=tmp_path / "l.csv", scale="smoke")
    assert len(t) == 2
    md = (tmp_path / "l.md").read_text()
    assert "10000-job runs vs the 500-job load sweep" in md and "saturated (long)" in md
    assert (tmp_path / "l.csv").read_text().startswith("workload,new,base,load")


@pytest.mark.parametrize("gap, saturated", [(0.019, False), (0.021, True)])
def test_saturation_threshold(gap, saturated):
    c = cube({"easy": {0.9: [1, 1]}}, utilization={0.9: 0.9 - gap}, loads=(0.9,))
    assert L.saturation_table(c, "x")["saturated"].tolist() == [saturated]
