"""The ``kumar`` study (simlib.studies.kumar.study): its checks, steps and
artifacts, and its step functions run from a StepContext without Snakemake."""
from __future__ import annotations

import copy
import importlib
import json
import logging
from pathlib import Path

import pytest

from helpers_kumar_study import STUDY
from helpers_pipeline import repo_registry

from simlib.cube import read_cube
from simlib.errors import ConfigError
from simlib.studies import Files, StepContext, load_study, study_class
from simlib.studies.kumar.study import Kumar

REPO = Path(__file__).resolve().parents[1]

FIG1 = {"traces": ["SDSC-SP2"], "policies": {"easy": {}, "los": {}},
        "loads": {"smoke": [0.5, 0.9], "default": [0.5], "full": [0.5]}}


def config(fig1=True, **changes):
    """A pipeline config holding STUDY (with ``changes``) and, if asked, the Fig. 1 sweep."""
    kumar = {**copy.deepcopy(STUDY), "published": "config/published/kumar.yaml", **changes}
    studies = {"kumar": kumar}
    if fig1 is not None:
        studies["kumar_fig1"] = {**FIG1, **({} if fig1 else {"enabled": False})}
    return {"scale": "smoke", "studies": studies, "registry": repo_registry(),
            "scales": {"smoke": {"trace_jobs": 1500}},
            "traces": {"catalog": {"SDSC-SP2": {"file": "SDSC-SP2.swf.gz", "machine_procs": 128}}},
            "simulation": {"overrun": "kill", "tau": 10.0}}


def study(**kw) -> Kumar:
    return load_study("kumar", config(**kw), repo=REPO)


RULES = ["kumar_workloads", "kumar_simulate", "kumar_aggregate", "kumar_pick_cs", "kumar_fig1",
         "kumar_examples", "kumar_figures", "kumar_tables", "kumar_report"]


# ---------------------------------------------------------------- config
def test_registered_under_its_key():
    assert study_class("kumar", config()) is Kumar
    k = study()
    assert (k.key, k.section, k.title) == ("kumar", "kumar", "Kumar et al. (kumar): Delayed-LOS, Hybrid-LOS")
    assert k.schema_path().name == "kumar.schema.json" and k.schema_path().is_file()


def test_check_accepts_the_grid_and_names_bad_keys(tmp_path):
    study().check()
    with pytest.raises(ConfigError, match="config studies.kumar.published: no such file"):
        study(published=str(tmp_path / "none.yaml")).check()
    with pytest.raises(ConfigError, match="config studies.kumar.policies.eazy: unknown policy"):
        study(policies={**STUDY["policies"], "eazy": {}}).check()
    with pytest.raises(ConfigError, match="Table IV compares los"):
        study(load_sweeps={**STUDY["load_sweeps"], "ps02": ["easy", "delayed_los"]}).check()
    # A bad published file fails here, before any job, naming file and key.
    bad = tmp_path / "kumar.yaml"
    bad.write_text((REPO / "config/published/kumar.yaml").read_text().replace(
        "  p_s: 0.8\n", "  p_s: high\n"))
    with pytest.raises(ConfigError) as err:
        study(published=str(bad)).check()
    assert str(err.value) == f"{bad}: cs_insensitive.p_s: 'high' is not of type 'number'"


def test_claims_file_and_what_depends_on_the_published_numbers():
    from simlib.codedeps import import_closure
    k = study()
    assert k.claims_file() == "paper_figures/kumar/claims.csv" == k.step("kumar_tables").output[
        "claims_csv"]
    assert k.readme_file() == "paper_figures/kumar/README.md"

    def code(name):
        modules, shallow = k.step(name).code_modules()
        return {Path(f).name for f in import_closure(modules, shallow=shallow)}
    # The published numbers' reader (and with it the claims and the renderer)
    # is code of the steps reading them, not of the simulations.
    assert {"published.py", "claims.py", "markdown.py"} <= code("kumar_tables")
    assert {"published.py", "claims.py"} <= code("kumar_examples") & code("kumar_report")
    assert not {"published.py", "claims.py", "markdown.py"} & code("kumar_simulate")
    # No step runs a method of the study: editing study.py reruns nothing.
    assert not {"study.py"} & set().union(*(code(s.name) for s in k.steps()))


# ----------------------------------------------------------------- steps
def test_steps_are_the_rules_of_paper_k():
    k = study()
    assert [s.name for s in k.steps()] == RULES
    # Without the Fig. 1 sweep (disabled or absent) there is no Fig. 1 to draw.
    for fig1 in (False, None):
        k = study(fig1=fig1)
        assert "kumar_fig1" not in [s.name for s in k.steps()]
        assert not any("fig1_" in a.path for a in k.artifacts())
        assert "fig1_cube" not in k.step("kumar_tables").input
        assert k.step("kumar_report").params["fig1_scale"] == ""


def test_groups_keep_the_pick_out_of_slurm_groups():
    k = study()
    groups = {s.name: s.group for s in k.steps()}
    # The load sweep waits for the pick, which waits for the C_s sweep's cube:
    # grouping any of these could make a group job wait for itself.
    assert groups["kumar_simulate"] is groups["kumar_aggregate"] is groups["kumar_pick_cs"] is None
    assert groups["kumar_workloads"] == "sweep"
    assert {groups[r] for r in RULES[4:]} == {"summary"}


def test_step_code_names_importable_modules():
    for s in study().steps():
        for module in s.code:
            importlib.import_module(module)


def test_artifacts_in_index_order_and_each_a_reported_output():
    k = study()
    arts = k.artifacts()
    paths = [a.path for a in arts]
    assert paths[:3] == [f"paper_figures/kumar/fig1_easy_vs_los_sdsc.{x}" for x in ("png", "svg", "csv")]
    assert paths[-3:] == ["paper_figures/kumar/README.md", "results/kumar_cs.smoke.nc",
                          "results/kumar_load.smoke.nc"]
    assert len(set(paths)) == len(paths) and {a.section for a in arts} == {"kumar"}
    reported = {}
    for s in k.steps():
        for name, family in s.report.items():
            reported[s.output[name].replace("{scale}", "smoke")] = family
    cubes = {"results/kumar_{purpose}.smoke.nc".format(purpose=p) for p in ("cs", "load")}
    # {purpose} is a wildcard of the aggregate step: one marked pattern, two cubes.
    reported.pop("results/kumar_{purpose}.smoke.nc")
    assert set(reported) | cubes == set(paths)
    assert set(reported.values()) == {"kumar"}


def test_simulate_inputs_ask_for_the_pick_only_where_needed():
    k = study()

    class W:
        scale, purpose, workload = "smoke", "load", "ps02"
        policy = "delayed_los"

    assert k._simulate_inputs(W) == {"workloads": "data/workloads/kumar/smoke/load/ps02",
                                     "picks": "results/kumar_cs_pick.smoke.json"}
    W.policy = "easy"
    assert "picks" not in k._simulate_inputs(W)
    W.purpose, W.policy = "cs", "delayed_los"   # the swept policy runs every C_s
    assert "picks" not in k._simulate_inputs(W)


def test_report_reads_every_other_artifact():
    k = study()
    others = k.step("kumar_report").input["others"]
    assert "paper_figures/kumar/README.md" not in others
    assert "results/kumar_fig1.smoke.nc" in others and "paper_figures/kumar/claims.csv" in others


# ------------------------------------------------------- step functions
def ctx(step, wildcards=None, inputs=None, config_=None):
    """The StepContext Snakemake would give ``step`` (paths relative to the cwd)."""
    wildcards = dict(wildcards or {})

    class W:
        pass

    for key, value in wildcards.items():
        setattr(W, key, value)
    params = step.params(W) if callable(step.params) else step.params
    inp = inputs if inputs is not None else (step.input(W) if callable(step.input) else step.input)
    out = {n: p.format(**wildcards) for n, p in step.output.items()}
    return StepContext(input=Files(inp), output=Files(out), params=dict(params),
                       wildcards=wildcards, log=logging.getLogger("test"),
                       config=config_ or {})


def test_c_s_sweep_steps_run_without_snakemake(tmp_path, monkeypatch):
    """Workloads, chunks, cube and pick of the C_s sweep, as the pipeline runs them."""
    monkeypatch.chdir(tmp_path)
    k = study()
    cfg = config()
    plan = k.plan
    for w in plan.purpose_workloads("cs"):
        wc = {"scale": "smoke", "purpose": "cs", "workload": w}
        k.step("kumar_workloads").run(ctx(k.step("kumar_workloads"), wc, config_=cfg))
        for pol in plan.purpose_policies("cs", w):
            step = k.step("kumar_simulate")
            c = ctx(step, {**wc, "policy": pol}, config_=cfg)
            assert set(c.input) == {"workloads"}
            step.run(c)
    c = ctx(k.step("kumar_aggregate"), {"scale": "smoke", "purpose": "cs"}, config_=cfg)
    k.step("kumar_aggregate").run(c)
    cube = read_cube(c.output.cube)
    assert dict(cube.sizes) == {"workload": 3, "policy": 3, "cs": 2, "seed": 2}
    assert cube.attrs["study"] == "kumar" and cube.attrs["sweep"] == "cs"
    assert json.loads(cube.attrs["config_subtree"]) == json.loads(json.dumps(k.subtree("cs")))
    c = ctx(k.step("kumar_pick_cs"), config_=cfg)
    k.step("kumar_pick_cs").run(c)
    picks = json.loads(Path(c.output.picks).read_text())
    assert set(picks["by_p_s"]) == {"0.2", "0.5", "0.8"}
    assert Path("paper_figures/kumar/cs_pick.csv").read_text().startswith("scale,workload,p_s,cs")


# ---------------------------------------------------------------- the grid
LONG = {"workloads": {"ps02": ["easy", "delayed_los"]}, "n_jobs": {"smoke": 100, "default": 10000,
                                                                    "full": 10000},
        "seeds": {"smoke": 1, "default": 4, "full": 20}}


def test_check_accepts_the_repository_grid():
    import yaml
    grid = yaml.safe_load((REPO / "config/grids/kumar.yaml").read_text())
    study(**grid["studies"]["kumar"]).check()
    study().check()


@pytest.mark.parametrize("changes, message", [
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps03": ["easy"]}},
     "config studies.kumar.load_sweeps.ps03: unknown workload 'ps03'"),
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps02": ["easy", "eazy"]}},
     "config studies.kumar.load_sweeps.ps02[1]: policy 'eazy' is not in"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "swept": "easy"}},
     "config studies.kumar.cs_sweep.swept: 'easy' has no C_s parameter"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "workloads": ["ps02", "ps05", "ps08", "elastic_batch"]}},
     "have the same P_S = 0.5"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "workloads": ["ps05", "ps08"]}},
     "needs a C_s picked for P_S = 0.2"),
    # The generator's fields, one by one: the schema ($defs.kumar_params).
    ({"generator": {"size_scale": "cubic"}},
     "config studies.kumar.generator.size_scale: 'cubic' is not one of ['linear', 'log2']"),
    ({"workloads": {**STUDY["workloads"], "ps05": {"p_s": 1.5}}},
     "config studies.kumar.workloads.ps05.p_s: 1.5 is greater than the maximum of 1"),
    # Together: the generator.
    ({"workloads": {**STUDY["workloads"], "ps05": {"p_s": 0.5, "p_e": 0.7, "p_r": 0.5}}},
     "config studies.kumar.workloads.ps05: Kumar parameters p_e + p_r = 1.2: must be <= 1"),
    ({"load_sweeps": {k: v for k, v in STUDY["load_sweeps"].items() if k != "ps08"}},
     "paper K's fig8 needs workload 'ps08'"),
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps02": ["easy", "delayed_los"]}},
     "Table IV compares los"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "pick": {"rule": "median"}}},
     "config studies.kumar.cs_sweep.pick.rule: 'median' is not one of"),
    ({"long_runs": {**LONG, "workloads": {"ps03": ["easy"]}}},
     "config studies.kumar.long_runs.workloads.ps03: unknown workload 'ps03'"),
    ({"long_runs": {**LONG, "workloads": {"ps02": ["easy", "hybrid_los"]}}},
     "long_runs.workloads.ps02[1]: hybrid_los does not run in config studies.kumar.load_sweeps.ps02"),
    ({"readings": {"r": {"description": "x", "generator": {"size_scale": "linear"},
                         "workloads": ["ps03"]}}},
     "config studies.kumar.readings.r.workloads[0]: 'ps03' is not a workload of"),
    # A reading changes something (the schema: generator or policy_params not empty).
    ({"readings": {"r": {"description": "x", "workloads": ["ps02"]}}},
     "config studies.kumar.readings.r.generator: {} should be non-empty"),
    ({"readings": {"r": {"description": "x", "generator": {"size_scale": "cubic"},
                         "workloads": ["ps02"]}}},
     "config studies.kumar.readings.r.generator.size_scale: 'cubic' is not one of"),
    ({"readings": {"r": {"description": "x", "generator": {"large_units": [4, 12]},
                         "workloads": ["ps02"]}}},
     "config studies.kumar.readings.r on ps02: Kumar parameters: jobs of up to 384 processors"),
    ({"readings": {"r": {"description": "x", "policy_params": {"ecc_queued": "defer"},
                         "workloads": ["ps02"]}}},
     "config studies.kumar.readings.r.policy_params.ecc_queued: no policy of the reading's"),
    ({"readings": {"r": {"description": "x", "policy_params": {"ecc_queued": "later"},
                         "workloads": ["elastic_batch"]}}},
     "config studies.kumar.readings.r.policy_params.ecc_queued: delayed_los_e: parameter ecc_queued "
     "must be one of apply, defer; not 'later'"),
    ({"fig1_sensitivity": {"segments": {s: [[0, 10], [5, 10]] for s in ("smoke", "default", "full")},
                           "loads": {s: [0.5] for s in ("smoke", "default", "full")},
                           "lookaheads": [50], "ties": ["earliest"], "tolerance": 5.0}},
     "config studies.kumar.fig1_sensitivity.segments.smoke: segments 0-9 and 5-14 overlap"),
])
def test_check_names_the_offending_key(changes, message):
    with pytest.raises(ConfigError) as err:
        study(**changes).check()
    assert message in str(err.value)
