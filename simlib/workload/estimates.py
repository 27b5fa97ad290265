"""User runtime estimates (SWF field 9, ``requested_time``) for a workload.

Synthetic models such as Lublin–Feitelson give actual runtimes only; the
schedulers of the papers (EASY, LOS, conservative backfilling) reserve with
the user's estimate.  Each model here is a separate, composable step:
``Workload -> Workload`` with ``requested_time`` filled, input untouched,
one ``; simlib:`` header line recording the model and its parameters.
Jobs whose runtime is missing (``-1``) keep ``requested_time = -1``.

Models
------
``exact``
    ``requested_time = run_time`` (perfect estimates), at least 1 s.
``factor``
    Multiplicative: ``mode="fixed"``: ``ceil(f * run_time)``;
    ``mode="uniform"``: ``ceil(u * run_time)`` with ``u ~ U[1, f]``
    independently per job -- the "f-model" of Mu'alem & Feitelson (IEEE
    TPDS 12(6), 2001), estimates uniform in ``[r, f r]``.  At least 1 s.
``tsafrir``
    Tsafrir, Etsion & Feitelson, "Modeling User Runtime Estimates", JSSPP
    2005.  Estimates come from a few popular values (the maximum allowed
    estimate first, then round values such as 5/15/10/20/30 min, 1/2/3/4/5/
    6/8/10/12/18 h), with popularity falling off with rank, and are
    assigned to jobs so that no estimate is below the job's runtime.  See
    :func:`tsafrir_distribution` for exactly what is implemented and where
    it simplifies the authors' program.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from simlib.errors import ConfigError
from simlib.workload.swf import Workload

__all__ = ["exact_estimates", "factor_estimates", "TsafrirParams", "tsafrir_distribution",
           "tsafrir_estimates", "apply_estimates"]

MIN = 60
HOUR = 3600


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if seed is None:
        raise ConfigError("a seed is required for random estimates (reproducibility)")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return np.random.default_rng(np.random.SeedSequence(int(seed)))
    try:
        return np.random.default_rng(np.random.SeedSequence([int(x) for x in seed]))
    except (TypeError, ValueError):
        raise ConfigError(f"invalid seed {seed!r}") from None


def _with_requests(workload: Workload, requested: np.ndarray, note: str) -> Workload:
    jobs = workload.jobs.copy()
    run = jobs["run_time"].to_numpy()
    requested = np.where(run < 0, -1, requested).astype(np.int64)
    jobs["requested_time"] = requested
    return Workload(jobs=jobs, header=[*workload.header, f"; simlib: requested_time: {note}"],
                    path=workload.path)


def exact_estimates(workload: Workload) -> Workload:
    """Perfect estimates: ``requested_time = max(run_time, 1)``.

    Examples
    --------
    >>> from simlib.workload.lublin import generate_lublin
    >>> w = exact_estimates(generate_lublin(n_jobs=10, seed=1))
    >>> bool((w.jobs.requested_time == w.jobs.run_time.clip(lower=1)).all())
    True
    """
    run = workload.jobs["run_time"].to_numpy()
    return _with_requests(workload, np.maximum(run, 1), "exact (= run_time, >= 1 s)")


def factor_estimates(workload: Workload, f: float, *, mode: str = "uniform",
                     seed=None) -> Workload:
    """Multiplicative estimates: ``run_time`` times ``f`` or ``U[1, f]``.

    Parameters
    ----------
    workload : Workload
    f : float
        Factor, >= 1.
    mode : {"uniform", "fixed"}
        ``"uniform"``: per-job factor ``u ~ U[1, f]`` (Mu'alem & Feitelson's
        f-model); ``"fixed"``: every job ``f``.
    seed : int, sequence, SeedSequence or Generator
        Required for ``"uniform"``.

    Returns
    -------
    Workload
        ``requested_time = max(ceil(factor * run_time), 1)``.

    Examples
    --------
    >>> from simlib.workload.lublin import generate_lublin
    >>> w = generate_lublin(n_jobs=100, seed=1)
    >>> e = factor_estimates(w, 3.0, seed=2)
    >>> bool((e.jobs.requested_time >= e.jobs.run_time).all())
    True
    """
    if not (isinstance(f, (int, float, np.integer, np.floating)) and math.isfinite(f) and f >= 1):
        raise ConfigError(f"estimate factor f must be a finite number >= 1, got {f!r}")
    run = workload.jobs["run_time"].to_numpy().astype(float)
    if mode == "fixed":
        factor = np.full(len(run), float(f))
        note = f"factor model, fixed f={float(f)!r}: ceil(f * run_time)"
    elif mode == "uniform":
        factor = 1.0 + (float(f) - 1.0) * _rng(seed).random(len(run))
        note = f"factor model (Mu'alem & Feitelson f-model), ceil(U[1, {float(f)!r}] * run_time)"
    else:
        raise ConfigError(f"factor estimate mode {mode!r}: choose 'uniform' or 'fixed'")
    # Round the product first: f * r must not become r + 1 through float noise.
    req = np.ceil(np.round(factor * run, 6))
    return _with_requests(workload, np.maximum(req, 1), note)


# --------------------------------------------------------------------------
# Tsafrir, Etsion & Feitelson (2005)
# --------------------------------------------------------------------------

#: Estimates popular in all four logs the authors studied (besides the max).
_JOINT = (5 * MIN, 15 * MIN, 10 * MIN, 20 * MIN, 30 * MIN, 1 * HOUR, 2 * HOUR, 3 * HOUR,
          4 * HOUR, 5 * HOUR, 6 * HOUR, 8 * HOUR, 10 * HOUR, 12 * HOUR, 18 * HOUR)
#: Round multiples that complete the head, largest unit first.
_ROUND = (200 * HOUR, 100 * HOUR, 50 * HOUR, 10 * HOUR, 5 * HOUR, 2 * HOUR, 1 * HOUR,
          20 * MIN, 10 * MIN, 5 * MIN)
#: (jobs, number of distinct estimates) points of the paper's linear model.
_BINS_VS_JOBS = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340),
                 (250000, 565))
#: Popularity rank of the k-th shortest head estimate (row 0 = the maximum) in
#: the four logs of the paper (SDSC SP2, CTC SP2, KTH SP2, SDSC Blue): the
#: empirical time-rank -> popularity-rank table the model samples from.
_TIME_RANK_TO_POP_RANK = (
    (3, 1, 1, 1), (1, 3, 4, 6), (4, 4, 10, 5), (17, 2, 14, 3), (13, 12, 20, 7),
    (7, 9, 2, 2), (8, 8, 3, 18), (18, 18, 7, 19), (2, 6, 12, 4), (6, 7, 6, 11),
    (16, 11, 19, 20), (10, 20, 5, 9), (5, 16, 18, 10), (15, 5, 16, 14), (14, 14, 9, 13),
    (19, 13, 17, 16), (11, 10, 15, 15), (12, 15, 13, 17), (9, 17, 8, 8), (20, 19, 11, 12),
)
_HEAD = 20


@dataclass(frozen=True)
class TsafrirParams:
    """Coefficients of the Tsafrir et al. (2005) model (the paper's defaults).

    Attributes
    ----------
    head_sum : float
        Percent of jobs using one of the 20 most popular estimates (89).
    head_a, head_b, head_c : float
        Percent of the estimate of popularity rank ``x = 2..20``:
        ``a * exp(b * x) + c``.
    tail_a, tail_b : float
        Percent of rank ``x >= 21``: ``a * x**b`` (then normalised so the
        tail holds ``100 - head_sum`` percent).
    time_p, time_q : float
        Tail estimate times ``max * (a-1) x / (a-x)`` for normalised time
        rank ``x``, with ``a = 1 + p * K**q`` (K = number of estimates).
    n_bins : int or None
        Number of distinct estimates; default from the paper's linear model
        of K against the number of jobs.

    Examples
    --------
    >>> TsafrirParams().head_sum
    89.0
    """

    head_sum: float = 89.0
    head_a: float = 14.0491
    head_b: float = -0.177531
    head_c: float = 0.462513
    tail_a: float = 795.6
    tail_b: float = -2.267
    time_p: float = 12.1039
    time_q: float = -0.6026
    n_bins: int | None = None


def _n_bins(n_jobs: int) -> int:
    pts = _BINS_VS_JOBS
    if n_jobs >= pts[-1][0]:
        return pts[-1][1]
    x = [p[0] for p in pts]
    y = [p[1] for p in pts]
    return int(round(float(np.interp(n_jobs, x, y))))


def _head_times(max_estimate: int) -> list[int]:
    """The maximum, then joint values below it, then round values (<= 20)."""
    head = [max_estimate]
    head += [v for v in _JOINT if v < max_estimate]
    for unit in _ROUND:
        v = (max_estimate // unit) * unit
        while v > 0 and len(head) < _HEAD:
            if v not in head:
                head.append(v)
            v -= unit
        if len(head) >= _HEAD:
            break
    return head[:1] + sorted(head[1:])


def _pop_ranks(n_head: int, rng: np.random.Generator) -> list[int]:
    """Popularity rank (1 = most popular) of each head estimate, by time rank.

    Row 0 (the maximum) gets rank 1.  Every later row takes, if one is due
    (its last appearance in the table is at or above this row), the most
    popular due rank; otherwise the more popular of two uniform picks from
    the ranks seen in the table so far and not yet taken.
    """
    table = _TIME_RANK_TO_POP_RANK
    last_row = {}
    for row, ranks in enumerate(table):
        for r in ranks:
            last_row[r] = row
    chosen = [1]
    taken = {1}
    for row in range(1, n_head):
        allowed = [r for r in range(1, n_head + 1) if r not in taken]
        due = [r for r in allowed if last_row.get(r, row) <= row]
        if due:
            pick = min(due)
        else:
            pool = sorted({r for rr in table[:row + 1] for r in rr} & set(allowed)) or allowed
            pick = min(pool[int(rng.integers(len(pool)))] for _ in range(2))
        chosen.append(pick)
        taken.add(pick)
    return chosen


def _checked_max_estimate(n_jobs, max_estimate, max_fraction) -> int:
    """``max_estimate`` as an int, after checking the arguments of :func:`tsafrir_distribution`."""
    if not (isinstance(n_jobs, (int, np.integer)) and n_jobs >= 1):
        raise ConfigError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    if not (isinstance(max_estimate, (int, np.integer, float)) and max_estimate >= HOUR
            and float(max_estimate).is_integer()):
        raise ConfigError(f"max_estimate must be a whole number of seconds >= 3600 "
                          f"(Tsafrir et al.), got {max_estimate!r}")
    if max_fraction is not None and not (0 < max_fraction <= 1):
        raise ConfigError(f"max_fraction must be in (0, 1], got {max_fraction!r}")
    return int(max_estimate)


def _head_percents(head: list[int], max_fraction: float | None, params: TsafrirParams,
                   rng: np.random.Generator) -> dict[int, float]:
    """Percent of jobs per head estimate (step 3 of :func:`tsafrir_distribution`)."""
    ranks = np.arange(2, len(head) + 1, dtype=float)
    others = params.head_a * np.exp(params.head_b * ranks) + params.head_c
    if max_fraction is None:
        top = params.head_sum - others.sum()
        if top <= 0:
            raise ConfigError("TsafrirParams: head coefficients leave no share for the maximum")
    else:
        top = 100.0 * max_fraction
        rest = max(params.head_sum - top, 0.0)
        others = others * (rest / others.sum())
    by_rank = np.concatenate([[top], np.sort(others)[::-1]])   # index = rank - 1
    pop = _pop_ranks(len(head), rng)
    return {t: by_rank[r - 1] for t, r in zip(head, pop)}


def _tail_times(n_tail: int, k_total: int, max_estimate: int, head: list[int],
                params: TsafrirParams) -> list[int]:
    """The tail's estimates, by time rank: ``max (a-1)x/(a-x)`` in whole minutes,
    nudged by +-10..30 s off the values already taken (a time with no free
    value nearby is left out)."""
    a = 1.0 + params.time_p * float(k_total) ** params.time_q
    used = set(head)
    times = []
    for i in range(1, n_tail + 1):
        x = i / n_tail
        sec = int(round(max_estimate * (a - 1) * x / (a - x) / 60.0)) * 60
        for off in (0, 30, -30, 20, -20, 10, -10):
            s = sec + off
            if 0 < s < max_estimate and s not in used:
                used.add(s)
                times.append(s)
                break
    return times


def _tail_percents(times: list[int], params: TsafrirParams,
                   rng: np.random.Generator) -> dict[int, float]:
    """Percent of jobs per tail estimate: ranks 21.. get ``795.6 x^-2.267``, normalised
    to ``100 - head_sum`` and matched to the times at random."""
    sizes = params.tail_a * np.arange(_HEAD + 1, _HEAD + 1 + len(times), dtype=float) \
        ** params.tail_b
    sizes *= (100.0 - params.head_sum) / sizes.sum() if len(sizes) else 0.0
    shuffled = np.array(times)[rng.permutation(len(times))]
    return dict(zip(shuffled.tolist(), sizes.tolist()))


def _job_counts(share: np.ndarray, n_jobs: int) -> np.ndarray:
    """Jobs per estimate: ``max(1, round(share * n / 100))``, then corrected to sum to
    ``n_jobs``, largest shares first (step 5 of :func:`tsafrir_distribution`).

    With more distinct estimates than jobs the least popular get 0 jobs.

    Examples
    --------
    >>> _job_counts(np.array([50.0, 30.0, 20.0]), 7).tolist()
    [4, 2, 1]
    >>> _job_counts(np.array([50.0, 30.0, 20.0]), 2).tolist()
    [1, 1, 0]
    """
    counts = np.maximum(1, np.round(share * n_jobs / 100.0)).astype(np.int64)
    order = np.argsort(-share, kind="stable")
    diff = int(n_jobs - counts.sum())
    while diff != 0:
        step = 1 if diff > 0 else -1
        moved = False
        for i in order:
            if diff == 0:
                break
            if step < 0 and counts[i] <= 1:
                continue
            counts[i] += step
            diff -= step
            moved = True
        if not moved:   # more distinct estimates than jobs: drop the least popular
            for i in order[::-1]:
                if diff == 0:
                    break
                if counts[i] > 0:
                    counts[i] -= 1
                    diff += 1
    return counts


def tsafrir_distribution(n_jobs: int, max_estimate: int, *, max_fraction: float | None = None,
                         params: TsafrirParams | None = None, seed=None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The estimate histogram of Tsafrir et al. (2005): values and job counts.

    What is implemented (following the paper's model and its published
    coefficients, :class:`TsafrirParams`):

    1. K, the number of distinct estimates, from the paper's piecewise
       linear model of K against the number of jobs (or ``params.n_bins``).
    2. Head (up to 20 values): the maximum allowed estimate, the 15 values
       popular in all four logs that are below it, completed with round
       multiples (200 h, 100 h, 50 h, 10 h, ... 5 min) counting down from
       the maximum.
    3. Head popularity: rank ``x = 2..20`` gets ``a e^{bx} + c`` percent;
       rank 1 (the maximum) the rest of ``head_sum`` (89 %), or exactly
       ``max_fraction`` if given (then ranks 2..20 are scaled so the head
       still sums to ``head_sum``).  Ranks are matched to time ranks by
       sampling the paper's empirical time-rank -> popularity-rank table
       (:func:`_pop_ranks`).
    4. Tail (K - 20 values): times ``max (a-1)x/(a-x)``, ``x = i/(K-20)``,
       rounded to whole minutes and nudged by +-10..30 s to avoid duplicates;
       percentages ``795.6 x^-2.267`` for ranks 21.., normalised to
       ``100 - head_sum`` and matched to the times at random.
    5. Counts: ``max(1, round(percent * n / 100))``, then corrected to sum
       to ``n`` (largest bins first).

    Simplifications against the authors' program (est_model.cc): no
    user-supplied bins other than the maximum's fraction; the count
    correction and the random choices are our own (same intent, different
    draws); with no tail (small workloads) the head is normalised to 100 %.

    Parameters
    ----------
    n_jobs : int
    max_estimate : int
        Largest allowed estimate (s), >= 1 hour as in the paper.
    max_fraction : float, optional
        Fraction of jobs using the maximum estimate.
    params : TsafrirParams, optional
    seed : int, sequence, SeedSequence or Generator

    Returns
    -------
    values, counts : numpy.ndarray
        Distinct estimates (s, ascending) and jobs per estimate (sum n_jobs).

    Examples
    --------
    >>> v, c = tsafrir_distribution(10000, 18 * 3600, seed=1)
    >>> int(c.sum()), int(v.max()), int(v[c.argmax()])   # the max is the most popular
    (10000, 64800, 64800)
    """
    params = params or TsafrirParams()
    max_estimate = _checked_max_estimate(n_jobs, max_estimate, max_fraction)
    rng = _rng(seed)
    k_total = params.n_bins if params.n_bins is not None else _n_bins(int(n_jobs))

    head = _head_times(max_estimate)
    head_pct = _head_percents(head, max_fraction, params, rng)  # draws before the tail's
    n_tail = max(k_total - len(head), 0)
    if n_tail:
        tail_pct = _tail_percents(_tail_times(n_tail, k_total, max_estimate, head, params),
                                  params, rng)
    else:  # no tail (small workloads): the head holds every job
        tail_pct = {}
        total = sum(head_pct.values())
        head_pct = {t: p * 100.0 / total for t, p in head_pct.items()}

    pct = {**tail_pct, **head_pct}
    values = np.array(sorted(pct), dtype=np.int64)
    counts = _job_counts(np.array([pct[v] for v in values]), n_jobs)
    keep = counts > 0
    return values[keep], counts[keep]


def tsafrir_estimates(workload: Workload, max_estimate: int, *,
                      max_fraction: float | None = None, params: TsafrirParams | None = None,
                      runtime_above_max: str = "truncate", seed=None) -> Workload:
    """Estimates from the Tsafrir et al. (2005) model, never below the runtime.

    The histogram of :func:`tsafrir_distribution` (over the jobs with a
    runtime) is assigned as the authors do: jobs in decreasing runtime
    order each take an estimate drawn uniformly among the still unused
    ones that are >= their runtime (a uniformly random feasible matching,
    built greedily).

    Parameters
    ----------
    workload : Workload
    max_estimate : int
        Largest allowed estimate (s), >= 3600.
    max_fraction : float, optional
        Fraction of jobs using ``max_estimate``; the only hint the paper
        needs besides the maximum to reproduce a site's estimates.
    params : TsafrirParams, optional
    runtime_above_max : {"truncate", "error"}
        Jobs running longer than ``max_estimate``: ``"truncate"`` their
        ``run_time`` to it (the model's own behaviour: the job is killed at
        its limit; counted in the header) or raise.
    seed : int, sequence, SeedSequence or Generator
        Required.

    Raises
    ------
    ConfigError
        If no assignment is possible (too many long jobs for the estimate
        histogram: raise ``max_estimate`` or ``max_fraction``).

    Examples
    --------
    >>> from simlib.workload.lublin import generate_lublin
    >>> w = generate_lublin(n_jobs=2000, seed=1)
    >>> e = tsafrir_estimates(w, 48 * 3600, max_fraction=0.3, seed=2)
    >>> bool((e.jobs.requested_time >= e.jobs.run_time).all())
    True
    """
    if runtime_above_max not in ("truncate", "error"):
        raise ConfigError(f"runtime_above_max {runtime_above_max!r}: choose 'truncate' or 'error'")
    rng = _rng(seed)
    jobs = workload.jobs.copy()
    run = jobs["run_time"].to_numpy().astype(np.int64)
    has = run >= 0
    n = int(has.sum())
    if n == 0:
        return _with_requests(workload, np.full(len(run), -1), "tsafrir (no runtimes)")
    too_long = has & (run > max_estimate)
    n_trunc = int(too_long.sum())
    if n_trunc:
        if runtime_above_max == "error":
            raise ConfigError(f"{workload.path or '<workload>'}: {n_trunc} jobs run longer than "
                              f"max_estimate={max_estimate} s")
        run = np.where(too_long, max_estimate, run)
        jobs["run_time"] = run
    values, counts = tsafrir_distribution(n, max_estimate, max_fraction=max_fraction,
                                          params=params, seed=rng)
    ests = np.repeat(values, counts)[::-1]                 # descending
    idx = np.flatnonzero(has)
    by_run = idx[np.argsort(-run[idx], kind="stable")]     # longest first
    r_sorted = run[by_run]
    bad = np.flatnonzero(r_sorted > ests)
    if bad.size:
        k = int(bad[0])
        raise ConfigError(
            f"{workload.path or '<workload>'}: Tsafrir estimates infeasible: the {k + 1} longest "
            f"jobs need estimates >= {int(r_sorted[k])} s but the model gives only {k} such; "
            "raise max_estimate or max_fraction")
    # Greedy uniform feasible matching: job j (j-th longest) draws among the
    # unused estimates at positions j..hi, all >= its runtime (sorted desc).
    # ``hi`` never moves back because runtimes decrease.
    ests = ests.copy()
    out = np.empty(n, dtype=np.int64)
    hi = 0
    draws = rng.random(n)
    for j in range(n):
        rj = r_sorted[j]
        if hi < j:
            hi = j
        while hi + 1 < n and ests[hi + 1] >= rj:
            hi += 1
        k = j + int(draws[j] * (hi - j + 1))
        out[j] = ests[k]
        ests[k] = ests[j]
    req = np.full(len(run), -1, dtype=np.int64)
    req[by_run] = out
    note = (f"Tsafrir et al. 2005 model (max_estimate={int(max_estimate)} s, "
            f"max_fraction={max_fraction!r}, {len(values)} distinct estimates"
            + (f", {n_trunc} runtimes truncated to max_estimate" if n_trunc else "") + ")")
    return _with_requests(Workload(jobs=jobs, header=workload.header, path=workload.path),
                          req, note)


def apply_estimates(workload: Workload, spec: Mapping | None, seed=None,
                    where: str = "estimates") -> Workload:
    """Apply the estimate model a config mapping names.

    ``spec`` is ``{model: exact}``, ``{model: factor, f: 2.0, mode: uniform}``
    or ``{model: tsafrir, max_estimate: 64800, max_fraction: 0.2,
    runtime_above_max: truncate}``; ``None`` or ``{model: none}`` leaves the
    workload unchanged.  ``where`` names the config location in errors.

    Examples
    --------
    >>> from simlib.workload.lublin import generate_lublin
    >>> w = apply_estimates(generate_lublin(n_jobs=10, seed=1), {"model": "exact"})
    >>> int((w.jobs.requested_time > 0).sum())
    10
    """
    spec = dict(spec or {"model": "none"})
    model = spec.pop("model", None)
    allowed = {"none": set(), "exact": set(), "factor": {"f", "mode"},
               "tsafrir": {"max_estimate", "max_fraction", "runtime_above_max", "params"}}
    if model not in allowed:
        raise ConfigError(f"{where}.model = {model!r}: choose one of {sorted(allowed)}")
    unknown = sorted(set(spec) - allowed[model])
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown} for model {model!r}")
    if model == "none":
        return workload
    if model == "exact":
        return exact_estimates(workload)
    if model == "factor":
        if "f" not in spec:
            raise ConfigError(f"{where}: model 'factor' needs 'f'")
        return factor_estimates(workload, spec["f"], mode=spec.get("mode", "uniform"),
                                seed=seed)
    if "max_estimate" not in spec:
        raise ConfigError(f"{where}: model 'tsafrir' needs 'max_estimate' (seconds)")
    tp = spec.get("params")
    if isinstance(tp, Mapping):
        try:
            tp = TsafrirParams(**tp)
        except TypeError as exc:
            raise ConfigError(f"{where}.params: {exc}") from None
    return tsafrir_estimates(workload, spec["max_estimate"],
                             max_fraction=spec.get("max_fraction"), params=tp,
                             runtime_above_max=spec.get("runtime_above_max", "truncate"),
                             seed=seed)
