"""Paper Z's verdict helpers: simlib.claims' rules applied to values over seeds.

The unit of replication is the seed: one random Lublin workload, on which
every scheduler and variant runs, so comparisons are paired by seed.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from simlib.claims import Verdict, value_verdict
from simlib.stats import mean_ci

__all__ = ["value_case", "all_of", "spread"]


def value_case(values, printed: float, tolerance: float, *, direction: int = 0,
               shift: float = 0.0) -> tuple[Verdict, float, float, int]:
    """Verdict of "the value over seeds is ``printed``" (:func:`simlib.claims.value_verdict`),
    with our mean, the 95 % CI's half-width (NaN for one seed) and the number of seeds.

    ``shift`` is subtracted from our values and the printed one first (the
    tolerance then applies to the quantity beyond it, e.g. the jobs of a
    group beyond the two every group has).

    Examples
    --------
    >>> value_case([2.17, 2.18, 2.19], 2.5, 0.1, shift=2.0)[0].value
    'not reproduced'
    """
    mean, half, n = mean_ci(values)
    verdict = value_verdict(mean - shift, half, n, printed - shift, tolerance=tolerance,
                            direction=direction)
    return verdict, mean, (math.nan if half is None else half), n


def all_of(verdicts: Iterable[Verdict]) -> Verdict:
    """One case made of several conditions that must all hold: reproduced if all
    are, not reproduced if any is not (or is contradicted), else inconclusive.

    Examples
    --------
    >>> all_of([Verdict.REPRODUCED, Verdict.INCONCLUSIVE]).value
    'inconclusive'
    """
    vs = [Verdict(v) for v in verdicts]
    if all(v == Verdict.REPRODUCED for v in vs):
        return Verdict.REPRODUCED
    if any(v in (Verdict.NOT_REPRODUCED, Verdict.CONTRADICTED, Verdict.PARTLY) for v in vs):
        return Verdict.NOT_REPRODUCED
    return Verdict.INCONCLUSIVE


def spread(values) -> float:
    """Standard deviation over seeds (0 for one seed): the seed-to-seed spread a
    criterion's text shows beside its tolerance.

    Examples
    --------
    >>> spread([1.0, 3.0])
    1.4142135623730951
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.std(ddof=1)) if v.size > 1 else 0.0
