"""Time units for axes and summaries (numpy only, so that ``simlib simulate`` need not
import matplotlib to print a duration; :mod:`simlib.figures.common` re-exports them).

Examples
--------
>>> time_unit([10.0, 2700.0])
(60.0, 'min')
"""
from __future__ import annotations

import numpy as np

__all__ = ["TIME_UNITS", "time_unit"]

#: Candidate units for time axes, largest first.
TIME_UNITS = ((86400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s"))


def time_unit(values) -> tuple[float, str]:
    """``(factor, name)`` of the largest unit that keeps the peak of ``values`` (s) >= 3.

    Examples
    --------
    >>> time_unit([10.0, 2700.0])
    (60.0, 'min')
    """
    v = np.asarray(values, dtype=float)
    peak = float(np.nanmax(np.abs(v))) if np.isfinite(v).any() else 0.0
    for factor, name in TIME_UNITS:
        if peak >= 3 * factor:
            return factor, name
    return 1.0, "s"
