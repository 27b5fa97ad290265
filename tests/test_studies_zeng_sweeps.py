"""Paper Z's sweeps (simlib.studies.zeng.sweeps): records, the cube, and each verdict both ways."""
import numpy as np
import pytest

from simlib.claims import Verdict
from simlib.studies.zeng.cubes import build
from simlib.studies.zeng.sweeps import (best_at_optimum_claim, depends, optimum_claim,
                                        plateau_claim, records, sweep_table, value_tag)


def sweep_cube(param, rr, variants=("GLTS",), seeds=(0, 1, 2), published=16, workload="W2"):
    """A sweep cube whose ``rr_<class>`` is ``rr(variant, value, cls, seed)``."""
    values = sorted({v for v in rr.values}) if hasattr(rr, "values") else None
    recs = []
    for variant in variants:
        for v in values:
            for s in seeds:
                rec = {"variant": variant, param: v, "seed": s}
                for cls in ("medium", "long", "all"):
                    rec[f"rr_{cls}"] = rr(variant, v, cls, s)
                rec["groups"] = 10.0
                recs.append(rec)
    cube = build(recs, dims=["variant", param, "seed"])
    cube.attrs.update({"parameter": param, "published_value": published, "workload": workload})
    return cube


class Curve:
    """RR as a function of (variant, value, class, seed) over given values."""

    def __init__(self, values, f):
        self.values, self.f = values, f

    def __call__(self, variant, v, cls, s):
        return self.f(variant, v, cls, s)


def test_only_nh_ignores_the_block_size():
    assert [v for v in ("GLTS", "FBO", "NS", "NH", "CST", "CSTWS") if not depends(v, "block_size")] == ["NH"]
    assert all(depends(v, "f_slack") for v in ("GLTS", "NH"))
    assert value_tag(12) == "12" and value_tag(1.25) == "1.25" and float(value_tag(1.1)) == 1.1


def test_records_take_table_6s_point_and_nh_from_the_main_runs():
    main = [{"workload": "W2", "seed": s, "variants": {"GLTS": {"rr_all": 3.0 + s}, "NH": {"rr_all": 9.0}}}
            for s in (0, 1)]
    main.append({"workload": "W1", "seed": 0,
                 "variants": {"GLTS": {"rr_all": 99.0}, "NH": {"rr_all": 99.0}}})
    sweep = [{"value": v, "seed": s, "variants": {"GLTS": {"rr_all": float(v)}}}
             for v in (8, 12) for s in (0, 1)]
    recs = records("block_size", 16, ["GLTS", "NH"], [8, 12], sweep, main, "W2")
    cube = build(recs, dims=["variant", "block_size", "seed"])
    assert cube["block_size"].values.tolist() == [8, 12, 16]
    np.testing.assert_array_equal(cube["rr_all"].sel(variant="GLTS").values, [[8, 8], [12, 12], [3, 4]])
    # NH is the same run at every block size (it has no blocks); W1's runs are not used.
    np.testing.assert_array_equal(cube["rr_all"].sel(variant="NH").values, np.full((3, 2), 9.0))


def test_optimum_rule_hit_tie_and_miss():
    vals = [4, 8, 12, 16, 24]
    at12 = sweep_cube("block_size", Curve(vals, lambda var, v, c, s: 5 + abs(v - 12) / 4 + 0.01 * s))
    claim = optimum_claim(at12, 12)
    assert claim.verdict == Verdict.REPRODUCED and (claim.key, claim.n) == ("optimum", "3")
    # Lowest at 8, with 12 not distinguishable (paired differences straddle 0): a tie on 3 seeds
    # is no evidence either way: inconclusive.
    noisy = sweep_cube("block_size", Curve(vals, lambda var, v, c, s:
                                           5 + abs(v - 8) / 4 - (2.0 if v == 12 and s == 0 else 0)))
    claim = optimum_claim(noisy, 12)
    assert claim.verdict == Verdict.INCONCLUSIVE and "(inconclusive)" in claim.ours
    # The same tie on 10 seeds: not reproduced.
    noisy10 = sweep_cube("block_size", Curve(vals, lambda var, v, c, s:
                                             5 + abs(v - 8) / 4 - (2.0 if v == 12 and s % 3 == 0 else 0)),
                         seeds=range(10))
    assert optimum_claim(noisy10, 12).verdict == Verdict.NOT_REPRODUCED
    # Lowest at 24, 12 clearly worse in every seed: contradicted.
    far = sweep_cube("block_size", Curve(vals, lambda var, v, c, s: 10 - v / 4 + 0.01 * s))
    assert optimum_claim(far, 12).verdict == Verdict.CONTRADICTED
    # Medium at 12, long clearly elsewhere: one of two, not a majority.
    split = sweep_cube("block_size", Curve(vals, lambda var, v, c, s: (
        5 + abs(v - 12) / 4 if c == "medium" else 10 - v / 4) + 0.01 * s))
    assert optimum_claim(split, 12).verdict == Verdict.NOT_REPRODUCED
    # 12 was not run: not testable.
    gap = sweep_cube("block_size", Curve([8, 16], lambda var, v, c, s: 5.0))
    assert optimum_claim(gap, 12).verdict == Verdict.NOT_TESTABLE


def test_best_at_optimum_is_paired_by_seed():
    vals = [8, 12, 16]
    best = sweep_cube("block_size", Curve(vals, lambda var, v, c, s: (4 if var == "GLTS" else 5) + s),
                      variants=("GLTS", "FBO", "NS"))
    claim = best_at_optimum_claim(best, 12)
    assert claim.verdict == Verdict.REPRODUCED and claim.unit == "seed (workload)"
    # GLTS worse than both in seed 0, better in the others: not significant on 3 seeds.
    mixed = sweep_cube("block_size", Curve(vals, lambda var, v, c, s:
                                           (4 + 3 * (s == 0) if var == "GLTS" else 5) + s),
                       variants=("GLTS", "FBO", "NS"))
    assert best_at_optimum_claim(mixed, 12).verdict == Verdict.INCONCLUSIVE
    # ... nor on 10: not reproduced.
    mixed10 = sweep_cube("block_size", Curve(vals, lambda var, v, c, s:
                                             (4 + 3 * (s % 3 == 0) if var == "GLTS" else 5) + s),
                         variants=("GLTS", "FBO", "NS"), seeds=range(10))
    assert best_at_optimum_claim(mixed10, 12).verdict == Verdict.NOT_REPRODUCED
    worse = sweep_cube("block_size", Curve(vals, lambda var, v, c, s: (6 if var == "GLTS" else 5) + 0.1 * s),
                       variants=("GLTS", "NS"))
    assert best_at_optimum_claim(worse, 12).verdict == Verdict.CONTRADICTED
    # Better than FBO, worse than NS, in both classes: half the cases, not a majority.
    half = sweep_cube("block_size", Curve(vals, lambda var, v, c, s:
                                          {"GLTS": 5, "FBO": 6, "NS": 4}[var] + 0.1 * s),
                      variants=("GLTS", "FBO", "NS"))
    assert best_at_optimum_claim(half, 12).verdict == Verdict.NOT_REPRODUCED


def test_plateau_rule():
    vals = [1.0, 1.25, 1.5, 2.0, 3.0]
    plateau = sweep_cube("f_slack", Curve(vals, lambda var, v, c, s: 4 + 2 * max(0, 1.5 - v) + 0.01 * s),
                         published=1.5, workload="W1")
    assert plateau_claim(plateau, 1.5, 0.05).verdict == Verdict.REPRODUCED
    # Still falling past 1.5: the rise holds, the plateau does not: 3 of 6, not a majority.
    falling = sweep_cube("f_slack", Curve(vals, lambda var, v, c, s: 8 - v), published=1.5, workload="W1")
    assert plateau_claim(falling, 1.5, 0.05).verdict == Verdict.NOT_REPRODUCED
    # Falling past 1.5 for all jobs only: 4 of 6, partly.
    most = sweep_cube("f_slack", Curve(vals, lambda var, v, c, s: (8 - v if c == "all" else
                                                                   4 + 2 * max(0, 1.5 - v)) + 0.01 * s),
                      published=1.5, workload="W1")
    assert plateau_claim(most, 1.5, 0.05).verdict == Verdict.PARTLY
    # Flat everywhere except lower at F_slack = 1: neither holds.
    odd = sweep_cube("f_slack", Curve(vals, lambda var, v, c, s: 3 if v == 1.0 else 4 + v),
                     published=1.5, workload="W1")
    assert plateau_claim(odd, 1.5, 0.05).verdict == Verdict.NOT_REPRODUCED
    # A noisy rise and a noisy plateau on 3 seeds: inconclusive.
    noise = (-1.0, 0.0, 1.0)
    noisy = sweep_cube("f_slack", Curve(vals, lambda var, v, c, s:
                                        4 + 0.5 * (v == 1.0) + noise[s] * (v != 1.5)),
                       published=1.5, workload="W1")
    claim = plateau_claim(noisy, 1.5, 0.05)
    assert claim.verdict == Verdict.INCONCLUSIVE and "(inconclusive)" in claim.ours
    short = sweep_cube("f_slack", Curve([1.0, 1.5], lambda var, v, c, s: 4.0), published=1.5)
    assert plateau_claim(short, 1.5, 0.05).verdict == Verdict.NOT_TESTABLE


def test_table_marks_where_each_point_comes_from():
    cube = sweep_cube("block_size", Curve([8, 16], lambda var, v, c, s: 4.0 + s),
                      variants=("GLTS", "NH"))
    t = sweep_table(cube)
    assert t["source"].tolist() == ["sweep", "main run", "main run", "main run"]
    assert t["rr_all"].iloc[0] == "5 ± 2.5"


@pytest.mark.parametrize("param", ["block_size", "f_slack"])
def test_every_claim_can_fail(param):
    # One cube where nothing the paper says holds: every verdict is not "reproduced".
    vals = [1.0, 1.5, 2.0] if param == "f_slack" else [8, 12, 16]
    cube = sweep_cube(param, Curve(vals, lambda var, v, c, s: 10.0 - v + (var == "GLTS")),
                      variants=("GLTS", "NS"), published=1.5 if param == "f_slack" else 16)
    if param == "block_size":
        verdicts = [optimum_claim(cube, 12).verdict, best_at_optimum_claim(cube, 12).verdict]
    else:
        verdicts = [plateau_claim(cube, 1.5, 0.05).verdict]
    assert Verdict.REPRODUCED not in verdicts
