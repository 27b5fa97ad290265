"""The one Markdown table renderer of every report, with no dependency beyond pandas.

:func:`markdown_table` renders a DataFrame as a GitHub table, each cell
formatted by :func:`format_cell`, so that a table's bytes depend on its
values only, not on an optional package (``tabulate``) or its version.
Every table of ``paper_figures/`` -- the studies' tables, the papers'
READMEs, the claims (:mod:`simlib.claims`), the trace characterization --
goes through it; the few options below are the house styles the existing
artifacts were published with (kept so that they stay byte-identical).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"policy": ["easy", "fcfs"], "wait": [12.3456, float("nan")]})
>>> print(markdown_table(df, headers={"wait": "mean wait (s)"}), end="")
| policy | mean wait (s) |
|---|---:|
| easy | 12.35 |
| fcfs | - |
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["artifact_index", "format_cell", "markdown_table"]


def format_cell(x: Any, digits: int = 4, *, missing: str = "-", integers: bool = True) -> str:
    """One table cell.

    Integers plainly, floats to ``digits`` significant digits, None, NaN and
    infinities as ``missing``, text with ``|`` escaped and line breaks made
    spaces (either would break the table).

    Parameters
    ----------
    x : object
    digits : int, default 4
        Significant digits of floats.
    missing : str, default ``"-"``
        Text of a missing or non-finite number.
    integers : bool, default True
        Show integral floats as integers (``12345.0`` -> ``12345``); False
        keeps ``digits`` significant digits (``1.234e+04``).

    Examples
    --------
    >>> [format_cell(x) for x in (3, 2.0, 0.123456, float("nan"), None, "a|b", True)]
    ['3', '2', '0.1235', '-', '-', 'a\\\\|b', 'True']
    >>> format_cell(12345.0), format_cell(12345.0, integers=False), format_cell(None, missing="–")
    ('12345', '1.234e+04', '–')
    """
    if x is None:
        return missing
    # numpy booleans and integers carry a dtype; bool before int (bool is an int).
    kind = getattr(getattr(x, "dtype", None), "kind", "")
    if isinstance(x, bool) or kind == "b":
        return str(bool(x))
    if isinstance(x, int) or kind in ("i", "u"):
        return str(int(x))
    if isinstance(x, float) or kind == "f":
        xf = float(x)
        if not math.isfinite(xf):
            return missing
        if integers and xf == int(xf) and abs(xf) < 1e15:
            return str(int(xf))
        return f"{xf:.{digits}g}"
    return str(x).replace("|", "\\|").replace("\n", " ")


def markdown_table(frame, columns: Sequence[str] | None = None, *, index: bool = False,
                   headers: Mapping[str, str] | None = None, digits: int = 4,
                   align: str | Mapping[str, str] | None = None, missing: str = "-",
                   integers: bool = True) -> str:
    """A GitHub Markdown table of ``frame``, ending with a line break.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str, optional
        Columns to show, in order (default: all).
    index : bool, default False
        Show the index as the first column(s) (named ``index`` when unnamed).
    headers : mapping, optional
        Column -> header text (default: the column name).
    digits, missing, integers
        Cell format (:func:`format_cell`).
    align : str or mapping, optional
        ``"left"`` or ``"right"`` for every column, or column -> side;
        default right for numeric columns, left otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"n": [3], "x": [1.5]}, index=pd.Index(["a"], name="trace"))
    >>> print(markdown_table(df, index=True, align={"n": "left"}), end="")
    | trace | n | x |
    |---|---|---:|
    | a | 3 | 1.5 |
    >>> print(markdown_table(df, ["x"], align="left", headers={"x": "x (s)"}), end="")
    | x (s) |
    |---|
    | 1.5 |
    """
    if index:
        frame = frame.reset_index()
    columns = list(frame.columns if columns is None else columns)
    headers = dict(headers or {})

    def side(c):
        if isinstance(align, str):
            return align
        chosen = (align or {}).get(c)
        return chosen or ("right" if frame[c].dtype.kind in "iuf" else "left")

    lines = ["| " + " | ".join(str(headers.get(c, c)) for c in columns) + " |",
             "|" + "|".join("---:" if side(c) == "right" else "---" for c in columns) + "|"]
    for row in frame[columns].itertuples(index=False):
        lines.append("| " + " | ".join(format_cell(v, digits, missing=missing, integers=integers)
                                       for v in row) + " |")
    return "\n".join(lines) + "\n"


def artifact_index(artifacts: Sequence[Mapping[str, str]], *, index_dir: str, scale: str,
                   scale_description: str = "",
                   sections: Mapping[str, str] | None = None) -> str:
    """``paper_figures/README.md``: one line per artifact, grouped by section.

    Sections come in the order of their first artifact; a section's
    description (``sections``) heads it. Links are relative to
    ``index_dir``; an artifact outside it is marked as rebuilt by a run,
    since only ``paper_figures/`` is committed.

    Parameters
    ----------
    artifacts : sequence of mapping
        Each with ``path``, ``title`` and ``section``.
    index_dir : str
        Directory of the index file.
    scale, scale_description : str
        The scale that produced the artifacts, and what it means.
    sections : mapping, optional
        Section -> description.

    Examples
    --------
    >>> arts = [{"path": "paper_figures/a.png", "title": "A", "section": "x"}]
    >>> print(artifact_index(arts, index_dir="paper_figures", scale="smoke").splitlines()[-1])
    - [`paper_figures/a.png`](a.png) — A
    """
    import os

    from .render import render

    descriptions = sections or {}
    grouped = []
    for name in dict.fromkeys(a["section"] for a in artifacts):
        entries = []
        for a in artifacts:
            if a["section"] == name:
                rel = os.path.relpath(a["path"], index_dir)
                entries.append({**a, "rel": rel, "outside": rel.split(os.sep)[0] == ".."})
        grouped.append({"name": name, "description": descriptions.get(name), "artifacts": entries})
    return render("simlib", "index.md.j2", scale=scale, scale_description=scale_description,
                  sections=grouped)
