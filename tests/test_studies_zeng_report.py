"""Paper Z's verdicts: each rule applied to hand-made cubes, both ways."""
import pandas as pd
import pytest

from helpers_pipeline import REPO
from simlib.claims import Verdict
from simlib.studies.zeng.cubes import build
from simlib.studies.zeng.published import load_published
from simlib.studies.zeng.report import (overhead_claim, saturation_claim, ssp_rr_claim,
                                        validation_claim, workload_claim)

PUB = load_published(REPO / "config/published/zeng.yaml")


def cube(seeds=2, **per_workload):
    """Records for W1/W2 x multicore/single_core x ``seeds`` seeds; values by (workload, machine, seed)."""
    recs = []
    for w in ("W1", "W2"):
        for m in ("multicore", "single_core"):
            for s in range(seeds):
                rec = {"workload": w, "machine": m, "seed": s}
                for var, f in per_workload.items():
                    rec[var] = f(w, m, s)
                recs.append(rec)
    return build(recs)


def test_saturation_rule():
    yes = cube(drain_fraction=lambda w, m, s: 0.2 if w == "W2" else 0.01,
               makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(yes, PUB, 0.05).verdict == Verdict.REPRODUCED
    # The seeds are the cases: one of two is not more than half (not reproduced), two of three is.
    half = cube(drain_fraction=lambda w, m, s: 0.2 if (w, s) == ("W2", 0) else 0.01,
                makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(half, PUB, 0.05).verdict == Verdict.NOT_REPRODUCED
    most = cube(3, drain_fraction=lambda w, m, s: 0.2 if w == "W2" and s < 2 else 0.01,
                makespan_days=lambda w, m, s: 100.0)
    claim = saturation_claim(most, PUB, 0.05)
    assert claim.verdict == Verdict.PARTLY and (claim.unit, claim.n, claim.key) == (
        "seed (workload)", "3", "saturation")
    no = cube(drain_fraction=lambda w, m, s: 0.01, makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(no, PUB, 0.05).verdict == Verdict.NOT_REPRODUCED


@pytest.mark.parametrize("values, verdict", [
    ({"medium": 17.0, "long": 40.0, "all": 11.0}, Verdict.REPRODUCED),
    ({"medium": 17.0, "long": 40.0, "all": 30.0}, Verdict.PARTLY),
    ({"medium": 17.0, "long": 12.0, "all": 30.0}, Verdict.NOT_REPRODUCED),   # 1 of 3: no majority
    ({"medium": 5.0, "long": 5.0, "all": 30.0}, Verdict.NOT_REPRODUCED),
])
def test_ssp_rr_rule(values, verdict):
    c = cube(**{f"rr_{k}": (lambda w, m, s, v=v: v) for k, v in values.items()})
    assert ssp_rr_claim(c, PUB, 0.25, 10.0).verdict == verdict


def test_ssp_rr_is_judged_per_bound_as_a_reading():
    c = cube(**{f"rr_{k}": (lambda w, m, s: 99.0) for k in ("medium", "long", "all")},
             **{f"rr_b60_{k}": (lambda w, m, s, v=v: v) for k, v in
                (("medium", 17.5), ("long", 36.0), ("all", 10.0))})
    primary, alt = ssp_rr_claim(c, PUB, 0.25, 10.0), ssp_rr_claim(c, PUB, 0.25, 60.0, primary=False)
    assert primary.verdict == Verdict.NOT_REPRODUCED and alt.verdict == Verdict.REPRODUCED
    assert "60 s" in alt.reading and "10 s" in primary.reading


def test_validation_rule_is_paired_per_seed():
    same = cube(mean_response_all=lambda w, m, s: 100.0 + s, rr_all=lambda w, m, s: 3.0)
    assert validation_claim(same, PUB, 0.1).verdict == Verdict.REPRODUCED
    off = cube(mean_response_all=lambda w, m, s: 100.0 if m == "single_core" else 150.0,
               rr_all=lambda w, m, s: 3.0)
    assert validation_claim(off, PUB, 0.1).verdict == Verdict.NOT_REPRODUCED


def test_overhead_rule():
    assert overhead_claim(cube(overhead_share=lambda w, m, s: 4.5), PUB, 1.0).verdict == \
        Verdict.REPRODUCED
    assert overhead_claim(cube(overhead_share=lambda w, m, s: 3.5), PUB, 1.0).verdict == \
        Verdict.NOT_REPRODUCED


def test_workload_rule_counts_printed_rows_only():
    t5 = pd.DataFrame({"quantity": ["short jobs", "long jobs", "serial jobs", "Load of W1: jobs per hour",
                                    "x"],
                       "printed": [64.0, 16.5, 24.0, 10.6, float("nan")],
                       "W1": [63.0, 16.0, 30.0, 3.5, 1.0], "W2": [63.0, 16.0, 30.0, float("nan"), 1.0]})
    claim = workload_claim(t5, PUB, 2.0, 3)
    assert claim.verdict == Verdict.PARTLY and "2 of 3 rows" in claim.ours and claim.n == "3"
    # One of two rows: not a majority.
    assert workload_claim(t5.iloc[1:], PUB, 2.0).verdict == Verdict.NOT_REPRODUCED


def ssp_cube(seeds, long_values):
    """SSP's RR under W2: medium and all as printed... except long, per seed."""
    return cube(seeds, rr_medium=lambda w, m, s: 30.0, rr_all=lambda w, m, s: 30.0,
                rr_long=lambda w, m, s: long_values[s])


def test_ssp_rr_within_the_ci_needs_ten_seeds():
    # Long jobs: mean 26.7 vs printed 36.74, outside the 25 % tolerance (9.2) but the printed
    # value inside the CI: inconclusive with 3 seeds, reproduced with 10; the other classes are
    # far off (not reproduced).
    three = ssp_rr_claim(ssp_cube(3, [6.7, 26.7, 46.7]), PUB, 0.25, 10.0)
    assert "(inconclusive)" in three.ours and three.verdict == Verdict.NOT_REPRODUCED
    ten = ssp_rr_claim(ssp_cube(10, [6.7, 46.7] * 5), PUB, 0.25, 10.0)
    assert "(reproduced)" in ten.ours.split("/")[1] and ten.n == "10"
    # Every class within the CI only: inconclusive as a whole with 3 seeds.
    wide = cube(3, **{f"rr_{c}": (lambda w, m, s, p=p: p * (0.1, 0.5, 1.2)[s]) for c, p in
                      (("medium", 17.5), ("long", 36.74), ("all", 10.65))})
    assert ssp_rr_claim(wide, PUB, 0.25, 10.0).verdict == Verdict.INCONCLUSIVE


def test_the_fig3_flow_is_the_policy_docstring_s_literal_block():
    from simlib.studies.zeng.report import fig3_flow
    first = fig3_flow().splitlines()[0].strip()
    assert first == "if no whole node is free now (counting those of jobs due now):"
