"""Paper D's study (simlib.studies.dutot): config, checks, steps, grid sizes, artifacts."""
import copy
import json
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import helpers_pipeline
import pytest

from simlib.backends.simgrid import SimGridUnavailable
from simlib.errors import ConfigError
from simlib.studies import Study, study_class
from simlib.studies.dutot import Dutot, f_comm_values

REPO = Path(__file__).resolve().parents[1]


def repo_config(scale="smoke"):
    return helpers_pipeline.repo_config("dutot", scale)


def study(scale="smoke", edit=None):
    return helpers_pipeline.repo_study("dutot", scale, edit)


def wildcards(**kw):
    return SimpleNamespace(scale="smoke", **kw)


@pytest.fixture
def no_simgrid_check(monkeypatch):
    """Checks that pass up to SimGrid, without needing SimGrid here."""
    monkeypatch.setattr(Dutot, "check_simgrid", lambda self: None)


def test_registered_with_its_schema():
    assert study_class("dutot", {"registry": helpers_pipeline.repo_registry()}) is Dutot
    assert issubclass(Dutot, Study)
    assert Dutot.section == "dutot"
    assert Dutot.title == ("Dutot et al. (dutot): conservative backfilling with contiguity and "
                           "locality, SimGrid")
    schema = json.loads(Dutot.schema_path().read_text())
    jsonschema.validate(repo_config()["studies"]["dutot"], schema)
    bad = copy.deepcopy(repo_config()["studies"]["dutot"])
    bad["variants"] = ["basic", "nearest"]
    with pytest.raises(jsonschema.ValidationError, match="nearest"):
        jsonschema.validate(bad, schema)


def test_the_repository_grid_passes_the_checks(no_simgrid_check):
    for scale in ("smoke", "default", "full"):
        study(scale).check()


def test_f_comm_values_start_at_zero():
    assert f_comm_values({"step": 2e7, "count": 3}) == [0.0, 2e7, 4e7]
    assert f_comm_values({"step": 1e7, "count": 40})[-1] == 39e7


def test_full_scale_is_the_papers_12000_runs_per_reading_in_a_small_dag():
    s = study("full")
    # The paper's 4,000 homogeneous runs on each of the three readings.
    assert s.runs("homogeneous") == 3 * 20 * 40 * 5 == 12000
    assert s.runs("heterogeneous") == 2 * 4 * 10 * 20 * 5 == 8000
    assert s.models() == ["printed", "griffon", "base"]
    assert s.f_comm("homogeneous")[-1] == pytest.approx(39e7)
    assert s.f_comm("heterogeneous")[-1] == pytest.approx(38e7)
    jobs = len(s.chunks("homogeneous")) + len(s.chunks("heterogeneous"))
    assert jobs == 3 * 20 + 8 * 10 and jobs < 2000
    # The printed reading alone: a switch in the grid.
    one = study("full", lambda d: d["homogeneous"]["models"].update(full=["printed"]))
    assert one.runs("homogeneous") == 4000


def test_smoke_and_default_grids():
    s = study("smoke")
    assert s.jobs() == 40 and s.seeds("homogeneous") == [0] and s.seeds("heterogeneous") == [0]
    assert len(s.f_comm("homogeneous")) == 2
    assert set(s.models()) == {"printed", "griffon", "base"}
    assert sorted(s.platforms()) == sorted(["hom-printed", "hom-griffon", "hom-base"] + [
        f"het-{st}-o{k}" for st in ("high", "low") for k in range(1, 5)])
    d = study("default")
    # Every (seed, F_comm) of the heterogeneous grid is also run on the homogeneous
    # platform: claim (f) pairs them.
    assert set(d.f_comm("heterogeneous")) <= set(d.f_comm("homogeneous"))
    assert set(d.seeds("heterogeneous")) <= set(d.seeds("homogeneous"))
    assert d.workload_seeds() == d.seeds("homogeneous")


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(trace="NOPE"), "config studies.dutot.trace: unknown trace 'NOPE'"),
    (lambda d: d.update(published="nowhere.yaml"), "config studies.dutot.published: no such file"),
    (lambda d: d["workload"].update(max_size=32),
     "config studies.dutot.workload.max_size: 32 is above the clusters' 16 nodes"),
    (lambda d: d["workload"].update(runtime_min=20000),
     "config studies.dutot.workload.runtime_min: 20000 is above runtime_max"),
    (lambda d: d["heterogeneous"].update(sets=["high", "mid"]),
     "config studies.dutot.heterogeneous.sets[1]: unknown set 'mid'"),
    (lambda d: d["heterogeneous"].update(orderings=["o1", "o9"]),
     "config studies.dutot.heterogeneous.orderings[1]: unknown ordering 'o9'"),
    (lambda d: d["heterogeneous"].update(ordering_values={"o5": [1, 4]}),
     "config studies.dutot.heterogeneous.ordering_values.o5: index 4 is past set 'high'"),
    (lambda d: d.update(recompute="sometimes"),
     "config studies.dutot.recompute: 'sometimes' is not one of ['rebuild', 'compress']"),
    (lambda d: d.update(variants=["basic", "nearest"]),
     "config studies.dutot.variants[1]: 'nearest' is not one of ['basic', "),
    (lambda d: d["workload"].update(pool_rule="clip"),
     "config studies.dutot.workload.pool_rule: 'clip' is not one of ['filter_then_clip', "),
    (lambda d: d["homogeneous"].update(private_links="duplex"),
     "config studies.dutot.homogeneous.private_links: 'duplex' is not one of ['split_duplex', "),
    (lambda d: d["homogeneous"]["models"].update(smoke=["printed", "table1"]),
     "config studies.dutot.homogeneous.models.smoke[1]: 'table1' is not one of ['printed', "),
])
def test_config_errors_name_the_key(edit, message, no_simgrid_check):
    with pytest.raises(ConfigError) as err:
        study(edit=edit).check()
    assert message in str(err.value)


def test_missing_simgrid_is_a_config_error_saying_what_to_do(monkeypatch):
    import simlib.backends.simgrid as backend

    def missing():
        raise SimGridUnavailable("SimGrid is not available (no module named 'simgrid'): install it")

    monkeypatch.setattr(backend, "require_simgrid", missing)
    with pytest.raises(SimGridUnavailable) as err:
        study().check()
    text = str(err.value)
    assert text.startswith("config studies.dutot: SimGrid is not available")
    assert "--config skip=dutot" in text


def test_steps_artifacts_and_report_marks_agree():
    s = study("smoke")
    steps = {st.name: st for st in s.steps()}
    assert list(steps) == ["dutot_eligible", "dutot_workload", "dutot_simulate", "dutot_aggregate",
                           "dutot_figures_homogeneous", "dutot_figures_heterogeneous",
                           "dutot_figures_platforms", "dutot_claims", "dutot_readme"]
    marked = set()
    for st in steps.values():
        for name in st.report:
            marked.add(st.output[name].replace("{scale}", "smoke").replace(
                "{experiment}", "EXP"))
    arts = {a.path for a in s.artifacts()}
    expanded = {p for p in marked if "EXP" not in p} | {
        p.replace("EXP", e) for p in marked if "EXP" in p for e in ("homogeneous", "heterogeneous")}
    assert expanded == arts
    assert s.claims_file() == "paper_figures/dutot/claims.csv"
    assert s.readme_file() == "paper_figures/dutot/README.md"
    assert s.traces() == ["CEA-Curie"]


def test_the_templates_each_step_declares_exist():
    from simlib.render import template_files
    declared = {st.name: template_files(st.package, st.templates)
                for st in study("smoke").steps() if st.templates}
    assert set(declared) == {"dutot_figures_homogeneous", "dutot_figures_heterogeneous",
                             "dutot_figures_platforms", "dutot_claims", "dutot_readme"}
    # The shared sentences come with the templates importing them.
    assert any(f.endswith("notes.j2") for f in declared["dutot_readme"])


def test_simulation_parameters_of_a_chunk():
    s = study("smoke")
    sim = s.step("dutot_simulate")
    p = sim.params(wildcards(platform="het-low-o2", seed="0"))
    assert p["coords"] == {"set": "low", "ordering": "o2"}
    assert p["variants"]["local"] == {"allocation": "local", "recompute": "rebuild"}
    assert p["f_comm"] == [0.0, 2e8] and p["self_communication"] is True
    assert [c["name"] for c in p["platform"]["clusters"]] == ["c6"] * 3 + ["c5"] * 3 + ["c4"] * 2
    assert sim.input(wildcards(platform="het-low-o2", seed="0")) == {
        "swf": "data/dutot/smoke/workloads/seed0.swf"}
    agg = s.step("dutot_aggregate").input(wildcards(experiment="homogeneous"))
    assert agg["summaries"] == ["results/runs/dutot/smoke/hom-printed/seed0/summary.json",
                                "results/runs/dutot/smoke/hom-griffon/seed0/summary.json",
                                "results/runs/dutot/smoke/hom-base/seed0/summary.json"]


def test_the_cube_provenance_depends_on_the_platforms_and_not_on_another_scale():
    base = study("smoke").subtree("homogeneous")
    other = study("smoke", lambda d: d["homogeneous"]["seeds"].update(default=7))
    assert other.subtree("homogeneous") == base
    griffon = study("smoke", lambda d: d["homogeneous"]["griffon"].update(bw=1e9))
    assert griffon.subtree("homogeneous") != base
    assert griffon.subtree("heterogeneous") == study("smoke").subtree("heterogeneous")


def test_step_code_inputs_stay_separate():
    """Editing a figure or the README reruns no simulation (simlib.codedeps)."""
    from simlib.codedeps import import_closure
    sim = {Path(f).name for f in import_closure(["simlib.studies.dutot.runs"],
                                                shallow=["simlib.studies.dutot"])}
    assert {"runs.py", "tasks.py", "platforms.py", "simgrid.py"} <= sim
    assert not {"figures.py", "readme.py", "report.py", "cubes.py"} & sim


def test_the_pool_rule_and_the_private_links_reach_the_steps():
    s = study("smoke")
    assert s.step("dutot_eligible").params["pool_rule"] == "filter_then_clip"
    other = study("smoke", lambda d: d["workload"].update(pool_rule="clip_then_filter"))
    assert other.step("dutot_eligible").params["pool_rule"] == "clip_then_filter"
    assert {p["description"]["private_links"] for p in s.platforms().values()} == {"split_duplex"}
    shared = study("smoke", lambda d: d["homogeneous"].update(private_links="shared"))
    links = {n: p["description"]["private_links"] for n, p in shared.platforms().items()}
    assert {links[n] for n in links if n.startswith("hom-")} == {"shared"}
    assert {links[n] for n in links if n.startswith("het-")} == {"split_duplex"}
    # Only the homogeneous runs depend on it.
    assert shared.subtree("homogeneous") != s.subtree("homogeneous")
    assert shared.subtree("heterogeneous") == s.subtree("heterogeneous")
    params = shared.step("dutot_simulate").params(wildcards(platform="hom-base", seed="0"))
    assert params["platform"]["private_links"] == "shared"
    assert params["platform"]["clusters"][0]["bw"] == 1.25e9
