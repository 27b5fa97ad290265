"""Paper K's grid (simlib.studies.kumar.plan): the plan of a scale (the grid
validated and completed by its schema), its specs and run lists, the
artifact list."""
from __future__ import annotations

import doctest

import pytest

from helpers_kumar_study import STUDY, config

from simlib.errors import ConfigError
from simlib.studies.kumar import plan as P


def test_plan_resolves_the_scale_and_defaults():
    plan = P.KumarPlan.from_config(config("default"))
    assert plan.seeds == 3 and plan.loads == (0.5, 0.7, 0.9) and plan.cs_values == (1, 2, 3)
    # The schema's defaults, filled in (the one place they are written).
    assert plan.cs_sweep["pick"] == {"metric": "mean_wait", "rule": "argmin"}
    assert (plan.tolerance, plan.readings, plan.cs_sweep["load"]) == (0.01, {}, 0.9)
    assert plan.purpose_loads("cs") == [0.9]
    assert plan.p_s("het_pd09_ps05") == 0.5
    assert plan.params("elastic_het").size_scale == "log2"
    # 3 C_s-sweep workloads x 3 policies + 7 load-sweep workloads x 3 policies.
    assert len(plan.jobs()) == 9 + 21


def test_which_policies_take_the_pick():
    plan = P.KumarPlan.from_config(config())
    assert [p for p in STUDY["policies"] if plan.cs_dependent(p)] == [
        "delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"]
    fixed = P.KumarPlan.from_config(config(policies={**STUDY["policies"],
                                                     "delayed_los": {"cs": 4}}))
    assert not fixed.cs_dependent("delayed_los")
    assert fixed.simulation_spec("load", "ps02", "delayed_los")["cs"] is None
    assert {r["cs"] for r in P.spec_runs(fixed.simulation_spec("load", "ps02", "delayed_los"))} == {4}


def test_simulation_specs_and_runs():
    plan = P.KumarPlan.from_config(config())
    sweep = plan.simulation_spec("cs", "ps05", "delayed_los")
    assert sweep["cs"] == [1, 3] and sweep["loads"] == [0.9]
    assert [(r["seed"], r["cs"]) for r in P.spec_runs(sweep)] == [(0, 1), (0, 3), (1, 1), (1, 3)]
    ref = plan.simulation_spec("cs", "ps05", "easy")
    assert [r["cs"] for r in P.spec_runs(ref)] == [None, None]
    picked = plan.simulation_spec("load", "het_pd05_ps02", "hybrid_los")
    assert picked["cs"] == "pick" and picked["p_s"] == 0.2
    assert [(r["load"], r["cs"]) for r in P.spec_runs(picked, 6)] == [
        (0.6, 6), (0.6, 6), (0.9, 6), (0.9, 6)]
    with pytest.raises(ConfigError, match="pick"):
        P.spec_runs(picked)


def test_generation_spec_pairs_seeds_across_variants_not_sweeps():
    plan = P.KumarPlan.from_config(config())
    a = plan.generation_spec("load", "ps02")
    b = plan.generation_spec("load", "het_pd05_ps02")
    assert a["entropy_prefix"] == b["entropy_prefix"] == [7, 1]
    assert plan.generation_spec("cs", "ps02")["entropy_prefix"] == [7, 0]


def test_subtree_depends_only_on_its_sweep():
    plan = P.KumarPlan.from_config(config())
    other = P.KumarPlan.from_config(config(cs_values={"smoke": [1, 2, 5], "default": [1],
                                                      "full": [1]}))
    assert plan.subtree("load") == other.subtree("load")
    assert plan.subtree("cs") != other.subtree("cs")


LONG = {"workloads": {"ps02": ["easy", "delayed_los"]}, "n_jobs": {"smoke": 100, "default": 10000,
                                                                    "full": 10000},
        "seeds": {"smoke": 1, "default": 4, "full": 20}}


def test_long_runs_are_a_third_sweep_with_their_own_jobs_and_seeds():
    plain = P.KumarPlan.from_config(config())
    assert plain.purposes == ["cs", "load"] and "long" not in {p for p, _, _ in plain.jobs()}
    plan = P.KumarPlan.from_config(config("default", long_runs=LONG))
    assert plan.purposes == ["cs", "load", "long"]
    assert [j for j in plan.jobs() if j[0] == "long"] == [("long", "ps02", "easy"),
                                                          ("long", "ps02", "delayed_los")]
    gen = plan.generation_spec("long", "ps02")
    assert gen["n_jobs"] == 10000 and gen["seeds"] == 4 and gen["loads"] == list(plan.loads)
    assert gen["entropy_prefix"] == [7, 2]              # not the 500-job runs' jobs
    assert plan.generation_spec("load", "ps02")["n_jobs"] == 40
    # Delayed-LOS takes the pipeline's C_s pick, as in the load sweep.
    assert plan.simulation_spec("long", "ps02", "delayed_los")["cs"] == "pick"
    assert plan.subtree("long")["long_runs"]["n_jobs"] == 10000
    # Adding long runs leaves the other sweeps' provenance alone.
    assert plan.subtree("load") == P.KumarPlan.from_config(config("default")).subtree("load")
    files = [a["file"] for a in P.artifact_list(plan)]
    assert "long_runs.md" in files and "long_runs.md" not in [
        a["file"] for a in P.artifact_list(plain)]


READINGS = {"linear": {"description": "text's sizes", "generator": {"size_scale": "linear"},
                       "workloads": ["ps02", "elastic_batch"]},
            "running": {"description": "commands meet running jobs",
                        "policy_params": {"ecc_queued": "defer"}, "workloads": ["elastic_batch"]}}


def test_readings_re_run_load_sweeps_paired_with_them():
    plain = P.KumarPlan.from_config(config())
    assert "readings" not in plain.purposes
    plan = P.KumarPlan.from_config(config("default", readings=READINGS))
    assert plan.purposes == ["cs", "load", "readings"]
    assert plan.purpose_workloads("readings") == ["linear@ps02", "linear@elastic_batch",
                                                  "running@elastic_batch"]
    assert [pol for p, w, pol in plan.jobs() if w == "linear@ps02"] == plan.load_sweeps["ps02"]
    # Same seed streams, loads, seeds and jobs as the load sweep: paired.
    gen, base = plan.generation_spec("readings", "linear@ps02"), plan.generation_spec("load", "ps02")
    assert gen["entropy_prefix"] == base["entropy_prefix"]
    assert (gen["loads"], gen["seeds"], gen["n_jobs"]) == (base["loads"], base["seeds"], base["n_jobs"])
    assert gen["params"] == {**base["params"], "size_scale": "linear"}
    assert plan.generation_spec("readings", "running@elastic_batch")["params"] == \
        plan.generation_spec("load", "elastic_batch")["params"]
    # A reading's policy parameter goes to the policies that have it only.
    spec = plan.simulation_spec("readings", "running@elastic_batch", "delayed_los_e")
    assert spec["policy_params"]["ecc_queued"] == "defer" and spec["cs"] == "pick"
    assert "ecc_queued" not in plan.simulation_spec("readings", "linear@ps02", "easy")["policy_params"]
    assert plan.subtree("readings")["readings"]["linear"]["generator"] == {"size_scale": "linear"}
    # Adding readings leaves the other sweeps' provenance alone.
    assert plan.subtree("load") == P.KumarPlan.from_config(config("default")).subtree("load")
    assert "readings.md" in [a["file"] for a in P.artifact_list(plan)]
    assert "readings.md" not in [a["file"] for a in P.artifact_list(plain)]


def test_artifact_list_names_every_figure_once():
    plan = P.KumarPlan.from_config(config())
    arts = P.artifact_list(plan)
    files = [a["file"] for a in arts]
    assert len(files) == len(set(files))
    for spec in P.FIGURES.values():
        assert f"{spec['file']}.png" in files and f"{spec['file']}.svg" in files
    # ps02's C_s sweep is not a paper figure but is drawn (it sets Fig. 7's C_s).
    assert "cs_sweep_ps02.png" in files and "cs_sweep_ps05.png" not in files
    assert {a["rule"] for a in arts} == {"fig1", "examples", "figures", "tables", "pick"}
    assert not any(a["rule"] == "fig1" for a in P.artifact_list(plan, fig1=False))


def test_ranges_of_c_s_values():
    assert P.ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert P.ranges([]) == ""
    assert P.ranges([6, 7, 8, P.CS_INF]) == "6–8, ∞"


def test_workload_file_names_load_and_seed():
    assert P.workload_file("data/w", 0.9, 3).as_posix() == "data/w/load0.9/seed3.cwf.gz"
    # The load tag gives the load back exactly.
    assert P.workload_file("d", 1, 0).parent.name == "load1.0"


def test_plan_examples():
    assert doctest.testmod(P).failed == 0
