"""Tests of simlib.studies.utrera.study: the study's config, checks, steps and artifacts."""
import copy
import re
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import helpers_pipeline
import pytest
import yaml

from simlib.codedeps import import_closure
from simlib.errors import ConfigError
from simlib.studies import Study, study_class
from simlib.studies.utrera.study import Utrera

REPO = Path(__file__).resolve().parents[1]
SIMLIB = REPO / "simlib"

#: The rules paper U had before it was a study: names are kept (profiles,
#: tests and users' --until targets name them).
#: The other readings of the time model off the traces (reading x claim matrix) are
#: a wildcard value of utrera_fig2, utrera_simulate_table1 and utrera_simulate_long_util.
RULES = ["utrera_prepare_trace", "utrera_prepare_portion", "utrera_table1_workloads",
         "utrera_fig2", "utrera_simulate_table1", "utrera_simulate_traces",
         "utrera_simulate_long_util", "utrera_simulate_whole_workloads", "utrera_aggregate",
         "utrera_figures_fig2", "utrera_figures_table1", "utrera_figures_traces",
         "utrera_figures_long_util", "utrera_figures_whole_workloads", "utrera_claims",
         "utrera_readme"]


def repo_config(scale="smoke"):
    return helpers_pipeline.repo_config("utrera", scale)


def study(scale="smoke", edit=None):
    return helpers_pipeline.repo_study("utrera", scale, edit)


def wildcards(**kw):
    return SimpleNamespace(scale="smoke", **kw)


def test_registered_under_its_key_with_its_schema():
    assert study_class("utrera", {"registry": helpers_pipeline.repo_registry()}) is Utrera
    assert issubclass(Utrera, Study)
    assert (Utrera.section, Utrera.title) == ("utrera", "Utrera et al. (utrera): FCFS-malleable")
    assert Utrera.published_loader == ".published"  # simlib.studies.utrera.published
    path = Utrera.schema_path()
    assert path == SIMLIB / "studies/utrera/utrera.schema.json" and path.is_file()
    schema = yaml.safe_load(path.read_text())  # JSON is YAML
    jsonschema.validate(repo_config()["studies"]["utrera"], schema)
    bad = copy.deepcopy(repo_config()["studies"]["utrera"])
    bad["table1"]["fit"] = "sideways"
    with pytest.raises(jsonschema.ValidationError, match="sideways"):
        jsonschema.validate(bad, schema)
    bad = copy.deepcopy(repo_config()["studies"]["utrera"])
    bad["table1"]["mean_runtime"] = 0.5
    with pytest.raises(jsonschema.ValidationError, match="0.5 is less than the minimum of 1"):
        jsonschema.validate(bad, schema)


def test_table1_mean_runtime_is_the_papers():
    """The grid's mean_runtime is Table 1's EASY S response minus wait (mean execution time)."""
    pub = yaml.safe_load((REPO / "config/published/utrera.yaml").read_text())["table1"]["values"]
    implied = [v["easy"]["mean_response"][0] - v["easy"]["mean_wait"][0] for v in pub.values()]
    assert max(implied) - min(implied) < 1.5  # the same at every load
    t1 = repo_config()["studies"]["utrera"]["table1"]
    assert t1["mean_runtime"] == pytest.approx(sum(implied) / len(implied), abs=0.5)
    assert (t1["fit"], t1["fit_alternatives"]) == ("sizes", ["runtimes"])


def test_the_repository_grid_passes_the_checks():
    study().check()


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["policies"].pop("easy"),
     "config studies.utrera.policies: 'easy' is a required property"),
    (lambda s: s["fig2"]["policies"].append("nope"),
     r"config studies.utrera.fig2.policies\[3\]: unknown policy 'nope'"),
    (lambda s: s["trace_portions"].update(NOPE=s["trace_portions"]["CTC-SP2"]),
     "config studies.utrera.trace_portions.NOPE: unknown trace 'NOPE'"),
    (lambda s: s["long_util"].update(trace="KTH-SP2"),
     "config studies.utrera.long_util.trace: 'KTH-SP2' is not in studies.utrera.trace_portions"),
    (lambda s: s["fig1"].update(trace="KTH-SP2"),
     "config studies.utrera.fig1.trace: 'KTH-SP2' is not in"),
    (lambda s: s["readings"].update(bad={"ov_scope": "everywhere"}),
     "config studies.utrera.readings.bad: fcfs_malleable: ov_scope must be"),
    (lambda s: s.update(orders=["oldest", "sideways"]), "config studies.utrera.orders: "),
    (lambda s: s["reading_factors"]["ov"].update(comm={"ov_fraction": "some"}),
     r"config studies.utrera.reading_factors \(combination ov_comm\): fcfs_malleable: ov_fraction"),
    (lambda s: s["reading_factors"].update(util={"mean": {"impute_cpu_util": "trace_mean"},
                                                 "one": {}}),
     "config studies.utrera.reading_factors.util.mean: the first level is the main reading's"),
    (lambda s: s["table1"].update(lublin_params="nope"),
     "config studies.utrera.table1.lublin_params: unknown parameter set 'nope'"),
    (lambda s: s["table1"].update(fit="runtimes", fit_alternatives=["sizes", "runtimes"]),
     "config studies.utrera.table1.fit_alternatives: 'runtimes' is the main fit"),
    # 150 jobs of 20 s in 2 h offer at most 0.417 (every job machine-wide).
    (lambda s: s["table1"].update(mean_runtime=20),
     r"config studies.utrera.table1.loads\[1\]: load 0.5 is out of reach of fit: sizes, which "
     r"offers 0.00326 \(every job serial\) to 0.417"),
    (lambda s: s.update(published="config/published/nope.yaml"),
     "config studies.utrera.published: no such file .*nope.yaml"),
    (lambda s: s["policies"]["fcfs_malleable"].update(order="backwards"),
     "config studies.utrera.policies.fcfs_malleable: "),
])
def test_check_names_the_key(edit, message):
    with pytest.raises(ConfigError, match=message):
        study(edit=edit).check()


def test_check_validates_the_published_numbers(tmp_path):
    """A bad published file fails the check (before any job), naming file and key."""
    bad = tmp_path / "utrera.yaml"
    bad.write_text((REPO / "config/published/utrera.yaml").read_text().replace(
        "SDSC-SP2: {easy: 0.89, fcfs_malleable: 1.47}", "SDSC-SP2: {easy: 0.89}"))
    with pytest.raises(ConfigError) as err:
        study(edit=lambda s: s.update(published=str(bad))).check()
    assert str(err.value) == (f"{bad}: table3.values.SDSC-SP2: 'fcfs_malleable' is a required "
                              "property")


def test_claims_file_is_an_output_read_by_the_readme():
    u = study()
    assert u.claims_file() == "paper_figures/utrera/claims.csv"
    assert u.step("utrera_claims").output["csv"] == u.claims_file()
    assert u.step("utrera_readme").input["claims"] == u.claims_file()
    assert u.readme_file() == "paper_figures/utrera/README.md"


def test_steps_keep_the_rule_names_and_stages():
    steps = {s.name: s for s in study().steps()}
    assert list(steps) == RULES
    assert steps["utrera_prepare_trace"].group == "traces"  # as the Slurm profiles had it
    assert steps["utrera_prepare_portion"].group == "traces"
    assert {steps[n].group for n in RULES[2:8]} == {"sweep"}
    assert {steps[n].group for n in RULES[8:]} == {"summary"}
    assert steps["utrera_readme"].stage == "report"


def test_trace_variants_and_their_labels():
    u = study()
    v = u.trace_variants()
    assert list(v)[:8] == ["easy", "fcfs_malleable", "order-least_util", "order-longest",
                           "order-shortest", "reading-ov0", "reading-ov_all_work",
                           "reading-expand_started_shrunk"]
    # Then the 3 x 2 x 2 - 1 combinations of the reading factors.
    assert len(v) == 8 + 11 and "reading-ov_comm__expand_blocked__util_mean" in v
    assert [v[k]["seeded"] for k in ("easy", "fcfs_malleable")] == [False, True]
    assert v["order-longest"]["params"] == {**u.policy("fcfs_malleable"), "order": "longest"}
    assert v["reading-ov0"]["label"] == "fcfs_malleable:ov0"
    assert v["reading-ov0"]["params"]["ov_max"] == 0.0
    assert u.order_labels() == {"oldest": "fcfs_malleable",
                                "least_util": "fcfs_malleable:order=least_util",
                                "longest": "fcfs_malleable:order=longest",
                                "shortest": "fcfs_malleable:order=shortest"}


def test_each_cube_depends_on_its_own_scale_and_part():
    u = study()
    sub = {p: u.subtree(p) for p in ("fig2", "table1", "traces", "long_util")}
    assert sub["table1"]["table1"]["seeds"] == [0, 1, 2]
    assert sub["table1"]["table1"]["lublin"]["n_jobs"] == 150
    assert set(sub["traces"]["variants"]) == set(u.trace_variants())
    assert sub["long_util"]["trace"]["machine_procs"] == 128
    assert len(sub["long_util"]["trace"]["sha256"]) == 64
    # Sect. 5.1's own portion, not Fig. 3's.
    assert (sub["long_util"]["trace"]["first_job"], sub["long_util"]["trace"]["n_jobs"]) == (
        "densest", 1000)
    assert "table1" not in sub["traces"] and "variants" not in sub["table1"]
    # The readings run off the traces too: their parameters are in those cubes.
    assert sub["table1"]["readings"] == sub["long_util"]["readings"] == u.reading_labels()
    assert set(sub["fig2"]["readings"]) == set(u.reading_labels())
    assert "readings" not in sub["traces"]
    # Another scale's grid is not part of this scale's cubes.
    other = study(edit=lambda s: s.update(ov_seeds={**s["ov_seeds"], "full": 99}))
    assert other.subtree("traces") == sub["traces"]
    assert other.subtree("traces", "full") != u.subtree("traces", "full")


def test_simulation_inputs_and_params():
    u = study()
    t1 = u.step("utrera_simulate_table1")
    w = wildcards(policy="fcfs_malleable", load="0.5", fit="sizes")
    assert t1.input(w)["swfs"] == [f"data/workloads/utrera/table1/sizes/seed{s}/load0.5.swf.gz"
                                   for s in range(3)]
    p = t1.params(w)
    assert (p["seeded"], p["seeds"], p["cpus"], p["coords"]) == (
        True, [0, 1, 2], 128, {"fit": "sizes", "load": 0.5})
    assert not t1.params(wildcards(policy="easy", load="0.5", fit="sizes"))["seeded"]
    assert t1.wildcard_constraints["fit"] == "sizes|runtimes"
    # The main fit's fit records, then the alternative's.
    fits = u.step("utrera_figures_table1").input["fits"]
    assert fits[0] == "data/workloads/utrera/table1/sizes/seed0/fit.json"
    assert fits[3] == "data/workloads/utrera/table1/runtimes/seed0/fit.json" and len(fits) == 6
    # fit: arrivals reads the Lublin rule's calibrated workloads instead.
    arrivals = study(edit=lambda s: s["table1"].update(fit="arrivals", fit_alternatives=[]))
    w = wildcards(policy="fcfs_malleable", load="0.5", fit="arrivals")
    assert arrivals.step("utrera_simulate_table1").input(w)["swfs"][0] == \
        "data/workloads/lublin/utrera_table1/load0.5/seed0.swf.gz"
    assert arrivals.step("utrera_figures_table1").input["fits"] == []
    tr = u.step("utrera_simulate_traces").params(wildcards(trace="CTC-SP2", variant="reading-ov0"))
    assert tr["cpus"] == 430 and tr["coords"] == {"trace": "CTC-SP2", "policy": "fcfs_malleable:ov0"}
    assert u.step("utrera_simulate_traces").policies(wildcards(variant="easy")) == ["easy"]
    lu = u.step("utrera_simulate_long_util")
    # EASY and FCFS-malleable on Sect. 5.1's own portion.
    for pol in ("easy", "fcfs_malleable"):
        assert lu.input(wildcards(policy=pol, util="0.9")) == {
            "swf": "data/traces/utrera/long_util/SDSC-SP2.smoke.swf.gz"}
    agg = u.step("utrera_aggregate")
    assert agg.input(wildcards(part="long_util"))["summaries"][0] == \
        "results/runs/utrera/smoke/long_util/easy/util0.6/summary.json"
    assert len(agg.input(wildcards(part="traces"))["summaries"]) == 3 * (8 + 11)
    assert agg.params(wildcards(part="table1"))["seeds"] == [0, 1, 2]
    summ = agg.input(wildcards(part="table1"))["summaries"]
    assert len(summ) == 2 * 2 * 4 + 4  # fits x policies x loads, readings x loads
    assert summ[0] == "results/runs/utrera/smoke/table1/sizes/easy/load0.3/summary.json"
    # Then every reading of the main fit, one chunk per load.
    assert summ[16:] == [f"results/runs/utrera/smoke/table1/sizes/readings/load{x}/summary.json"
                         for x in ("0.3", "0.5", "0.7", "0.9")]
    assert agg.params(wildcards(part="traces"))["seeds"] == [0, 1]


def test_table1_workloads_name_one_file_per_load():
    s = study().step("utrera_table1_workloads")
    assert s.output["swfs"] == [f"data/workloads/utrera/table1/{{fit}}/seed{{seed}}/load{x}.swf.gz"
                                for x in ("0.3", "0.5", "0.7", "0.9")]
    # mean_runtime is a parameter of fit: sizes only (changing it reruns no runtimes fit).
    assert s.params(wildcards(fit="sizes", seed="0"))["mean_runtime"] == 52.0
    assert "mean_runtime" not in s.params(wildcards(fit="runtimes", seed="0"))
    assert s.input(wildcards(seed="2")) == {
        "swf": "data/workloads/lublin/utrera_table1/loadnative/seed2.swf.gz"}


def _pattern(path):
    """A step output pattern as a regex (wildcards match one path part)."""
    return re.compile(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path)) + "$")


def test_artifacts_are_exactly_the_reported_outputs():
    u = study()
    arts = u.artifacts()
    assert len(arts) == 22 and {a.section for a in arts} == {"utrera"}
    assert arts[0].path == "paper_figures/utrera/fig2_gantt.png"
    assert [a.path for a in arts[16:18]] == ["paper_figures/utrera/claims.csv",
                                             "paper_figures/utrera/README.md"]
    assert [a.path for a in arts[18:]] == [f"results/utrera_{p}.smoke.nc"
                                           for p in ("fig2", "table1", "traces", "long_util")]
    assert not any("{" in a.title or "}" in a.title for a in arts)
    marked = [(path, fam) for s in u.steps() for name, path in s.output.items()
              for fam in [s.report.get(name)] if fam]
    assert {fam for _, fam in marked} == {"utrera", "cube"}
    for a in arts:
        assert any(_pattern(p).match(a.path) for p, _ in marked), a.path
    for path, _ in marked:
        assert "{" in path or path in {a.path for a in arts}, path
    readme = u.step("utrera_readme")
    assert readme.params["artifacts"] == [a.as_dict() for a in arts]
    assert "paper_figures/utrera/README.md" not in readme.input["others"]
    assert len(readme.input["others"]) == 21


def closure(step):
    modules, shallow = step.code_modules()
    return {str(Path(f).relative_to(SIMLIB)) for f in import_closure(modules, shallow=shallow)}


def test_code_inputs_follow_what_each_step_imports():
    steps = {s.name: s for s in study().steps()}
    figures = closure(steps["utrera_figures_traces"])
    assert {"studies/utrera/figures.py", "studies/utrera/plots.py", "studies/utrera/tables.py",
            "studies/utrera/claims.py", "studies/utrera/metrics.py"} <= figures
    # Drawing a figure does not depend on the engine, nor the simulations on a figure.
    assert not any(f.startswith("engine/") for f in figures)
    sims = closure(steps["utrera_simulate_traces"])
    assert {"engine/simulator.py", "runner.py", "studies/utrera/runs.py",
            "studies/utrera/transforms.py"} <= sims
    assert "studies/utrera/plots.py" not in sims and not any(f.startswith("figures/") for f in sims)
    assert "studies/utrera/claims.py" not in sims and "studies/utrera/study.py" not in sims
    prepare = closure(steps["utrera_prepare_trace"])
    assert "workload/prepare.py" in prepare
    assert not any(f.startswith("engine/") for f in prepare)
    cube = closure(steps["utrera_aggregate"])
    assert "cube.py" in cube and "studies/utrera/runs.py" not in cube
    # The claims depend on their criteria, the claims files and the one renderer, not on drawing.
    claims = closure(steps["utrera_claims"])
    assert {"studies/utrera/claims.py", "claims.py", "markdown.py"} <= claims
    assert not any(f.startswith(("figures/", "engine/")) for f in claims)
    assert "claims.py" not in sims and "markdown.py" not in sims
    # The words: each step that writes some declares its templates (and the claims' words).
    from simlib.render import template_files
    assert steps["utrera_claims"].templates == ["claims.yaml"]
    assert "claims.yaml" in steps["utrera_readme"].templates
    assert steps["utrera_figures_traces"].templates == [
        *(f"{f}.md.j2" for f in ("fig3", "table2", "table3", "fragmentation", "headline_gains",
                                 "slowdown_by_class")), "figures.yaml"]
    # The figures' words: a template of every step that draws or labels with them.
    assert {n for n, s in steps.items() if "figures.yaml" in s.templates} == {
        f"utrera_figures_{p}" for p in ("fig2", "table1", "traces", "long_util", "whole_workloads")}
    readme = {Path(f).name for f in template_files(steps["utrera_readme"].package,
                                                   steps["utrera_readme"].templates)}
    assert {"README.md.j2", "interpretation.md.j2", "discussion.md.j2", "scale_lines.md.j2",
            "portion.j2"} <= readme
    assert not any(s.templates for n, s in steps.items() if n.startswith("utrera_simulate"))


def test_reading_factors_give_every_combination_but_the_main_one():
    u = study(edit=lambda s: s.update(reading_factors={
        "ov": {"uniform": {}, "zero": {"ov_max": 0.0}},
        "expand": {"emptyqueue": None, "blocked": {"expand_when_blocked": True}}}))
    combos = {n: o for n, o in u.readings().items() if n not in u.spec["readings"]}
    assert combos == {"expand_blocked": {"expand_when_blocked": True},
                      "ov_zero": {"ov_max": 0.0},
                      "ov_zero__expand_blocked": {"ov_max": 0.0, "expand_when_blocked": True}}
    # Each runs on the traces beside the named readings, under its own label.
    variants = u.trace_variants()
    assert variants["reading-ov_zero__expand_blocked"]["label"] == \
        "fcfs_malleable:ov_zero__expand_blocked"
    assert variants["reading-ov_zero__expand_blocked"]["params"]["expand_when_blocked"] is True
    assert set(u.spec["readings"]) < set(u.readings())


# ------------------------------------------------- Sect. 5.1's own portion
def test_long_util_portion_per_scale_and_its_step():
    u = study()
    assert u.long_util_portion() == {"machine_procs": 128, "first_job": "densest", "n_jobs": 1000,
                                     "config_key": "studies.utrera.long_util.portion"}
    assert u.long_util_portion("default")["n_jobs"] == 10000
    assert u.spec["long_util"]["min_long_jobs"] == 20  # the schema's default
    prep = u.step("utrera_prepare_portion")
    w = wildcards(use="long_util", trace="SDSC-SP2")
    assert prep.input(w) == {"raw": "data/traces/raw/SDSC-SP2.swf.gz"}
    assert prep.params(w)["portion"] == u.long_util_portion()
    assert prep.output["swf"] == "data/traces/utrera/{use}/{trace}.{scale}.swf.gz"
    fig = u.step("utrera_figures_long_util")
    assert fig.input["info"] == "data/traces/utrera/long_util/SDSC-SP2.smoke.json"
    assert fig.params["min_long_jobs"] == 20
    # Explicit positions; without a portion, Fig. 3's (the former behaviour).
    explicit = study(edit=lambda s: s["long_util"].update(portion={
        "first_job": {"smoke": 100, "default": 0, "full": 0},
        "jobs": {"smoke": 50, "default": 10, "full": 10}}))
    assert explicit.long_util_portion()["first_job"] == 100
    fig3 = study(edit=lambda s: s["long_util"].pop("portion"))
    assert fig3.long_util_portion() == {
        **fig3.portion("SDSC-SP2"), "config_key": "studies.utrera.trace_portions.SDSC-SP2"}


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["long_util"]["portion"]["first_job"].update(smoke="sparsest"),
     "'sparsest' does not match '\\^densest\\$'"),
    (lambda s: s["long_util"]["portion"]["first_job"].update(default=-1),
     "-1 is less than the minimum of 0"),
    (lambda s: s["long_util"]["portion"]["jobs"].update(smoke=0),
     "0 is less than the minimum of 1"),
    (lambda s: s["long_util"].update(min_long_jobs=-1), "-1 is less than the minimum of 0"),
    # What the workload transformations would otherwise have to check.
    (lambda s: s["long_util"]["values"].update(smoke=[0.6, 1.5]), "1.5 is greater than the maximum of 1"),
    (lambda s: s["long_util"].update(mode="shift"), "'shift' is not one of \\['set', 'scale'\\]"),
    (lambda s: s["table1"].update(span=-1), "-1 is less than or equal to the minimum of 0"),
    (lambda s: s["table1"].update(loads=[0.5, 0.0]), "0.0 is less than or equal to the minimum of 0"),
    (lambda s: s["whole_workloads"].update(scales=["huge"]), "'huge' is not one of"),
    (lambda s: s["whole_workloads"]["traces"].update(KTH={"first_job": 0}),
     "'jobs' is a required property"),
])
def test_schema_rejects_bad_portions(edit, message):
    spec = copy.deepcopy(repo_config()["studies"]["utrera"])
    edit(spec)
    schema = yaml.safe_load(Utrera.schema_path().read_text())
    with pytest.raises(jsonschema.ValidationError, match=message):
        jsonschema.validate(spec, schema)


@pytest.mark.parametrize("scale, edit, message", [
    ("smoke", lambda s: s["whole_workloads"]["traces"].update(
        {"KTH-SP2": {"first_job": 0, "jobs": 10}}),
     "config studies.utrera.whole_workloads.traces.KTH-SP2: 'KTH-SP2' is not in "
     "studies.utrera.trace_portions"),
])
def test_check_names_the_portion_key(scale, edit, message):
    with pytest.raises(ConfigError, match=message):
        helpers_pipeline.repo_study("utrera", scale, edit).check()


# ------------------------------------------------------- whole workloads
def test_whole_workloads_run_only_at_their_scales():
    assert study().whole_workloads() == {}
    assert study(scale="default").whole_workloads() == {}
    full = study(scale="full")
    assert {t: (v["first_job"], v["n_jobs"]) for t, v in full.whole_workloads().items()} == {
        "CTC-SP2": (0, 25000), "SDSC-BLUE": (0, 25000), "SDSC-SP2": (0, 45000)}
    assert full.whole_workloads()["CTC-SP2"]["machine_procs"] == 430
    # One simulation job per (trace, policy), the OV seeds inside.
    agg = full.step("utrera_aggregate")
    summ = agg.input(SimpleNamespace(scale="full", part="whole_workloads"))["summaries"]
    assert summ == [f"results/runs/utrera/full/whole_workloads/{t}/{p}/summary.json"
                    for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")
                    for p in ("easy", "fcfs_malleable")]
    sim = full.step("utrera_simulate_whole_workloads")
    w = SimpleNamespace(scale="full", trace="SDSC-BLUE", policy="fcfs_malleable")
    assert sim.input(w) == {"swf": "data/traces/utrera/whole_workloads/SDSC-BLUE.full.swf.gz"}
    p = sim.params(w)
    assert (p["cpus"], p["seeded"], p["seeds"], p["coords"]) == (
        1152, True, list(range(30)), {"trace": "SDSC-BLUE"})
    assert p["policy"] == "fcfs_malleable"
    assert full.step("utrera_prepare_portion").params(
        SimpleNamespace(scale="full", use="whole_workloads", trace="SDSC-SP2"))["portion"] == {
        "machine_procs": 128, "first_job": 0, "n_jobs": 45000,
        "config_key": "studies.utrera.whole_workloads.traces.SDSC-SP2"}
    # Its table and cube are artifacts at full scale only (before claims.csv and the README).
    arts = [a.path for a in full.artifacts()]
    assert arts[16:19] == ["paper_figures/utrera/whole_workloads.md",
                           "paper_figures/utrera/claims.csv", "paper_figures/utrera/README.md"]
    assert arts[-1] == "results/utrera_whole_workloads.full.nc"
    assert "paper_figures/utrera/whole_workloads.md" in full.step("utrera_readme").input["others"]
    assert not any("whole" in a.path for a in study().artifacts())
    assert full.step("utrera_figures_whole_workloads").report == {"md": "utrera"}
    assert study().step("utrera_figures_whole_workloads").report == {}
    # A switch: at smoke scale too.
    smoke = study(edit=lambda s: s["whole_workloads"].update(scales=["smoke", "full"]))
    assert list(smoke.whole_workloads()) == ["CTC-SP2", "SDSC-BLUE", "SDSC-SP2"]
    assert smoke.subtree("whole_workloads")["traces"]["SDSC-SP2"]["n_jobs"] == 45000


def test_scale_plan_says_what_each_scale_runs():
    plan = study().scale_plan()
    assert list(plan) == ["smoke", "default", "full"]
    assert plan["smoke"]["whole_workloads"] == {} and plan["default"]["whole_workloads"] == {}
    assert set(plan["full"]["whole_workloads"]) == {"CTC-SP2", "SDSC-BLUE", "SDSC-SP2"}
    assert plan["default"]["long_util"]["n_jobs"] == 10000
    assert study().step("utrera_readme").params["scale_plan"] == plan


# ------------------------------------- the readings off the traces (reading x claim matrix)
def test_table1_long_util_and_fig2_plan_a_run_per_reading():
    u = study()
    labels = u.reading_labels()
    assert list(labels) == [f"fcfs_malleable:{n}" for n in u.readings()] and len(labels) == 14
    assert labels["fcfs_malleable:ov_comm__util_mean"] == {
        **u.policy("fcfs_malleable"), "ov_fraction": "communication",
        "impute_cpu_util": "trace_mean"}
    # The same labels and parameters as on the traces.
    v = u.trace_variants()
    assert {x["label"]: x["params"] for k, x in v.items() if k.startswith("reading-")} == labels
    agg = u.step("utrera_aggregate")
    # Table 1: one chunk per load runs every reading on the main fit's workloads: a value
    # of the step's policy wildcard, not a step of its own.
    t1 = u.step("utrera_simulate_table1")
    w = wildcards(fit="sizes", load="0.5", policy="readings")
    assert t1.output["summary"] == \
        "results/runs/utrera/{scale}/table1/{fit}/{policy}/load{load}/summary.json"
    assert t1.wildcard_constraints["policy"] == "easy|fcfs_malleable|readings"
    assert t1.input(w) == t1.input(wildcards(fit="sizes", load="0.5", policy="fcfs_malleable"))
    p = t1.params(w)
    main = t1.params(wildcards(fit="sizes", load="0.5", policy="fcfs_malleable"))
    assert p["variants"] == labels and p["seeded"] and p["policy"] == "fcfs_malleable"
    assert "variants" not in main and t1.policies(w) == ["fcfs_malleable"]
    assert (p["seeds"], p["coords"], p["cpus"]) == (main["seeds"], main["coords"], main["cpus"])
    # Batched, one job per policy; the readings on the main fit only.
    assert {k: [(e["policy"], e["fit"]) for e in v] for k, v in t1.batch.items()}["readings"] == [
        ("readings", "sizes")] * 4
    # Sect. 5.1: one chunk per point, every reading, the main runs' portion and seeds.
    lu = u.step("utrera_simulate_long_util")
    w = wildcards(util="0.9", policy="readings")
    assert lu.input(w) == lu.input(wildcards(util="0.9", policy="fcfs_malleable"))
    p = lu.params(w)
    assert p["variants"] == labels and p["coords"] == {"long_util": 0.9}
    assert p["seeds"] == u.seeds("ov") and p["kind"] == "long_util"
    # Their runs are long: one job per point, batched or not.
    assert [k for k in lu.batch if k.startswith("readings")] == [
        "readings_0.6", "readings_0.9", "readings_1.0"]
    summ = agg.input(wildcards(part="long_util"))["summaries"]
    assert summ[-3:] == [f"results/runs/utrera/smoke/long_util/readings/util{x}/summary.json"
                         for x in ("0.6", "0.9", "1.0")]
    # Fig. 2: one job runs the example under every reading, its footnote (OV = 0) on top.
    f2 = u.step("utrera_fig2")
    assert f2.output["schedules"] == "results/runs/utrera/{scale}/fig2/{runs}.json"
    variants = f2.params(wildcards(runs="readings"))["variants"]
    assert set(variants) == set(labels) and f2.policies(wildcards(runs="readings")) == [
        "fcfs_malleable"]
    assert {x["params"]["ov_max"] for x in variants.values()} == {0.0}
    assert variants["fcfs_malleable:expand_blocked"]["params"]["expand_when_blocked"] is True
    # The main runs: each policy of fig2.policies, fcfs_malleable with the example's overrides.
    main = f2.params(wildcards(runs="schedules"))["variants"]
    assert list(main) == ["fcfs", "easy", "fcfs_malleable"] and main["easy"]["params"] == {}
    assert main["fcfs_malleable"]["params"] == {**u.policy("fcfs_malleable"), "ov_max": 0.0}
    assert agg.input(wildcards(part="fig2"))["summaries"] == [
        "results/runs/utrera/smoke/fig2/schedules.json",
        "results/runs/utrera/smoke/fig2/readings.json"]
    # The figure steps write every reading's rows for the matrix, the README reads them.
    readme = u.step("utrera_readme")
    for step, name in (("utrera_figures_fig2", "fig2_readings"),
                       ("utrera_figures_table1", "table1_readings"),
                       ("utrera_figures_long_util", "long_util_readings")):
        out = u.step(step).output["readings_csv"]
        assert out == f"paper_figures/utrera/{name}.csv" and readme.input[name] == out


def test_no_readings_plan_no_reading_runs():
    u = study(edit=lambda s: (s.update(readings={}), s.pop("reading_factors")))
    assert u.reading_labels() == {}
    agg = u.step("utrera_aggregate")
    assert agg.input(wildcards(part="fig2"))["summaries"] == [
        "results/runs/utrera/smoke/fig2/schedules.json"]
    assert not any("readings" in f for part in ("table1", "long_util")
                   for f in agg.input(wildcards(part=part))["summaries"])
    assert "readings" not in u.step("utrera_figures_fig2").input


# ------------------------------------------------------------ extra_policies
@pytest.fixture
def user_policies(monkeypatch):
    """Two user policies registered for one test: ``u_plain`` (EASY's class, no seed) and
    ``u_seeded`` (takes a ``seed``: it draws)."""
    from simlib.policies import POLICIES
    from simlib.policies.easy import EASY

    plain = type("UPlain", (EASY,), {"name": "u_plain", "defaults": {"depth": 1}})
    seeded = type("USeeded", (EASY,), {"name": "u_seeded", "defaults": {"seed": 0}})
    monkeypatch.setitem(POLICIES, "u_plain", plain)
    monkeypatch.setitem(POLICIES, "u_seeded", seeded)
    return {"u_plain": {"depth": 2}, "u_seeded": {}}


def extra_study(extra, scale="smoke"):
    from simlib.studies import load_study
    cfg = repo_config(scale)
    cfg["extra_policies"] = extra
    return load_study("utrera", cfg)


def test_extra_policies_run_beside_easy_in_the_comparisons(user_policies):
    u = extra_study(user_policies)
    u.check()
    assert u.extra == ("u_plain", "u_seeded")
    assert u.compared() == ("easy", "u_plain", "u_seeded", "fcfs_malleable")
    # The config's grid stays the user's; the study's copy holds them.
    assert "u_plain" not in u.config["studies"]["utrera"]["policies"]
    assert u.policy("u_plain") == {"depth": 2}
    v = u.trace_variants()
    assert list(v)[:4] == ["easy", "u_plain", "u_seeded", "fcfs_malleable"]
    assert v["u_plain"] == {"policy": "u_plain", "params": {"depth": 2}, "label": "u_plain",
                            "seeded": False}
    # Seeded only when it draws (Policy.draws): then one run per OV seed, like FCFS-malleable.
    assert v["u_seeded"]["seeded"] and u.seeded("u_seeded") and not u.seeded("easy")
    plain = extra_study({})
    # The orders and readings are FCFS-malleable's alone.
    assert {k: x for k, x in v.items() if k not in user_policies} == plain.trace_variants()
    for part in ("table1", "long_util"):
        pols = {p["policy"] for p in u.points(part)}
        assert pols == {"easy", "u_plain", "u_seeded", "fcfs_malleable", "readings"}
    # Table 1: every fit; the readings run on the main fit only.
    assert {(p["fit"], p["policy"]) for p in u.points("table1")} >= {
        ("runtimes", "u_plain"), ("sizes", "u_seeded")}
    assert not any(p["fit"] == "runtimes" for p in u.points("table1") if p["policy"] == "readings")
    full = extra_study(user_policies, "full")
    assert {p["policy"] for p in full.points("whole_workloads")} == {
        "easy", "u_plain", "u_seeded", "fcfs_malleable"}
    # Fig. 2's toy example does not take them.
    assert u.fig2_variants("schedules") == plain.fig2_variants("schedules")
    assert u.subtree("fig2") == plain.subtree("fig2")


def test_extra_policy_runs_name_only_their_own_policy(user_policies):
    u = extra_study(user_policies)
    t1 = u.step("utrera_simulate_table1")
    w = wildcards(policy="u_plain", load="0.5", fit="sizes")
    p = t1.params(w)
    assert (p["policy"], p["policy_params"], p["seeded"]) == ("u_plain", {"depth": 2}, False)
    assert t1.params(wildcards(policy="u_seeded", load="0.5", fit="sizes"))["seeded"]
    assert t1.policies(w) == ["u_plain"]
    # No other policy's parameters in its params: editing one reruns its runs only.
    assert "u_seeded" not in repr(p) and "fcfs_malleable" not in repr(p)
    tr = u.step("utrera_simulate_traces")
    w = wildcards(trace="CTC-SP2", variant="u_seeded")
    assert tr.policies(w) == ["u_seeded"]
    assert tr.params(w)["coords"] == {"trace": "CTC-SP2", "policy": "u_seeded"}
    assert "u_plain" not in repr(tr.params(w))
    lu = u.step("utrera_simulate_long_util").params(wildcards(policy="u_plain", util="0.9"))
    assert lu["policy"] == "u_plain" and "u_seeded" not in repr(lu)
    for name in ("utrera_simulate_table1", "utrera_simulate_long_util"):
        assert re.fullmatch(u.step(name).wildcard_constraints["policy"], "u_seeded")
    # One batch per policy (never two policies in one job).
    assert set(u._batch("traces")) == {"easy", "u_plain", "u_seeded", "fcfs_malleable"}
    # The cubes showing them: both policies' parameters; Fig. 2's: neither.
    agg = u.step("utrera_aggregate")
    for part in ("table1", "traces", "long_util"):
        assert set(agg.params(wildcards(part=part))["subtree"]["policies"]) == {
            "easy", "fcfs_malleable", "u_plain", "u_seeded"}
        assert any("/u_plain/" in s for s in agg.input(wildcards(part=part))["summaries"])
    assert set(agg.params(wildcards(part="fig2"))["subtree"]["policies"]) == {
        "easy", "fcfs_malleable"}
    assert u.step("utrera_readme").params["extra_policies"] == ["u_plain", "u_seeded"]
    assert "extra_policies" not in extra_study({}).step("utrera_readme").params


def test_extra_policy_sources_are_in_their_cubes(user_policies, monkeypatch):
    import simlib.studies.utrera.study as mod
    seen = []

    def sources(policies):
        seen.append(list(policies))
        return {p: {"file": f"{p}.py"} for p in policies if p.startswith("u_")}

    monkeypatch.setattr(mod, "policy_sources", sources)
    u = extra_study(user_policies)
    assert u.subtree("traces")["policy_sources"] == {"u_plain": {"file": "u_plain.py"},
                                                     "u_seeded": {"file": "u_seeded.py"}}
    assert "policy_sources" not in u.subtree("fig2")
    # Built-in policies only: no entry (the cubes stay as they were).
    assert "policy_sources" not in extra_study({}).subtree("traces")


@pytest.mark.parametrize("name", ["easy", "fcfs_malleable", "readings"])
def test_extra_policy_name_clash_is_a_config_error(name, monkeypatch):
    from simlib.policies import POLICIES
    monkeypatch.setitem(POLICIES, "readings", POLICIES["easy"])
    with pytest.raises(ConfigError, match=f"extra_policies.{name}"):
        extra_study({name: {}})


def test_extra_policy_bad_parameter_names_its_config_key(user_policies):
    u = extra_study({"u_plain": {"depth": "deep"}})
    with pytest.raises(ConfigError, match="extra_policies.u_plain"):
        u.check()
