"""Tests of simlib.workload.estimates (user runtime estimate models)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from simlib.errors import ConfigError
from simlib.workload import estimates as E
from simlib.workload.lublin import LublinParams, generate_lublin
from simlib.workload.swf import SWF_FIELDS, Workload, read_swf, write_swf

HOUR = 3600


@pytest.fixture(scope="module")
def lublin_workload():
    return generate_lublin(LublinParams.typed(), n_jobs=20_000, seed=42)


def _toy(runtimes):
    n = len(runtimes)
    cols = {name: np.full(n, -1, dtype=np.int64) for name in SWF_FIELDS}
    cols["job_id"] = np.arange(1, n + 1)
    cols["submit_time"] = np.arange(n) * 10
    cols["run_time"] = np.asarray(runtimes, dtype=np.int64)
    cols["requested_procs"] = np.ones(n, dtype=np.int64)
    return Workload(jobs=pd.DataFrame(cols, columns=list(SWF_FIELDS)), header=["; toy"])


def test_exact_estimates():
    w = _toy([0, 5, 100, -1])
    e = E.exact_estimates(w)
    assert e.jobs["requested_time"].tolist() == [1, 5, 100, -1]
    assert w.jobs["requested_time"].tolist() == [-1] * 4          # input untouched
    assert e.header[0] == "; toy" and "exact" in e.header[-1]


def test_fixed_factor():
    e = E.factor_estimates(_toy([1, 10, 333, -1]), 1.5, mode="fixed")
    assert e.jobs["requested_time"].tolist() == [2, 15, 500, -1]
    assert E.factor_estimates(_toy([7]), 1.0, mode="fixed").jobs["requested_time"].tolist() == [7]
    with pytest.raises(ConfigError, match="f must be"):
        E.factor_estimates(_toy([7]), 0.5, mode="fixed")
    with pytest.raises(ConfigError, match="mode"):
        E.factor_estimates(_toy([7]), 2.0, mode="gaussian")


def test_uniform_factor_model(lublin_workload):
    f = 5.0
    e = E.factor_estimates(lublin_workload, f, seed=1).jobs
    run = e["run_time"].to_numpy(float)
    req = e["requested_time"].to_numpy(float)
    assert np.all(req >= run) and np.all(req <= np.ceil(f * run) + 1e-9)
    # On long jobs the ceiling is negligible: req/run ~ U[1, f], whose mean
    # (1+f)/2 has standard error ((f-1)/sqrt(12))/sqrt(n); 5 sigma, plus the
    # ceiling's bias (< 1/run <= 1e-3).
    long = run >= 1000
    ratio = req[long] / run[long]
    se = (f - 1) / math.sqrt(12) / math.sqrt(long.sum())
    assert abs(ratio.mean() - (1 + f) / 2) <= 5 * se + 1e-3
    assert ratio.min() >= 1 and ratio.max() <= f + 1e-3
    again = E.factor_estimates(lublin_workload, f, seed=1).jobs
    other = E.factor_estimates(lublin_workload, f, seed=2).jobs
    assert again.equals(e) and not other.equals(e)
    with pytest.raises(ConfigError, match="seed is required"):
        E.factor_estimates(lublin_workload, f)


def test_tsafrir_distribution_structure():
    n, maxest = 10_000, 18 * HOUR
    values, counts = E.tsafrir_distribution(n, maxest, seed=3)
    assert counts.sum() == n and np.all(counts >= 1)
    assert len(values) == 90          # the paper's linear model: 10,000 jobs -> 90 estimates
    assert values.max() == maxest and np.all(values > 0)
    # The maximum is the most popular estimate: 89 % minus ranks 2..20 of
    # a e^{bx} + c percent.
    x = np.arange(2, 21)
    top = 89.0 - np.sum(14.0491 * np.exp(-0.177531 * x) + 0.462513)
    assert counts[values == maxest][0] == pytest.approx(top / 100 * n, abs=2)
    assert values[np.argmax(counts)] == maxest
    # All 14 values popular in every log and below 18 h are present.
    joint = [5, 10, 15, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 720]
    assert set(m * 60 for m in joint) <= set(values.tolist())
    # The 20 head estimates hold ~89 % of the jobs.
    head = np.sort(counts)[::-1][:20].sum() / n
    assert head == pytest.approx(0.89, abs=0.02)


def test_tsafrir_max_fraction_and_small_workloads():
    values, counts = E.tsafrir_distribution(5000, 36 * HOUR, max_fraction=0.4, seed=1)
    assert counts[values == 36 * HOUR][0] == pytest.approx(2000, abs=1)
    v, c = E.tsafrir_distribution(150, HOUR, seed=1)
    assert c.sum() == 150 and v.max() == HOUR
    v, c = E.tsafrir_distribution(5, 10 * HOUR, seed=1)     # fewer jobs than head values
    assert c.sum() == 5
    with pytest.raises(ConfigError, match="3600"):
        E.tsafrir_distribution(100, 1800, seed=1)


def test_tsafrir_estimates_cover_runtimes(lublin_workload):
    maxest = 36 * HOUR
    e = E.tsafrir_estimates(lublin_workload, maxest, max_fraction=0.25, seed=5)
    j = e.jobs
    assert np.all(j["requested_time"] >= j["run_time"])
    assert j["requested_time"].max() == maxest
    # The estimates used are exactly the model's histogram.
    values, counts = E.tsafrir_distribution(len(j), maxest, max_fraction=0.25,
                                            seed=np.random.default_rng(5))
    np.testing.assert_array_equal(np.sort(j["requested_time"].to_numpy()),
                                  np.repeat(values, counts))
    # Runtimes above the maximum were truncated to it (and counted).
    n_long = int((lublin_workload.jobs["run_time"] > maxest).sum())
    assert int((j["run_time"] == maxest).sum()) >= n_long
    assert (f"{n_long} runtimes truncated" in e.header[-1]) == (n_long > 0)
    again = E.tsafrir_estimates(lublin_workload, maxest, max_fraction=0.25, seed=5)
    assert again.jobs.equals(j)


def test_tsafrir_errors():
    long_jobs = _toy([HOUR - 1] * 100)
    with pytest.raises(ConfigError, match="infeasible"):
        E.tsafrir_estimates(long_jobs, HOUR, max_fraction=0.05, seed=1)
    with pytest.raises(ConfigError, match="longer than max_estimate"):
        E.tsafrir_estimates(_toy([2 * HOUR]), HOUR, runtime_above_max="error", seed=1)


def test_apply_estimates_dispatch(lublin_workload, tmp_path):
    w = lublin_workload
    assert E.apply_estimates(w, None) is w
    assert E.apply_estimates(w, {"model": "exact"}).jobs["requested_time"].min() >= 1
    fixed = E.apply_estimates(w, {"model": "factor", "f": 2, "mode": "fixed"})
    assert np.all(fixed.jobs["requested_time"] == np.maximum(2 * w.jobs["run_time"], 1))
    ts = E.apply_estimates(w, {"model": "tsafrir", "max_estimate": 48 * HOUR,
                               "params": {"head_sum": 85.0}}, seed=3)
    path = tmp_path / "w.swf.gz"
    write_swf(ts, path)
    assert read_swf(path).jobs["requested_time"].equals(ts.jobs["requested_time"])
    with pytest.raises(ConfigError, match="model"):
        E.apply_estimates(w, {"model": "oracle"})
    with pytest.raises(ConfigError, match="unknown key"):
        E.apply_estimates(w, {"model": "exact", "f": 2})
    with pytest.raises(ConfigError, match="needs 'max_estimate'"):
        E.apply_estimates(w, {"model": "tsafrir"})
