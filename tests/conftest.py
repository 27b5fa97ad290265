"""Session fixtures and collection rules shared by the test modules.

* ``fixture_traces``: synthetic stand-ins for the real traces (see
  :mod:`helpers_pipeline`), so the pipeline tests run on any machine,
  offline.
* Tests marked ``real_traces`` (the golden-cube checks) need the real
  Parallel Workloads Archive logs in a local directory (``SIMLIB_TRACES`` or
  ``../shared/traces``). Where there is none they are not collected, and
  the summary says why and how to run them -- except in CI (``CI=true``),
  where the logs must be there and a missing log fails the run.
* Tests marked ``simgrid`` (paper D's backend) need SimGrid's Python
  module (Debian's ``python3-simgrid``, linked into the venv by ``make``):
  the same rule, not collected locally without it, a failure in CI.
* Tests marked ``compiled_kernel`` need the policies' compiled kernels
  built from the current source (``pip install -e .``, which ``make``
  runs): the same rule again. The ``kernel_path`` fixture runs a test on
  the compiled kernels and on the pure-Python paths.
* Tests marked ``batsim`` (the cross-check against Batsim) need Batsim and
  pybatsim built by ``scripts/batsim.sh install PREFIX`` (found through
  ``SIMLIB_BATSIM``, see :func:`simlib.batsim.run.find_batsim`). An opt-in
  tool: not collected without it, and in CI skipped with the reason rather
  than failed (:data:`OPTIONAL_IN_CI`).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers_pipeline import REPO, fixture_traces_config


def real_traces_dir() -> tuple[Path | None, str]:
    """The local directory holding every pinned real trace, or None and why."""
    from simlib.errors import ConfigError
    from simlib.workload.fetch import read_manifest, resolve_source
    try:
        source = resolve_source("auto", repo=REPO)
    except ConfigError as exc:
        return None, str(exc)
    if source.kind != "dir":
        return None, f"no local copy of the real traces ({source.reason})"
    manifest = read_manifest(REPO / "config" / "traces_manifest.tsv")
    missing = [name for name in manifest if not (Path(source.location) / name).is_file()]
    if missing:
        return None, f"{source.location} lacks {', '.join(missing)}"
    return Path(source.location), source.reason


_NOT_RUN: list[str] = []


def simgrid_missing() -> str | None:
    """Why SimGrid's Python module cannot be used here, or None."""
    from simlib.backends.simgrid import SimGridUnavailable, require_simgrid
    try:
        require_simgrid()
    except SimGridUnavailable as exc:
        return str(exc)
    return None


def kernel_missing() -> str | None:
    """Why one of the policies' compiled kernels cannot be used here, or None."""
    from simlib.policies import kernels
    return next((why for why in (kernels.problem(k)[1] for k in kernels.KERNELS) if why), None)


def batsim_missing() -> str | None:
    """Why Batsim and pybatsim cannot be used here, or None."""
    from simlib.batsim.run import BatsimUnavailable, find_batsim
    try:
        find_batsim()
    except BatsimUnavailable as exc:
        return str(exc)
    return None


def _real_traces_missing() -> str | None:
    where, why = real_traces_dir()
    return None if where is not None else why


#: Markers of tests that need something a machine may lack: marker -> (what
#: is missing or None, what the tests are, how to run them).
NEEDS = {
    "real_traces": (_real_traces_missing, "golden cubes on the real PWA logs",
                    "SIMLIB_TRACES=DIR make test"),
    "simgrid": (simgrid_missing, "paper D's SimGrid backend",
                "sudo apt-get install python3-simgrid && make test"),
    "compiled_kernel": (kernel_missing, "the policies' compiled kernels",
                        "a C compiler and make test (it rebuilds the kernel)"),
    "batsim": (batsim_missing, "the cross-check against Batsim",
               "scripts/batsim.sh install PREFIX && SIMLIB_BATSIM=PREFIX make test"),
}

#: Markers whose tests CI does not require: there they are skipped with the
#: reason instead of failing.
OPTIONAL_IN_CI = {"batsim"}


def pytest_collection_modifyitems(config, items):
    ci = os.environ.get("CI", "").lower() == "true"
    for marker, (missing, what, how) in NEEDS.items():
        wanted = [it for it in items if it.get_closest_marker(marker)]
        if not wanted:
            continue
        why = missing()
        if why is None:
            continue
        if ci and marker in OPTIONAL_IN_CI:
            for it in wanted:
                it.add_marker(pytest.mark.skip(reason=f"{what} not run: {why}"))
            continue
        if ci:
            # In CI nothing else is left out: each such test fails with the reason.
            for it in wanted:
                it.add_marker(pytest.mark.usefixtures(f"_fail_without_{marker}"))
            continue
        config.hook.pytest_deselected(items=wanted)
        items[:] = [it for it in items if not it.get_closest_marker(marker)]
        _NOT_RUN.append(f"{len(wanted)} test(s) marked {marker} ({what}) not run: {why}. "
                        f"Run them with {how}.")


@pytest.fixture
def _fail_without_real_traces():
    pytest.fail(f"CI=true but the real traces are not available: {_real_traces_missing()}")


@pytest.fixture
def _fail_without_simgrid():
    pytest.fail(f"CI=true but SimGrid is not available: {simgrid_missing()}")


@pytest.fixture
def _fail_without_compiled_kernel():
    pytest.fail(f"CI=true but a compiled kernel cannot be used: {kernel_missing()}")


@pytest.fixture(params=[pytest.param("compiled", marks=pytest.mark.compiled_kernel), "python"])
def kernel_path(request, monkeypatch):
    """Run the test on the compiled kernels and on the pure-Python paths."""
    from simlib.policies.kernels import KERNEL_ENV
    monkeypatch.setenv(KERNEL_ENV, request.param)
    return request.param


def pytest_terminal_summary(terminalreporter):
    for line in _NOT_RUN:
        terminalreporter.write_line(line, yellow=True)


@pytest.fixture(scope="session")
def fixture_traces():
    """Config file pointing the pipeline at synthetic trace fixtures."""
    return fixture_traces_config()


@pytest.fixture(scope="session")
def real_traces():
    """Directory of the real PWA traces (tests marked ``real_traces`` only)."""
    where, why = real_traces_dir()
    if where is None:
        pytest.fail(f"the real traces are not available: {why}")
    return where
