"""Tests of simlib.codedeps: code inputs derived from imports."""
import subprocess
import sys
from pathlib import Path

from simlib.codedeps import import_closure, module_file, policy_files
from simlib.policies import POLICIES

SIMLIB = Path(__file__).resolve().parents[1] / "simlib"


def names(files):
    return {str(Path(f).relative_to(SIMLIB)) for f in files}


def test_closure_follows_imports_and_parent_packages():
    got = names(import_closure(["simlib.runner"]))
    assert {"runner.py", "engine/simulator.py", "engine/ledger.py", "platform.py",
            "errors.py", "__init__.py", "engine/__init__.py"} <= got
    # Not reached from the runner.
    assert "cube.py" not in got and "figures/baseline.py" not in got


def test_registries_are_not_entered():
    got = names(import_closure(["simlib.runner", "simlib.studies.baseline"]))
    assert not any(n.startswith("policies/") for n in got)  # policies by name only
    assert "studies/__init__.py" not in got                  # every study otherwise
    assert "studies/base.py" in got


def test_shallow_roots_skip_imports_inside_functions():
    deep = names(import_closure(["simlib.studies.baseline"]))
    shallow = names(import_closure([], shallow=["simlib.studies.baseline"]))
    # The figure module is imported inside the figures step only.
    assert "figures/baseline.py" in deep and "figures/baseline.py" not in shallow
    assert "studies/baseline.py" in shallow and "studies/trace_sweep.py" in shallow


def test_policy_files_are_the_policy_its_bases_and_helpers():
    easy = names(policy_files(POLICIES["easy"]))
    assert {"policies/easy.py", "policies/base.py"} <= easy
    assert "policies/los.py" not in easy and "policies/conservative.py" not in easy
    hybrid_e = names(policy_files(POLICIES["hybrid_los_e"]))
    assert {"policies/ecc.py", "policies/hybrid_los.py", "policies/los.py"} <= hybrid_e
    # Helpers of helpers: the -DE policies' module uses the dedicated layer,
    # which plans on the count profile (Python or compiled).
    for name in ("easy_de", "los_de", "hybrid_los_e"):
        assert {"policies/dedicated.py", "policies/profile.py",
                "policies/_conservative_kernel.pyx"} <= names(policy_files(POLICIES[name]))


def test_policy_files_include_compiled_kernel_sources():
    # A change to the Cython source reruns conservative's steps, not EASY's.
    kernel = "policies/_conservative_kernel.pyx"
    assert {"policies/conservative.py", kernel} <= names(policy_files(POLICIES["conservative"]))
    assert kernel not in names(policy_files(POLICIES["easy"]))
    assert "policies/_los_kernel.pyx" in names(policy_files(POLICIES["delayed_los"]))
    # The placement search: for the policies that plan on placement profiles,
    # not for those that only use profile.py's count profiles.
    placement = "policies/_placement_kernel.pyx"
    for name in ("conservative", "scojo_pect", "glomarc_ts"):
        assert placement in names(policy_files(POLICIES[name])), name
    for name in ("easy", "easy_d", "los_d", "hybrid_los"):
        assert placement not in names(policy_files(POLICIES[name])), name


def test_module_file_matches_find_spec_without_importing():
    # Paired with importlib's answer for every simlib module (and names that
    # are not modules), and checked not to import what it locates.
    import importlib.util
    import pkgutil

    import simlib
    names = ["simlib", *(m.name for m in pkgutil.walk_packages(simlib.__path__, "simlib.")),
             "simlib.studies.zeng.SWEEP_PARAMETERS", "simlib.no_such_module"]
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
            expected = (str(Path(spec.origin).resolve())
                        if spec and spec.origin and spec.origin.endswith(".py") else None)
        except (ImportError, ValueError):
            expected = None
        assert module_file.__wrapped__(name) == expected, name
    code = ("import sys; from simlib.codedeps import module_file; "
            "module_file('simlib.figures.common'); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
