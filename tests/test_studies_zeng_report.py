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


def cube(**per_workload):
    """Records for W1/W2 x multicore/single_core x 2 seeds; values by (workload, machine)."""
    recs = []
    for w in ("W1", "W2"):
        for m in ("multicore", "single_core"):
            for s in (0, 1):
                rec = {"workload": w, "machine": m, "seed": s}
                for var, f in per_workload.items():
                    rec[var] = f(w, m, s)
                recs.append(rec)
    return build(recs)


def test_saturation_rule():
    yes = cube(drain_fraction=lambda w, m, s: 0.2 if w == "W2" else 0.01,
               makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(yes, PUB, 0.05).verdict == Verdict.REPRODUCED
    half = cube(drain_fraction=lambda w, m, s: 0.2 if (w, s) == ("W2", 0) else 0.01,
                makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(half, PUB, 0.05).verdict == Verdict.PARTLY
    no = cube(drain_fraction=lambda w, m, s: 0.01, makespan_days=lambda w, m, s: 100.0)
    assert saturation_claim(no, PUB, 0.05).verdict == Verdict.NOT_REPRODUCED


@pytest.mark.parametrize("values, verdict", [
    ({"medium": 17.0, "long": 40.0, "all": 11.0}, Verdict.REPRODUCED),
    ({"medium": 17.0, "long": 12.0, "all": 30.0}, Verdict.PARTLY),
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
    t5 = pd.DataFrame({"quantity": ["short jobs", "serial jobs", "Load of W1: jobs per hour", "x"],
                       "printed": [64.0, 24.0, 10.6, float("nan")], "W1": [63.0, 30.0, 3.5, 1.0],
                       "W2": [63.0, 30.0, float("nan"), 1.0]})
    claim = workload_claim(t5, PUB, 2.0)
    assert claim.verdict == Verdict.PARTLY and "1 of 2 rows" in claim.ours


def test_the_fig3_flow_is_the_policy_docstring_s_literal_block():
    from simlib.studies.zeng.report import fig3_flow
    first = fig3_flow().splitlines()[0].strip()
    assert first == "if no whole node is free now (counting those of jobs due now):"
