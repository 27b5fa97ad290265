"""What the Lublin–Feitelson parameters imply, analytically.

Distributions and moments of the model (:mod:`simlib.workload.lublin`)
derived from its parameters alone, exactly or by numerical integration,
never from generated jobs: job sizes (:func:`size_pmf`), runtimes
(:func:`runtime_cdf`, :func:`log_runtime_moments`), arrivals
(:func:`expected_bucket_distribution`, :func:`interarrival_moments`) and
the offered load (:func:`expected_offered_load`).  The validation figure
(:mod:`simlib.figures.workloads`) and the tests compare generated
workloads with them; load calibration starts from the expected load.
What the lublin99 clock changes is derived in :mod:`.clock`.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from simlib.errors import ConfigError
from simlib.workload.lublin.clock import (
    BUCKETS,
    SECONDS_PER_BUCKET,
    SECONDS_PER_DAY,
    _check_clock,
    _cumulative_knots,
    bucket_weights,
    expected_clock_drift,
)
from simlib.workload.lublin.params import (
    ARRIVAL_LOG_LIMIT,
    REFERENCE_MACHINE_SIZE,
    RUNTIME_LOG_LIMIT,
    JobTypeParams,
    Stream,
    _as_lublin_params,
    _as_stream_params,
    _round_half_up,
)

__all__ = [
    "expected_bucket_distribution", "expected_hour_of_day",
    "interarrival_moments", "expected_mean_interarrival", "cycle_deviation",
    "size_pmf", "expected_serial_fraction", "expected_pow2_fraction",
    "hyper_gamma_p", "log_runtime_cdf", "runtime_cdf", "log_runtime_moments",
    "expected_mean_log_runtime", "expected_runtime", "expected_offered_load", "arrival_bucket",
]

_R_MAX = int(math.floor(math.exp(RUNTIME_LOG_LIMIT)))  # largest runtime: 162754 s


# --------------------------------------------------------------------------
# Arrivals
# --------------------------------------------------------------------------

@lru_cache(maxsize=64)
def _gamma_exp_moment(shape: float, scale: float, k: int, limit: float) -> float:
    """E[exp(k g) | g <= limit] for g ~ Gamma(shape, scale)."""
    from scipy import integrate, special, stats  # scipy's import is slow: only when needed

    logc = -special.gammaln(shape) - shape * math.log(scale)

    def f(x):
        if x <= 0:
            return 0.0
        return math.exp(k * x + (shape - 1) * math.log(x) - x / scale + logc)

    mode = max((shape - 1) * scale, 0.0)
    pts = sorted({min(max(mode, 1e-9), limit * 0.999), limit * 0.5})
    num, _ = integrate.quad(f, 0.0, limit, points=pts, limit=400, epsabs=0.0, epsrel=1e-11)
    return float(num / stats.gamma.cdf(limit, shape, scale=scale))


def interarrival_moments(params, arrival_scale: float = 1.0) -> tuple[float, float]:
    """Long-run mean and standard deviation of one stream's inter-arrival time.

    Inter-arrival *points* are iid ``arrival_scale * exp(g) / 1800`` with
    ``g ~ Gamma(aarr*arar, barr)`` truncated at 13; the weights have mean 1,
    so over whole days a point lasts 1800 s and the mean inter-arrival is
    ``arrival_scale * E[exp(g) | g <= 13]``.  The standard deviation is that
    of the iid point sums (what the sample mean's error is made of; the
    daily cycle adds at most :func:`cycle_deviation` to any time difference).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> m, s = interarrival_moments(TYPELESS)
    >>> round(m), s > m     # seconds; bursty (CV > 1)
    (911, True)
    """
    p = _as_stream_params(params)
    shape = p.aarr * p.arar
    m1 = _gamma_exp_moment(shape, p.barr, 1, ARRIVAL_LOG_LIMIT)
    m2 = _gamma_exp_moment(shape, p.barr, 2, ARRIVAL_LOG_LIMIT)
    return arrival_scale * m1, arrival_scale * math.sqrt(max(m2 - m1 * m1, 0.0))


def expected_mean_interarrival(params=None, arrival_scale: float = 1.0, *,
                               arrival_clock: str = "exact") -> float:
    """Long-run mean inter-arrival time (s) of the merged streams.

    Streams are independent renewal processes (in point time), so rates add:
    ``1 / sum(1 / m_s)``.  With ``arrival_clock="lublin99"`` every stream's
    mean gap is shorter by its truncation drift (:func:`expected_clock_drift`,
    about 0.5 s).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS, LublinParams
    >>> round(expected_mean_interarrival(LublinParams.typed()))
    527
    >>> d = expected_mean_interarrival(TYPELESS) - expected_mean_interarrival(
    ...     TYPELESS, arrival_clock="lublin99")
    >>> round(d, 2)
    0.5
    """
    _check_clock(arrival_clock)
    rate = sum(1.0 / _clock_mean_gap(p, arrival_scale, arrival_clock)
               for p in _stream_params_list(params))
    return 1.0 / rate


def _stream_params_list(params) -> list[JobTypeParams]:
    if isinstance(params, (JobTypeParams, Stream)):
        return [_as_stream_params(params)]
    return [s.params for s in _as_lublin_params(params).streams]


def _clock_mean_gap(p: JobTypeParams, arrival_scale: float, arrival_clock: str) -> float:
    """Long-run mean gap (s) between one stream's submit times under a clock."""
    m = interarrival_moments(p, arrival_scale)[0]
    if arrival_clock == "lublin99":
        m -= expected_clock_drift(p, arrival_scale)
    return m


def cycle_deviation(params) -> float:
    """Largest change (s) the daily cycle can add to a time difference.

    ``t(Q) = 1800 * Q + D(Q)`` with ``D`` periodic (Q cumulative points); a
    difference of arrival times differs from ``1800 *`` (difference of
    points) by at most ``max D - min D``, returned here.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> 0 < cycle_deviation(TYPELESS) < 86400
    True
    """
    w = bucket_weights(params)
    knots = _cumulative_knots(w)
    d = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1) - SECONDS_PER_DAY / knots[-1] * knots
    return float(d.max() - d.min())


def expected_bucket_distribution(params=None, arrival_scale: float = 1.0, *,
                                 arrival_clock: str = "exact",
                                 n_jobs: int | None = None) -> np.ndarray:
    """Long-run probability that an arrival falls in each half-hour bucket.

    For one stream it is ``w / 48`` (point time is uniform over a day in the
    long run, renewal theorem); streams are mixed by their arrival rates.

    With ``arrival_clock="lublin99"`` the submit time of a stream's k-th job
    lies ``k * d`` seconds before its exact time (``d`` =
    :func:`expected_clock_drift`, about 0.5 s), so over the first ``n_jobs``
    jobs the profile is the exact one averaged over lags uniform on
    ``[0, n_jobs * d]`` (computed exactly for the piecewise-constant
    profile; the random part of the lag, ``sqrt(k/12)`` s, is ignored).
    ``n_jobs`` is then required: the stream's own job count for one stream,
    the merged count for several (split by the streams' rates).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS, LublinParams
    >>> p = expected_bucket_distribution(LublinParams.typed())
    >>> p.shape, round(float(p.sum()), 12)
    ((48,), 1.0)
    >>> q = expected_bucket_distribution(TYPELESS, arrival_clock="lublin99", n_jobs=50_000)
    >>> int(q.argmax()) < int(expected_bucket_distribution(TYPELESS).argmax())   # earlier peak
    True
    """
    _check_clock(arrival_clock)
    if arrival_clock == "lublin99" and not (
            isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, bool) and n_jobs >= 1):
        raise ConfigError(f"the lublin99 clock's hour-of-day profile depends on the number of "
                          f"jobs (its drift grows with it): give n_jobs >= 1, got {n_jobs!r}")
    streams = _stream_params_list(params)
    rates = np.array([1.0 / _clock_mean_gap(p, arrival_scale, arrival_clock) for p in streams])
    probs = []
    for p, r in zip(streams, rates):
        w = bucket_weights(p)
        lag = 0.0
        if arrival_clock == "lublin99":
            lag = n_jobs * (r / rates.sum()) * expected_clock_drift(p, arrival_scale)
        probs.append(_lagged_bucket_probs(w, lag))
    if len(streams) == 1:
        return probs[0]
    return (rates[:, None] * np.array(probs)).sum(axis=0) / rates.sum()


def _lagged_bucket_probs(w: np.ndarray, lag: float) -> np.ndarray:
    """Bucket probabilities of times-of-day moved earlier by a lag ~ U(0, lag).

    The exact time of day has the piecewise-constant density ``w / 86400``
    (cumulative ``C``, extended by ``C(t + day) = C(t) + 1``); a lag ``D``
    uniform on ``[0, L]`` gives the density ``(C(y + L) - C(y)) / L``, whose
    integral over a bucket is a difference of ``H = integral of C``,
    piecewise quadratic and evaluated exactly.
    """
    base = w / w.sum()
    if lag <= 0:
        return base
    c = np.concatenate([[0.0], np.cumsum(base)])                 # C at the bucket edges
    h_knots = np.concatenate([[0.0], np.cumsum(SECONDS_PER_BUCKET * (c[:-1] + c[1:]) / 2)])
    h_day = h_knots[-1]

    def H(t):
        t = np.asarray(t, dtype=float)
        m = np.floor(t / SECONDS_PER_DAY)
        r = t - m * SECONDS_PER_DAY
        j = np.minimum((r // SECONDS_PER_BUCKET).astype(np.int64), BUCKETS - 1)
        tau = r - j * SECONDS_PER_BUCKET
        within = h_knots[j] + c[j] * tau + base[j] / SECONDS_PER_BUCKET * tau * tau / 2
        return m * h_day + SECONDS_PER_DAY * m * (m - 1) / 2 + within + m * r

    e = SECONDS_PER_BUCKET * np.arange(BUCKETS + 1, dtype=float)
    he = H(e + lag)
    p = (np.diff(he) - np.diff(H(e))) / lag
    p = np.clip(p, 0.0, None)
    return p / p.sum()


def expected_hour_of_day(params=None, arrival_scale: float = 1.0, *,
                         arrival_clock: str = "exact", n_jobs: int | None = None) -> np.ndarray:
    """Long-run probability of an arrival in each hour of the day (24 values).

    ``arrival_clock`` and ``n_jobs`` as :func:`expected_bucket_distribution`.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> int(expected_hour_of_day(TYPELESS).argmax())
    13
    """
    return expected_bucket_distribution(params, arrival_scale, arrival_clock=arrival_clock,
                                        n_jobs=n_jobs).reshape(24, 2).sum(axis=1)


def arrival_bucket(submit_time, start_hour: float = 0.0) -> np.ndarray:
    """Half-hour bucket of the day (0..47) of submit times (s since start).

    Examples
    --------
    >>> arrival_bucket([0, 1800, 86399], start_hour=1.0).tolist()
    [2, 3, 1]
    """
    t = np.asarray(submit_time, dtype=float) + start_hour * 3600.0
    return (np.floor(t / SECONDS_PER_BUCKET).astype(np.int64)) % BUCKETS


# --------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------

def _two_stage_cdf(p: JobTypeParams, x):
    x = np.asarray(x, dtype=float)

    def uni(lo, hi):
        if hi <= lo:
            return (x >= lo).astype(float)
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)

    return p.uprob * uni(p.ulow, p.umed) + (1.0 - p.uprob) * uni(p.umed, p.uhi)


def size_pmf(params, machine_size: int | None = None) -> np.ndarray:
    """Exact probability of each job size.

    Parameters
    ----------
    params : JobTypeParams
    machine_size : int, optional
        Only to size the array (default: the stream's largest job).

    Returns
    -------
    numpy.ndarray
        ``pmf[k]`` = P(size = k); ``pmf[0] = 0``.

    Examples
    --------
    >>> from simlib.workload.lublin import BATCH
    >>> pmf = size_pmf(BATCH)
    >>> round(float(pmf.sum()), 12), len(pmf) - 1
    (1.0, 128)
    """
    p = _as_stream_params(params)
    top = p.max_size
    n = max(top, machine_size or 0)
    pmf = np.zeros(n + 1)
    pmf[1] += p.serial_prob
    k = np.arange(1, top + 1, dtype=float)
    # Not rounded: size k  <=>  2**par in [k - 0.5, k + 0.5).
    lo = np.log2(np.maximum(k - 0.5, 1e-300))
    hi = np.log2(k + 0.5)
    lo[0] = -np.inf
    frac_plain = 1.0 - p.serial_prob - p.pow2_prob
    plain = _two_stage_cdf(p, hi) - _two_stage_cdf(p, lo)
    plain[-1] = 1.0 - _two_stage_cdf(p, lo[-1])   # lublin99's cap at round(2**uhi)
    pmf[1:top + 1] += frac_plain * plain
    # Rounded: exponent e = floor(par + 0.5), size round(2**e), capped.
    emax = int(math.floor(p.uhi + 0.5))
    for e in range(0, emax + 1):
        mass = float(_two_stage_cdf(p, e + 0.5) - _two_stage_cdf(p, e - 0.5)) if e > 0 \
            else float(_two_stage_cdf(p, 0.5))
        size = min(int(_round_half_up(2.0 ** e)), top)
        pmf[size] += p.pow2_prob * mass
    return pmf


def expected_serial_fraction(params) -> float:
    """Probability that a job has size 1 (serial, or a parallel draw of 1).

    Examples
    --------
    >>> from simlib.workload.lublin import BATCH
    >>> expected_serial_fraction(BATCH)
    0.2927
    """
    return float(size_pmf(params)[1])


def expected_pow2_fraction(params, include_serial: bool = False) -> float:
    """Probability that a job's size is a power of two (>= 2 by default).

    Includes non-rounded parallel draws that land on a power of two.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> round(expected_pow2_fraction(TYPELESS), 4) > TYPELESS.pow2_prob
    True
    """
    pmf = size_pmf(params)
    k = np.arange(len(pmf))
    is_pow2 = (k >= 1) & ((k & (k - 1)) == 0)
    if not include_serial:
        is_pow2 &= k >= 2
    return float(pmf[is_pow2].sum())


# --------------------------------------------------------------------------
# Runtimes
# --------------------------------------------------------------------------

def hyper_gamma_p(params, size) -> np.ndarray:
    """Probability of the first gamma, ``clip(pa * size + pb, 0, 1)``.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> round(float(hyper_gamma_p(TYPELESS, 1)), 10)
    0.7746
    """
    p = _as_stream_params(params)
    return np.clip(p.pa * np.asarray(size, dtype=float) + p.pb, 0.0, 1.0)


def log_runtime_cdf(params, size, x) -> np.ndarray:
    """CDF of ``g`` = ln(runtime) before the floor, given the size.

    The hyper-gamma mixture conditioned on ``g <= 12`` (lublin99 redraws the
    whole mixture draw above 12):
    ``(p F1(x) + (1-p) F2(x)) / (p F1(12) + (1-p) F2(12))``, 1 above 12.

    Examples
    --------
    >>> from simlib.workload.lublin import BATCH
    >>> float(log_runtime_cdf(BATCH, 1, 12.0)), float(log_runtime_cdf(BATCH, 1, 0.0))
    (1.0, 0.0)
    """
    from scipy import stats  # scipy's import is slow: only when needed

    p = _as_stream_params(params)
    q = hyper_gamma_p(p, size)
    x = np.minimum(np.asarray(x, dtype=float), RUNTIME_LOG_LIMIT)
    f1 = stats.gamma.cdf(x, p.a1, scale=p.b1)
    f2 = stats.gamma.cdf(x, p.a2, scale=p.b2)
    z = q * stats.gamma.cdf(RUNTIME_LOG_LIMIT, p.a1, scale=p.b1) \
        + (1 - q) * stats.gamma.cdf(RUNTIME_LOG_LIMIT, p.a2, scale=p.b2)
    return (q * f1 + (1 - q) * f2) / z


def runtime_cdf(params, size, r) -> np.ndarray:
    """P(runtime <= r) for the integer runtime ``floor(exp(g))``.

    ``runtime <= r  <=>  exp(g) < r + 1``, so this is
    :func:`log_runtime_cdf` at ``ln(floor(r) + 1)``.

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> float(runtime_cdf(TYPELESS, 1, 162754))
    1.0
    """
    r = np.floor(np.asarray(r, dtype=float))
    out = log_runtime_cdf(params, size, np.log(np.maximum(r + 1.0, 1.0)))
    return np.where(r < 1, 0.0, out)


@lru_cache(maxsize=64)
def _component_sums(shape: float, scale: float) -> tuple[float, float, float, float]:
    """Sums over integer runtimes r of one gamma component (g <= 12):
    (Z, sum r P, sum ln r P, sum (ln r)^2 P) with P = P(floor(exp g) = r, g <= 12)."""
    from scipy import stats  # scipy's import is slow: only when needed

    r = np.arange(1, _R_MAX + 1, dtype=float)
    upper = np.minimum(np.log(r + 1.0), RUNTIME_LOG_LIMIT)
    cdf = stats.gamma(shape, scale=scale).cdf
    prob = cdf(upper) - cdf(np.log(r))
    lr = np.log(r)
    return (float(cdf(RUNTIME_LOG_LIMIT)), float(prob @ r), float(prob @ lr),
            float(prob @ (lr * lr)))


def _runtime_sums(p: JobTypeParams, size):
    q = hyper_gamma_p(p, size)
    c1 = _component_sums(p.a1, p.b1)
    c2 = _component_sums(p.a2, p.b2)
    return [(q * a + (1 - q) * b) for a, b in zip(c1, c2)]


def log_runtime_moments(params, size) -> tuple[float, float]:
    """Exact mean and standard deviation of ln(runtime), runtime = floor(exp g).

    Summed over every integer runtime 1..floor(e^12) with the truncated
    mixture probabilities (the floor makes ln(runtime) slightly smaller
    than g).

    Examples
    --------
    >>> from simlib.workload.lublin import BATCH
    >>> m, s = log_runtime_moments(BATCH, 1)
    >>> 5 < m < 9 and s > 1
    True
    """
    z, _, s1, s2 = _runtime_sums(_as_stream_params(params), size)
    mean = s1 / z
    return float(mean), float(math.sqrt(max(s2 / z - mean * mean, 0.0)))


def expected_mean_log_runtime(params, size) -> float:
    """E[ln(runtime) | size] (see :func:`log_runtime_moments`).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> expected_mean_log_runtime(TYPELESS, 128) > expected_mean_log_runtime(TYPELESS, 1)
    True
    """
    return log_runtime_moments(params, size)[0]


def expected_runtime(params, size) -> float:
    """E[runtime | size] in seconds (exact over integer runtimes).

    Examples
    --------
    >>> from simlib.workload.lublin import TYPELESS
    >>> 1000 < expected_runtime(TYPELESS, 1) < 20000
    True
    """
    z, s, _, _ = _runtime_sums(_as_stream_params(params), size)
    return float(s / z)


# --------------------------------------------------------------------------
# Offered load
# --------------------------------------------------------------------------

def _expected_work(p: JobTypeParams) -> float:
    pmf = size_pmf(p)
    k = np.arange(len(pmf), dtype=float)
    nz = pmf > 0
    er = np.array([expected_runtime(p, kk) for kk in k[nz]])
    return float(np.sum(pmf[nz] * k[nz] * er))


def expected_offered_load(params=None, machine_size: int = REFERENCE_MACHINE_SIZE,
                          arrival_scale: float = 1.0) -> float:
    """Long-run offered load ``E[work] * rate / P`` summed over streams.

    ``work = size * runtime``; the rate of a stream is 1 / its mean
    inter-arrival time.  Finite samples scatter around it (heavy tails).

    Examples
    --------
    >>> from simlib.workload.lublin import LublinParams
    >>> 0 < expected_offered_load(LublinParams.typeless(), 128) < 5
    True
    """
    lp = _as_lublin_params(params)
    return float(sum(_expected_work(s.params) / interarrival_moments(s.params, arrival_scale)[0]
                     for s in lp.streams) / machine_size)
