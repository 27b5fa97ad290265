"""Tests of simlib.codedeps: code inputs derived from imports."""
import subprocess
import sys
from pathlib import Path

import pytest

from simlib.codedeps import declared_kernels, import_closure, module_file, policy_files
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
    # Policies by name only (the runner's kernel source lives beside them).
    assert not any(n.startswith("policies/") and n.endswith(".py") for n in got)
    assert "studies/__init__.py" not in got                  # every study otherwise
    assert "studies/base.py" in got


def test_shallow_roots_skip_imports_inside_functions():
    deep = names(import_closure(["simlib.studies.baseline.figures"]))
    shallow = names(import_closure([], shallow=["simlib.studies.baseline.figures"]))
    # The drawing module is imported inside the step's function only.
    assert "figures/baseline.py" in deep and "figures/baseline.py" not in shallow
    assert "studies/baseline/figures.py" in shallow and "render.py" in shallow


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


def test_policy_files_include_helpers_imported_inside_functions():
    # EASY loads pybatsim's reading only when it is chosen; its steps still depend on it.
    names = {Path(f).name for f in policy_files(POLICIES["easy"])}
    assert {"easy.py", "easy_pybatsim.py", "kernels.py"} <= names
    assert "conservative.py" not in {Path(f).name for f in policy_files(POLICIES["fcfs"])}


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


def test_closure_includes_kernels_declared_outside_the_policies():
    # The runner's jobs table and paper Z's pair draws run compiled kernels:
    # a changed .pyx reruns the steps that import them, and only those.
    assert "policies/_intervals_kernel.pyx" in names(import_closure(["simlib.runner"]))
    zeng = names(import_closure(["simlib.studies.zeng.runs"]))
    assert "policies/_seeding_kernel.pyx" in zeng
    assert "policies/_seeding_kernel.pyx" not in names(import_closure(["simlib.runner"]))
    assert not any(n.endswith(".pyx") for n in names(import_closure(["simlib.stats"])))


def test_every_declared_kernel_exists():
    # Paired with the loader's list: a misspelt name would be an input
    # Snakemake cannot find.
    from simlib.policies import kernels
    declared = {}
    for path in SIMLIB.rglob("*.py"):
        name = ".".join(("simlib",) + path.relative_to(SIMLIB).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        if "COMPILED_KERNELS =" in path.read_text(encoding="utf-8"):
            declared[name] = declared_kernels(name)
    assert declared["simlib.runner"] == ("_intervals_kernel",)
    assert declared["simlib.studies.zeng.slowdowns"] == ("_seeding_kernel",)
    assert declared["simlib.policies.conservative"] == ("_conservative_kernel", "_placement_kernel")
    for name, found in declared.items():
        assert set(found) <= set(kernels.KERNELS), name
        assert all(kernels.source(k).is_file() for k in found), name


def test_declared_kernels_must_be_literals(tmp_path, monkeypatch):
    import simlib.codedeps as codedeps
    # Names, a misspelt kernel, an annotated or a second assignment: each
    # refused with the rule (never a silently untracked or missing .pyx).
    bad = tmp_path / "bad.py"
    monkeypatch.setattr(codedeps, "module_file", lambda name: str(bad))
    for text in ("K = '_intervals_kernel'\nCOMPILED_KERNELS = (K,)\n",
                 "COMPILED_KERNELS = ('_intervals_kernal',)\n",
                 "COMPILED_KERNELS: tuple = ('_intervals_kernel',)\n",
                 "COMPILED_KERNELS = ('_intervals_kernel',)\nCOMPILED_KERNELS += ('_los_kernel',)\n"):
        bad.write_text(text)
        codedeps.declared_kernels.cache_clear()
        try:
            with pytest.raises(ValueError, match="string literals naming kernels"):
                codedeps.declared_kernels("simlib.bad")
        finally:
            codedeps.declared_kernels.cache_clear()


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
