"""Paper Z's worked examples (simlib.studies.zeng.examples): Figs. 1 and 5 from simulations."""
import math

import pandas as pd
import pytest

import helpers_pipeline
from simlib.claims import CONSISTENCY, Verdict
from simlib.studies.zeng import examples as ex


@pytest.fixture(scope="module")
def params():
    return helpers_pipeline.repo_study("zeng").glts_params()


def test_fig5_group_forms_and_formula_5_equals_formula_6(params):
    r = ex.fig5_group(params)
    assert r["group"] == (3, (1, 2))
    # Job 2 ends first, then Job 3 (the primary) disbands the group; Job 1 goes on.
    jobs = r["jobs"]
    assert jobs[2]["finish"] < jobs[3]["finish"] < jobs[1]["finish"]
    # By hand: Job 2 at 1 / (1.05 x 1.1) ends after 650 x 1.155 = 750.75 s; Job 3 ran at
    # 1 / (1.05 x max(1.05, 1.1)) until then (650 done), then at 1 / 1.1025 for 50 more.
    assert r["t_g"] == pytest.approx(750.75 + 50 * 1.1025)
    assert r["t_i"][1] == pytest.approx(r["t_g"] / 1.1025)
    t_g, t1 = r["t_g"], r["t_i"][1]
    by_hand = (t1 * 2 + 650 * 2 + 700 * 4 - t_g * 2) / (t_g * 2)
    assert r["formula5"] == pytest.approx(by_hand, rel=1e-12)
    assert r["formula6"] == pytest.approx(r["formula5"], rel=1e-9)
    assert r["predicted_t_g"] == pytest.approx(r["t_g"], rel=1e-9)


def test_fig5_claim_fails_when_the_group_is_not_formed(params, monkeypatch):
    # A coscheduling slowdown that breaks the fairness check: no group, no verdict of equality.
    monkeypatch.setattr(ex, "FIG5_COS", {**ex.FIG5_COS, (3, 1): 1.24, (3, 2): 1.24})
    r = ex.fig5_group(params)
    assert r["group"] != (3, (1, 2)) and math.isnan(r["formula5"])
    fig1 = {"SSP": {"node_time": 10.0, "groups": 0}, "GLTS": {"node_time": 12.0, "groups": 1},
            "saved": -0.2}
    claims = ex.example_claims({"fig5": r, "fig1": fig1})
    assert [c.verdict for c in claims] == [Verdict.NOT_REPRODUCED, Verdict.NOT_REPRODUCED]
    # Our code against our own worked examples: consistency checks, not counted as claims.
    assert {(c.kind, c.unit, c.n) for c in claims} == {(CONSISTENCY, "-", "1")}
    assert [c.key for c in claims] == ["fig5", "fig1"]


def test_fig1_glts_saves_node_time_and_runs_job_6_at_two_per_node(params):
    r = ex.fig1_node_usage(params)
    assert r["SSP"]["ppn"][6] == 4 and r["GLTS"]["ppn"][6] == 2
    assert r["SSP"]["groups"] == 0 and r["GLTS"]["groups"] >= 1
    assert r["GLTS"]["node_time"] < r["SSP"]["node_time"] and r["saved"] > 0
    # The same work either way (each job's processes x its T_i).
    assert r["SSP"]["work"] == r["GLTS"]["work"]
    assert ex.example_claims({"fig5": ex.fig5_group(params), "fig1": r})[1].verdict == Verdict.REPRODUCED


def test_node_time_counts_a_shared_node_once():
    segs = pd.DataFrame([(1, "medium", 0.0, 10.0, "0 2 4 6"), (2, "medium", 0.0, 5.0, "1 3"),
                         (3, "medium", 5.0, 8.0, "8")],
                        columns=["job_id", "vm", "start", "end", "cores"])
    # Nodes 0-1 for 10 s (node 0 shared by jobs 1 and 2 for 5 s), node 2 for 3 s.
    assert ex.node_time(segs, cores_per_node=4) == 2 * 10 + 3
