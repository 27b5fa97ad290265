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
