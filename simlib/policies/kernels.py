"""Loading simlib's compiled kernels (kept together in this package).

A few inner loops are compiled (Cython sources in this package, built by
``pip install`` through ``setup.py``):

* ``_conservative_kernel``: count-based conservative backfilling's profile,
  queue and compression (:mod:`simlib.policies.conservative`), whose count
  profile also holds paper K's dedicated-job plan
  (:mod:`simlib.policies.dedicated`);
* ``_easy_kernel``: a whole EASY run of rigid jobs, engine loop and policy
  together (:meth:`simlib.policies.easy.EASY.compiled_run`, used by
  :func:`simlib.runner.simulate` when nothing else takes part); its twin is
  the engine running :class:`~simlib.policies.easy.EASY`;
* ``_los_kernel``: the LOS dynamic program (:func:`simlib.policies.los.los_dp`);
* ``_placement_kernel``: the search of placement profiles
  (:meth:`simlib.policies.profile.PlacementProfile.earliest_start`: paper
  D's allocation rules, paper Z's plans);
* ``_intervals_kernel``: the text of a jobs table, its allocations
  (:func:`simlib.runner._intervals_of`) and its CSV rows
  (:func:`simlib.io.csv_text`); kept here with the others;
* ``_trace_kernel``: the job lines of SWF and CWF files as numbers
  (:func:`simlib.workload.swf._number_table`, the readers' fast path);
* ``_seeding_kernel``: the first uniforms of ``PCG64(SeedSequence(words))``
  (:func:`simlib.studies.zeng.slowdowns.seeded_uniforms`: paper Z's
  coscheduling slowdown of each pair of jobs, drawn from its own seed).

Each has a pure-Python twin that gives bit-identical results; paired tests
run both. A module that runs a kernel names it in its ``COMPILED_KERNELS``
tuple, which makes the kernel's ``.pyx`` a code input of every pipeline
step that uses the module (:mod:`simlib.codedeps`). The ``SIMLIB_KERNELS`` environment variable chooses:

``auto`` (default)
    the compiled kernel when it is built from the current source, else the
    pure-Python path after a warning that says why and how to rebuild;
``compiled``
    the compiled kernel, or a :class:`~simlib.errors.ConfigError` (CI sets
    this: a failed or stale build must not pass unnoticed);
``python``
    the pure-Python path.

A build is stale when its source has changed since: each module carries
the sha256 of its ``.pyx`` at build time (``SOURCE_SHA256``).

Examples
--------
>>> import os
>>> from unittest import mock
>>> from simlib.policies import kernels
>>> with mock.patch.dict(os.environ, {kernels.KERNEL_ENV: "python"}):
...     kernels.load("_los_kernel") is None
True
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import os
import warnings
from pathlib import Path

from ..errors import ConfigError

KERNEL_ENV = "SIMLIB_KERNELS"
KERNEL_MODES = ("auto", "compiled", "python")
#: The compiled modules, by name in :mod:`simlib.policies`.
KERNELS = ("_conservative_kernel", "_easy_kernel", "_los_kernel", "_placement_kernel",
           "_intervals_kernel", "_seeding_kernel", "_trace_kernel")
_HERE = Path(__file__).resolve().parent


def source(name: str) -> Path:
    """The Cython source of kernel ``name``."""
    return _HERE / f"{name}.pyx"


@functools.lru_cache(maxsize=None)
def problem(name: str) -> tuple[object, str | None]:
    """``(module, None)`` when kernel ``name`` can be used, else ``(None, why not)``."""
    try:
        module = importlib.import_module(f"{__package__}.{name}")
    except ImportError as exc:
        return None, f"it is not built ({exc})"
    src = source(name)
    # Without its source beside it (an install that dropped it) the build
    # cannot be checked; it is used, as pip installed it.
    built_from = getattr(module, "SOURCE_SHA256", None)
    if src.is_file() and hashlib.sha256(src.read_bytes()).hexdigest() != built_from:
        return None, f"it was built from another version of {src}"
    return module, None


def mode() -> str:
    """The value of ``SIMLIB_KERNELS`` (``auto`` when unset), checked."""
    value = os.environ.get(KERNEL_ENV, "auto")
    if value not in KERNEL_MODES:
        raise ConfigError(f"{KERNEL_ENV} must be one of {', '.join(KERNEL_MODES)}; not {value!r}")
    return value


def load(name: str):
    """Compiled kernel ``name`` (a module), or None for the pure-Python path."""
    chosen = mode()
    if chosen == "python":
        return None
    module, why = problem(name)
    if module is not None:
        return module
    message = (f"simlib's compiled kernel {name} cannot be used: {why}; rebuild it by "
               "reinstalling simlib with a C compiler (`make` does, or `pip install -e .` "
               "in the repository)")
    if chosen == "compiled":
        raise ConfigError(message)
    warnings.warn(message + "; using the pure-Python path (same results, slower)",
                  RuntimeWarning, stacklevel=3)
    return None
