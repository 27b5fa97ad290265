"""Markdown tables for the pipeline's outputs, with no dependency beyond pandas.

:func:`markdown_table` renders a DataFrame as a GitHub table, numbers
formatted by :func:`format_number` (integers as such, ``nan`` as ``-``), so
that a table's bytes depend on its values only, not on an optional package
(``tabulate``) or its version.
"""
from __future__ import annotations

import math

__all__ = ["format_number", "markdown_table"]


def format_number(x, digits: int = 4) -> str:
    """Compact human-readable number for tables (``nan`` shown as ``-``)."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "iu"):
        return str(int(x))
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(xf):
        return "-"
    if xf == int(xf) and abs(xf) < 1e15:
        return str(int(xf))
    return f"{xf:.{digits}g}"


def markdown_table(df, index: bool = True, digits: int = 4) -> str:
    """Render a DataFrame as a GitHub Markdown table (no extra dependency).

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"a": [1.5]}), index=False))
    | a |
    |---:|
    | 1.5 |
    <BLANKLINE>
    """
    frame = df.reset_index() if index else df
    cols = [str(c) for c in frame.columns]
    numeric = [frame[c].dtype.kind in "iuf" for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for row in frame.itertuples(index=False):
        cells = [format_number(v, digits) if n else str(v) for v, n in zip(row, numeric)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
