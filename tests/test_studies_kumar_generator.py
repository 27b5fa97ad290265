"""Tests of simlib.studies.kumar.generator: paper K's CWF generator on the Lublin model."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from simlib.errors import ConfigError
from simlib.workload import lublin
from simlib.workload.cwf import read_cwf, split_commands, write_cwf
from simlib.studies.kumar.published import load_published
from simlib.studies.kumar.generator import (
    BETA_ARR_RANGE,
    PAPER_P_E,
    PAPER_P_R,
    QUEUE_BATCH,
    QUEUE_DEDICATED,
    KumarParams,
    expected_beta_arr,
    expected_load,
    expected_mean_job_size,
    generate_kumar,
    hyper_gamma_p,
    kumar_info,
    kumar_load,
    mean_job_size,
    mean_job_size_se,
    published_n_bar_fit,
    size_pmf,
)

BIG = 20000  # jobs for distribution checks (uncalibrated: fast)


@pytest.fixture(scope="module")
def big_elastic():
    p = KumarParams(p_s=0.5, p_d=0.3, p_e=PAPER_P_E, p_r=PAPER_P_R)
    w = generate_kumar(p, load=None, n_jobs=BIG, seed=11)
    jobs, cmds = split_commands(w)
    return p, w, jobs.jobs, cmds


def _within(observed, expected, se, k=4.5):
    return abs(observed - expected) <= k * se


# ----------------------------------------------------------------------------- sizes


def test_size_pmf_is_the_two_stage_uniform_rounded_to_nearest():
    pmf = size_pmf(KumarParams(p_s=0.5))
    expected = {32: 0.125, 64: 0.25, 96: 0.125, 128: 0.5 / 12, 320: 0.5 / 12,
                **{32 * k: 0.5 / 6 for k in range(5, 10)}}
    assert pmf.keys() == expected.keys()
    assert all(math.isclose(pmf[k], expected[k]) for k in pmf)
    for ps, mean in ((0.2, 192.0), (0.5, 144.0), (0.8, 96.0)):
        assert math.isclose(expected_mean_job_size(KumarParams(p_s=ps)), mean)


def test_size_frequencies_match_pmf(big_elastic):
    p, _, jobs, _ = big_elastic
    size = jobs["requested_procs"].to_numpy()
    assert (size % 32 == 0).all() and size.min() >= 32 and size.max() <= 320
    assert (jobs["allocated_procs"] == jobs["requested_procs"]).all()
    pmf = size_pmf(p)
    counts = np.array([(size == k).sum() for k in pmf])
    assert counts.sum() == BIG
    chi2 = stats.chisquare(counts, BIG * np.array(list(pmf.values())))
    assert chi2.pvalue > 1e-4
    assert _within(size.mean(), expected_mean_job_size(p), mean_job_size_se(p, BIG))
    assert math.isclose(mean_job_size(big_elastic[1]), size.mean())


def test_small_fraction_follows_p_s():
    for ps in (0.2, 0.8):
        w = generate_kumar(KumarParams(p_s=ps), load=None, n_jobs=BIG, seed=5)
        small = (w.jobs["requested_procs"] <= 96).mean()
        assert _within(small, ps, math.sqrt(ps * (1 - ps) / BIG))


# ----------------------------------------------------------------------------- runtimes


def test_hyper_gamma_p_unit_of_size():
    assert hyper_gamma_p(KumarParams(), [32, 64, 96, 128, 160, 320]).round(4).tolist() == \
        [0.6072, 0.4344, 0.2616, 0.0888, 0.0, 0.0]
    assert hyper_gamma_p(KumarParams(p_size="units"), [32, 320]).round(4).tolist() == \
        [0.7746, 0.726]


@pytest.mark.parametrize("p_size", ["processors", "units"])
def test_runtimes_follow_lublin_hyper_gamma(p_size):
    p = KumarParams(p_s=0.5, p_size=p_size)
    w = generate_kumar(p, load=None, n_jobs=BIG, seed=3)
    j = w.jobs
    assert (j["requested_time"] == j["run_time"]).all()  # exact estimates
    assert j["run_time"].min() >= 1 and j["run_time"].max() <= math.floor(math.exp(12))
    equiv = p.lublin_equivalent()
    for size in (32, 64, 320):
        run = j.loc[j["requested_procs"] == size, "run_time"].to_numpy()
        s = size / 32 if p_size == "units" else size
        mean, sd = lublin.log_runtime_moments(equiv, s)
        assert _within(np.log(run).mean(), mean, sd / math.sqrt(len(run)))
        # Fraction of short jobs (first gamma) at 5 minutes, against the exact CDF.
        frac = (run <= 300).mean()
        cdf = float(lublin.runtime_cdf(equiv, s, 300))
        assert _within(frac, cdf, math.sqrt(cdf * (1 - cdf) / len(run)))


# ----------------------------------------------------------------------------- dedicated jobs


def test_dedicated_fraction_and_requested_starts(big_elastic):
    p, _, jobs, _ = big_elastic
    ded = jobs["requested_start"].to_numpy() >= 0
    assert _within(ded.mean(), p.p_d, math.sqrt(p.p_d * (1 - p.p_d) / BIG))
    assert (jobs.loc[ded, "queue"] == QUEUE_DEDICATED).all()
    assert (jobs.loc[~ded, "queue"] == QUEUE_BATCH).all()
    assert (jobs.loc[~ded, "requested_start"] == -1).all()
    delay = (jobs["requested_start"] - jobs["submit_time"])[ded].to_numpy()
    assert delay.min() >= 1  # the paper's start >= t + 1
    # ceil(Exp(mean)) has mean ~ mean + 1/2.
    assert _within(delay.mean(), p.dedicated_delay_mean + 0.5,
                   p.dedicated_delay_mean / math.sqrt(ded.sum()))


# ----------------------------------------------------------------------------- commands


def test_command_fractions_amounts_and_issue_times(big_elastic):
    p, _, jobs, cmds = big_elastic
    kinds = np.array([c.kind for c in cmds])
    assert set(kinds) <= {"ET", "RT"}
    per_job = np.bincount([c.job_id for c in cmds], minlength=BIG + 1)
    assert per_job.max() == 1  # at most one command per job
    one_second = (jobs["run_time"] == 1).mean()
    for kind, prob, expected in (("ET", p.p_e, p.p_e), ("RT", p.p_r, p.p_r * (1 - one_second))):
        frac = (kinds == kind).sum() / BIG
        assert _within(frac, expected, math.sqrt(prob * (1 - prob) / BIG))
    by_id = jobs.set_index("job_id")
    run = by_id.loc[[c.job_id for c in cmds], "run_time"].to_numpy()
    submit = by_id.loc[[c.job_id for c in cmds], "submit_time"].to_numpy()
    start = by_id.loc[[c.job_id for c in cmds], "requested_start"].to_numpy()
    earliest = np.where(start >= 0, start, submit)
    amount = np.array([c.amount for c in cmds])
    time = np.array([c.time for c in cmds])
    et, rt = kinds == "ET", kinds == "RT"
    assert (amount >= 1).all()
    assert (amount[rt] <= run[rt] - 1).all()  # a job keeps >= 1 s
    # ET amount ~ ceil(Exp(0.25) * run): relative amount has mean ~ 0.25.
    rel = amount[et] / run[et]
    big_jobs = run[et] >= 1000  # where the ceil is negligible
    assert _within(rel[big_jobs].mean(), p.extension_mean,
                   p.extension_mean / math.sqrt(big_jobs.sum()))
    assert ((time - earliest) >= 1).all() and ((time - earliest) <= np.maximum(run, 1)).all()
    # Issue uniformly inside the ideal execution window.
    pos = (time - earliest)[run >= 1000] / run[run >= 1000]
    assert stats.kstest(pos, "uniform").pvalue > 1e-4


def test_amounts_in_seconds_option():
    p = KumarParams(p_e=0.5, p_r=0.5, amount_basis="seconds", extension_mean=600.0,
                    reduction_mean=60.0)
    w = generate_kumar(p, load=None, n_jobs=5000, seed=2)
    jobs, cmds = split_commands(w)
    et = np.array([c.amount for c in cmds if c.kind == "ET"])
    assert _within(et.mean(), 600.5, 600 / math.sqrt(len(et)))


# ----------------------------------------------------------------------------- load


@pytest.mark.parametrize("p_s,load,seed", [(0.5, 0.9, 0), (0.8, 0.9, 1), (0.2, 0.5, 2),
                                           (0.2, 1.0, 3), (0.5, 0.7, 4)])
def test_load_calibration_within_one_percent(p_s, load, seed):
    w = generate_kumar(KumarParams(p_s=p_s, p_d=0.5, p_e=0.2, p_r=0.1), load=load, seed=seed)
    info = kumar_info(w)
    achieved = kumar_load(w)
    assert abs(achieved / load - 1) <= 0.01
    assert math.isclose(achieved, info["load"])
    assert info["n_jobs"] == 500 and mean_job_size(w) == info["n_bar"]
    # By hand: the paper's formula over S lines.
    j = w.jobs[w.jobs["request_type"] == "S"]
    span = j["submit_time"].max() - j["submit_time"].min()
    work = (j["requested_procs"] * j["run_time"]).sum()
    assert math.isclose(achieved, work / (span * 320))
    # With commands the load moves by the ET/RT seconds exactly.
    _, cmds = split_commands(w)
    size = j.set_index("job_id")["requested_procs"]
    delta = sum(size[c.job_id] * c.time_delta for c in cmds)
    assert math.isclose(kumar_load(w, include_commands=True), (work + delta) / (span * 320))
    assert BETA_ARR_RANGE[0] <= info["beta_arr"] <= BETA_ARR_RANGE[1]


def test_higher_load_means_smaller_beta_arr():
    b = [kumar_info(generate_kumar(KumarParams(), load=x, seed=9))["beta_arr"]
         for x in (0.5, 0.7, 0.9, 1.0)]
    assert b == sorted(b, reverse=True)


def test_expected_beta_arr_inside_paper_range_with_processors():
    lo, hi = BETA_ARR_RANGE
    for ps in (0.2, 0.5, 0.8):
        p = KumarParams(p_s=ps)
        for load in (0.5, 1.0):
            b = expected_beta_arr(p, load)
            assert lo < b < hi
            assert math.isclose(expected_load(p, b), load, rel_tol=1e-9)
    # in units of 32 Load 1.0 at P_S = 0.8 sits at the range's lower edge
    assert expected_beta_arr(KumarParams(p_s=0.8, p_size="units"), 1.0) < lo + 0.001


# ----------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes_different_seed_differs(tmp_path):
    p = KumarParams(p_s=0.5, p_d=0.5, p_e=0.2, p_r=0.1)
    paths = []
    for k, seed in enumerate((42, 42, 43)):
        path = tmp_path / f"w{k}.cwf"
        write_cwf(generate_kumar(p, seed=seed), path)
        paths.append(path.read_bytes())
    assert paths[0] == paths[1]
    assert paths[0] != paths[2]
    ss = np.random.SeedSequence(42)
    assert generate_kumar(p, seed=ss).jobs.equals(generate_kumar(p, seed=42).jobs)
    back = read_cwf(tmp_path / "w0.cwf")
    assert back.jobs.equals(generate_kumar(p, seed=42).jobs)


def test_common_random_numbers_across_p_d_p_e_p_r():
    base = generate_kumar(KumarParams(p_s=0.5), seed=8)
    other = generate_kumar(KumarParams(p_s=0.5, p_d=0.5, p_e=0.2, p_r=0.1), seed=8)
    cols = ["job_id", "submit_time", "run_time", "requested_procs"]
    jobs_other = split_commands(other)[0].jobs
    assert base.jobs[cols].equals(jobs_other[cols])
    assert (base.jobs["request_type"] == "S").all() and len(split_commands(other)[1]) > 0


def test_arrival_clock_switch():
    # Default: the exact clock.  lublin99: same jobs (sizes, runtimes, commands
    # drawn alike), whole-second clock; at the same beta_arr each submit time
    # lags the exact one by the sum of the truncated fractions so far, which
    # grows by less than 1 s per job.
    base = KumarParams(p_s=0.5, p_d=0.5)
    default = generate_kumar(base, load=None, seed=8)
    exact = generate_kumar(base.replace(arrival_clock="exact"), load=None, seed=8)
    c99 = generate_kumar(base.replace(arrival_clock="lublin99"), load=None, seed=8)
    assert KumarParams().arrival_clock == "exact"
    assert default.jobs.equals(exact.jobs)
    cols = ["job_id", "run_time", "requested_procs", "queue"]
    assert default.jobs[cols].equals(c99.jobs[cols])
    lag = default.jobs["submit_time"].to_numpy() - c99.jobs["submit_time"].to_numpy()
    assert np.all(lag >= 0) and np.all(np.diff(lag) > -1) and np.all(np.diff(lag) < 2)
    assert 100 < lag[-1] < 400                     # 500 jobs, ~0.5 s each
    assert kumar_info(c99)["params"]["arrival_clock"] == "lublin99"
    w = generate_kumar(KumarParams(arrival_clock="lublin99"), load=0.8, seed=2)
    assert abs(kumar_load(w) / 0.8 - 1) <= 0.01


# ----------------------------------------------------------------------------- n̄ and paper data


#: The n̄ values paper K prints (config/published/kumar.yaml: n_bar.values).
PUBLISHED = load_published(Path(__file__).resolve().parents[1] / "config/published/kumar.yaml")[
    "n_bar"]["values"]


def test_n_bar_of_generated_workloads_near_its_expectation():
    # One 500-job workload per printed (P_S, P_D): n̄ within 4.5 standard errors.
    assert [(e["p_s"], e["p_d"], e["n_bar"]) for e in PUBLISHED] == [
        (0.5, 0.0, 139.35), (0.8, 0.0, 89.72), (0.2, 0.0, 180.84), (0.2, 0.5, 177.7)]
    for e in PUBLISHED:
        p = KumarParams(p_s=e["p_s"], p_d=e["p_d"])
        w = generate_kumar(p, seed=1)
        assert mean_job_size(w) == kumar_info(w)["n_bar"]
        assert _within(mean_job_size(w), expected_mean_job_size(p), mean_job_size_se(p, 500))


def test_header_records_everything():
    w = generate_kumar(KumarParams(p_s=0.8, p_d=0.5), load=0.8, seed=[1, 2])
    info = kumar_info(w)
    assert info["params"]["p_s"] == 0.8 and info["params"]["p_d"] == 0.5
    assert info["target_load"] == 0.8
    assert info["dedicated"] == int((w.jobs["requested_start"] >= 0).sum())
    assert "MaxProcs: 320" in "\n".join(w.header)


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("bad", [
    dict(p_s=1.5), dict(p_e=0.7, p_r=0.5), dict(p_size="nodes"), dict(amount_basis="hours"),
    dict(extension_mean=0), dict(large_units=(4, 11)), dict(small_units="x"),
    dict(machine_size=2.5), dict(start_hour=24), dict(b1=float("nan")), dict(p_d=True),
    dict(arrival_clock="c"),
])
def test_bad_parameters(bad):
    with pytest.raises(ConfigError):
        KumarParams(**bad)


def test_bad_calls():
    with pytest.raises(ConfigError, match="unknown Kumar parameter"):
        KumarParams.from_config({"ps": 0.5})
    with pytest.raises(ConfigError, match="seed"):
        generate_kumar(seed=None)
    with pytest.raises(ConfigError, match="n_jobs"):
        generate_kumar(n_jobs=1, seed=1)
    with pytest.raises(ConfigError, match="load"):
        generate_kumar(load=-1, seed=1)
    with pytest.raises(ConfigError, match="kumar"):
        kumar_info(lublin.generate_lublin(n_jobs=5, seed=1))


def test_log2_size_scale_alternative():
    p = KumarParams(p_s=0.5, size_scale="log2")
    pmf = size_pmf(p)
    assert math.isclose(sum(pmf.values()), 1.0)
    # P(round(2**U[0, log2 3]) = 1) = log2(1.5) / log2(3)
    assert math.isclose(pmf[32], 0.5 * math.log2(1.5) / math.log2(3))
    assert math.isclose(pmf[320], 0.5 * (math.log2(10) - math.log2(9.5)) / (math.log2(10) - 2))
    w = generate_kumar(p, load=None, n_jobs=BIG, seed=4)
    size = w.jobs["requested_procs"].to_numpy()
    counts = np.array([(size == k).sum() for k in pmf])
    assert counts.sum() == BIG
    assert stats.chisquare(counts, BIG * np.array(list(pmf.values()))).pvalue > 1e-4
    with pytest.raises(ConfigError):
        KumarParams(size_scale="log10")


def test_published_n_bar_fit():
    fit = published_n_bar_fit(PUBLISHED)
    lin = fit[fit["size_scale"] == "linear"]
    assert lin["expected"].round(6).tolist() == [144.0, 96.0, 192.0, 192.0]
    assert lin["published_z"].round(2).tolist() == [-1.14, -1.96, -3.03, -3.88]
    log2 = fit[fit["size_scale"] == "log2"]
    assert log2["expected"].round(1).tolist() == [133.4, 87.9, 179.0, 179.0]
    assert (log2["published_z"].abs() < 2).all()
    pv = fit.attrs["chi2_pvalue"]
    assert pv["linear"] < 1e-5 and pv["log2"] > 0.5
