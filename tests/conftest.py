"""Session fixtures and collection rules shared by the test modules.

* ``fixture_traces``: synthetic stand-ins for the real traces (see
  :mod:`helpers_pipeline`), so the pipeline tests run on any machine,
  offline.
* Tests marked ``real_traces`` (the golden-cube checks) need the real
  Parallel Workloads Archive logs in a local directory (``SIMLIB_TRACES`` or
  ``../shared/traces``). Where there is none they are not collected, and
  the summary says why and how to run them -- except in CI (``CI=true``),
  where the logs must be there and a missing log fails the run.
* Tests marked ``simgrid`` (paper D) need SimGrid's Python bindings: where
  ``import simgrid`` fails they are skipped with the reason, except in CI,
  where they fail.
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
    try:
        import simgrid  # noqa: F401
    except ImportError as exc:
        return f"SimGrid's Python bindings cannot be imported ({exc})"
    return None


def pytest_collection_modifyitems(config, items):
    _mark_simgrid(items)
    wanted = [it for it in items if it.get_closest_marker("real_traces")]
    if not wanted:
        return
    where, why = real_traces_dir()
    if where is not None:
        return
    if os.environ.get("CI", "").lower() == "true":
        for it in wanted:
            it.add_marker(pytest.mark.usefixtures("_fail_without_real_traces"))
        return
    config.hook.pytest_deselected(items=wanted)
    items[:] = [it for it in items if not it.get_closest_marker("real_traces")]
    _NOT_RUN.append(f"{len(wanted)} test(s) marked real_traces (golden cubes on the real "
                    f"PWA logs) not run: {why}. Run them with SIMLIB_TRACES=DIR make test.")


def _mark_simgrid(items) -> None:
    """Skip (locally) or fail (CI) the tests marked ``simgrid`` when SimGrid is missing."""
    wanted = [it for it in items if it.get_closest_marker("simgrid")]
    why = simgrid_missing() if wanted else None
    if why is None:
        return
    ci = os.environ.get("CI", "").lower() == "true"
    for it in wanted:
        if ci:
            it.add_marker(pytest.mark.usefixtures("_fail_without_simgrid"))
        else:
            it.add_marker(pytest.mark.skip(
                reason=f"{why}: install SimGrid 3.32's Python bindings (python3-simgrid) "
                       "and put the module on PYTHONPATH"))


@pytest.fixture
def _fail_without_simgrid():
    pytest.fail(f"CI=true but {simgrid_missing()}")


@pytest.fixture
def _fail_without_real_traces():
    _, why = real_traces_dir()
    pytest.fail(f"CI=true but the real traces are not available: {why}")


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
