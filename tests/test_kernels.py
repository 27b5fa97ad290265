"""Tests of :mod:`simlib.policies.kernels`: which path a policy runs on.

The compiled kernels themselves are checked against their Python twins in
``tests/test_conservative_kernel.py`` and ``tests/test_los_kernel.py``.
"""
from __future__ import annotations

import importlib
import os
import warnings

import pytest

from simlib.errors import ConfigError
from simlib.policies import conservative, kernels

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._conservative_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))
CountSchedule = kernel.CountSchedule


@pytest.fixture
def fresh_loader():
    kernels.problem.cache_clear()
    yield
    kernels.problem.cache_clear()


def assert_refused_then_python(monkeypatch, why):
    """Under ``compiled`` an unusable kernel is an error naming ``why`` and the
    fix; under ``auto`` a warning, and the pure-Python path."""
    monkeypatch.setenv(kernels.KERNEL_ENV, "compiled")
    with pytest.raises(ConfigError, match=why + ".*reinstalling simlib with a C compiler"):
        conservative.count_kernel()
    monkeypatch.setenv(kernels.KERNEL_ENV, "auto")
    with pytest.warns(RuntimeWarning, match=why + ".*using the pure-Python path"):
        assert conservative.count_kernel() is None


def test_the_environment_variable_chooses_the_path(monkeypatch, fresh_loader):
    monkeypatch.setenv(kernels.KERNEL_ENV, "compiled")
    assert conservative.count_kernel() is CountSchedule
    monkeypatch.setenv(kernels.KERNEL_ENV, "python")
    assert conservative.count_kernel() is None
    monkeypatch.setenv(kernels.KERNEL_ENV, "fast")
    with pytest.raises(ConfigError, match="SIMLIB_KERNELS must be one of"):
        conservative.count_kernel()


def test_a_stale_build_is_never_used(monkeypatch, fresh_loader):
    monkeypatch.setattr(kernel, "SOURCE_SHA256", "0" * 64)
    assert_refused_then_python(monkeypatch, "built from another version")


def test_a_missing_build_is_reported(monkeypatch, fresh_loader):
    real_import = importlib.import_module

    def no_kernels(name, *args):
        if name.endswith("_kernel"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args)

    monkeypatch.setattr(kernels.importlib, "import_module", no_kernels)
    assert_refused_then_python(monkeypatch, "it is not built")


def test_source_digest_is_compiled_in():
    import hashlib
    source = kernels.source("_conservative_kernel")
    assert kernel.SOURCE_SHA256 == hashlib.sha256(source.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", kernels.KERNELS)
def test_compiled_modules_examples(name):
    # pytest's --doctest-modules reads .py files only: run the kernels' own.
    import doctest
    module = importlib.import_module(f"simlib.policies.{name}")
    failed, tried = doctest.testmod(module)
    assert tried > 0 and failed == 0


def test_auto_uses_a_current_build_silently(monkeypatch, fresh_loader):
    monkeypatch.delenv(kernels.KERNEL_ENV, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert conservative.count_kernel() is CountSchedule
