"""Paper K's Fig. 1 sweep (simlib.studies.kumar.fig1): a trace sweep of its
own, whose steps do not depend on the rest of paper K's code."""
from __future__ import annotations

from pathlib import Path

from simlib.codedeps import import_closure
from simlib.studies import Study, load_study, study_class
from helpers_pipeline import repo_registry
from simlib.studies.kumar.fig1 import KumarFig1
from simlib.studies.trace_sweep import TraceSweep

SIMLIB = Path(__file__).resolve().parents[1] / "simlib"

CONFIG = {"scale": "smoke", "registry": repo_registry(),
          "studies": {"kumar_fig1": {"traces": ["SDSC-SP2"], "policies": {"easy": {}, "los": {}},
                                     "loads": {"smoke": [0.5, 0.9], "default": [0.5],
                                               "full": [0.5]}}}}


def test_registered_trace_sweep_in_section_k():
    assert study_class("kumar_fig1", CONFIG) is KumarFig1 and issubclass(KumarFig1, TraceSweep)
    s = load_study("kumar_fig1", CONFIG)
    assert (s.section, s.title) == ("kumar", "Kumar et al. (kumar): Delayed-LOS, Hybrid-LOS")
    assert [st.name for st in s.steps()] == ["kumar_fig1_simulate", "kumar_fig1_aggregate"]
    assert [(a.path, a.title) for a in s.artifacts()] == [
        ("results/kumar_fig1.smoke.nc",
         "Cube (netCDF): Fig. 1 trace sweep, dims (policy, trace, load)")]


def test_its_steps_do_not_depend_on_paper_k_code():
    s = load_study("kumar_fig1", CONFIG)
    roots = [c.__module__ for c in type(s).__mro__ if issubclass(c, Study)]
    for step in s.steps():
        files = {str(Path(f).relative_to(SIMLIB)) for f in import_closure(step.code, shallow=roots)}
        assert "studies/kumar/fig1.py" in files
        # Editing paper K's generator, plan or report reruns no trace simulation.
        assert not files & {"studies/kumar/generator.py", "studies/kumar/plan.py",
                            "studies/kumar/study.py", "studies/kumar/report.py"}, step.name
