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
from simlib.studies import Files, StepContext, Study, load_study, study_class
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
    roots = [c.__module__ for c in Kumar.__mro__ if issubclass(c, Study)]

    def code(name):
        return {Path(f).name for f in import_closure(k.step(name).code, shallow=roots)}
    # The published numbers' reader (and with it the claims and the renderer)
    # is code of the steps reading them, not of the simulations.
    assert {"published.py", "claims.py", "markdown.py"} <= code("kumar_tables")
    assert {"published.py", "claims.py"} <= code("kumar_examples") & code("kumar_report")
    assert not {"published.py", "claims.py", "markdown.py"} & code("kumar_simulate")


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
        k.make_workloads(ctx(k.step("kumar_workloads"), wc, config_=cfg))
        for pol in plan.purpose_policies("cs", w):
            step = k.step("kumar_simulate")
            c = ctx(step, {**wc, "policy": pol}, config_=cfg)
            assert set(c.input) == {"workloads"}
            k.simulate(c)
    c = ctx(k.step("kumar_aggregate"), {"scale": "smoke", "purpose": "cs"}, config_=cfg)
    k.aggregate(c)
    cube = read_cube(c.output.cube)
    assert dict(cube.sizes) == {"workload": 3, "policy": 3, "cs": 2, "seed": 2}
    assert cube.attrs["study"] == "kumar" and cube.attrs["sweep"] == "cs"
    assert json.loads(cube.attrs["config_subtree"]) == json.loads(json.dumps(k.subtree("cs")))
    c = ctx(k.step("kumar_pick_cs"), config_=cfg)
    k.pick(c)
    picks = json.loads(Path(c.output.picks).read_text())
    assert set(picks["by_p_s"]) == {"0.2", "0.5", "0.8"}
    assert Path("paper_figures/kumar/cs_pick.csv").read_text().startswith("scale,workload,p_s,cs")
