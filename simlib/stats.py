"""Small statistics shared by the studies (confidence intervals over seeds)."""
from __future__ import annotations

import math

import numpy as np


def mean_ci(values, level: float = 0.95) -> tuple[float, float, int]:
    """Mean, half-width of the Student-t confidence interval, and count.

    NaN values are ignored; with one value the half-width is NaN, with
    identical values it is 0 (a deterministic policy, not round-off).

    Examples
    --------
    >>> m, h, n = mean_ci([1.0, 2.0, 3.0])
    >>> m, round(h, 4), n
    (2.0, 2.4841, 3)
    """
    from scipy.stats import t as student_t

    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0
    m = float(x.mean())
    if n == 1:
        return m, math.nan, 1
    if np.ptp(x) == 0:
        return float(x[0]), 0.0, n
    sd = float(x.std(ddof=1))
    return m, float(student_t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n)), n


def welch_diff_ci(a, b, level: float = 0.95) -> tuple[float, float, float]:
    """Difference of means ``mean(b) - mean(a)`` and its Welch interval (unequal variances).

    For two independent samples (e.g. runs on different jobs). With fewer
    than two values in either sample the bounds are NaN; with two
    zero-variance samples the interval is the difference itself.

    Examples
    --------
    >>> d, lo, hi = welch_diff_ci([10, 5, 15, 8], [20, 1, 9])
    >>> round(d, 4), round(lo, 2), round(hi, 2)
    (0.5, -20.07, 21.07)
    """
    from scipy.stats import t as student_t

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (a.size and b.size):
        return math.nan, math.nan, math.nan
    diff = float(b.mean() - a.mean())
    if a.size < 2 or b.size < 2:
        return diff, math.nan, math.nan
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        return diff, diff, diff
    dof = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = float(student_t.ppf(0.5 + level / 2, dof) * math.sqrt(va + vb))
    return diff, diff - half, diff + half


def mean_ci_text(values, mean_format: str = ".4g", half_format: str = ".2g",
                 level: float = 0.95) -> tuple[float, float, str]:
    """:func:`mean_ci`'s mean and half-width, and ``"mean ± half"`` as text (the mean
    alone when there is no interval, e.g. one seed).

    Examples
    --------
    >>> mean_ci_text([1.0, 2.0, 3.0], ".1f", ".1f")[2]
    '2.0 ± 2.5'
    >>> mean_ci_text([4.0])[2]
    '4'
    """
    m, h, _ = mean_ci(values, level)
    text = format(m, mean_format) if np.isnan(h) else f"{m:{mean_format}} ± {h:{half_format}}"
    return m, h, text
