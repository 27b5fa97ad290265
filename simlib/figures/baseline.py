"""Figure and table of the baseline study (FCFS vs EASY vs conservative).

The cube has dimensions ``load`` and optionally ``trace``, ``policy`` and
``seed`` (see :mod:`simlib.cube`). The figure shows one panel per trace and
one line per policy, with the metric against offered load; over seeds it
plots the mean and shades the min–max range. Every figure states the scale
(``smoke | default | full``) and the number of seeds that produced it.

Rendering goes through matplotlib's Agg canvas on a private ``Figure``
(no pyplot global state), and file metadata is pinned so that reruns give
identical files.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib
import pandas as pd
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlib.io import write_csv, write_text
from simlib.markdown import markdown_table

from .common import save_figure, time_unit
from .styles import policy_styles

__all__ = ["plot_wait_vs_load", "baseline_table", "table_to_markdown", "write_table"]

_KNOWN_DIMS = ("trace", "policy", "load", "seed")

# Seconds are unreadable for multi-day waits; pick one unit per figure.


def _check_dims(cube: xr.Dataset, metric: str) -> xr.DataArray:
    if metric not in cube.data_vars:
        raise KeyError(f"cube has no variable {metric!r} (variables: {', '.join(map(str, cube.data_vars))})")
    da = cube[metric]
    if "load" not in da.dims:
        raise ValueError(f"{metric!r} has no 'load' dimension (dims: {da.dims})")
    extra = [d for d in da.dims if d not in _KNOWN_DIMS]
    if extra:
        raise ValueError(
            f"{metric!r} has dimensions {extra} besides trace/policy/load/seed; "
            "select one value of each first"
        )
    if da.size == 0:
        raise ValueError(f"{metric!r} has no values to plot (dimension sizes {dict(da.sizes)})")
    return da


def _time_scale(da: xr.DataArray) -> tuple[float, str]:
    if da.attrs.get("units") != "s":
        return 1.0, str(da.attrs.get("units", ""))
    return time_unit(da.values)


def plot_wait_vs_load(
    cube: xr.Dataset,
    out_path: str | os.PathLike,
    *,
    metric: str = "mean_wait",
    scale_label: str,
    title: str | None = None,
    log_y: bool = True,
    note: str | None = None,
    paper_styles: Mapping[str, Mapping] | None = None,
) -> Path:
    """Plot ``metric`` against offered load: a panel per trace, a line per policy.

    Parameters
    ----------
    cube : xarray.Dataset
        Baseline cube with dims ``load`` and optionally ``trace``,
        ``policy``, ``seed``.
    out_path : path
        Ends in ``.png`` or ``.svg``; parent directories are created.
    metric : str
        Variable to plot; its ``long_name`` and ``units`` label the y axis
        (times are shown in s, min, h or days, whichever reads best).
    scale_label : str
        The pipeline scale (``smoke``, ``default``, ``full``), printed in
        the footnote so no figure is mistaken for another scale's.
    title : str, optional
        Overrides the default title ("<long_name> vs offered load").
    log_y : bool
        Logarithmic y axis (default) when every value is positive: FCFS waits
        are orders of magnitude above the backfilling ones near saturation.
    note : str, optional
        Extra footnote text, e.g. the traces' source and acknowledgement.
    paper_styles : mapping, optional
        Policy name -> ``color`` and ``marker`` of the study's own policies;
        any other policy gets a user style (:mod:`simlib.figures.styles`),
        so that adding one never restyles another. Without it, policies
        take the ``tab10`` colours and a marker in the cube's order.

    Returns
    -------
    pathlib.Path
        ``out_path``.

    Examples
    --------
    >>> import tempfile, os
    >>> from simlib.cube import build_cube
    >>> cube = build_cube([{"policy": p, "load": l, "mean_wait": w} for p, l, w in
    ...     [("easy", 0.5, 1.0), ("easy", 0.9, 5.0), ("fcfs", 0.5, 2.0), ("fcfs", 0.9, 9.0)]],
    ...     ["policy", "load"], ["mean_wait"])
    >>> p = plot_wait_vs_load(cube, os.path.join(tempfile.mkdtemp(), "w.png"), scale_label="smoke")
    >>> p.stat().st_size > 0
    True
    """
    out_path = Path(out_path)
    fmt = out_path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise ValueError(f"{out_path}: figure format must be .png or .svg")
    da = _check_dims(cube, metric)
    factor, unit_label = _time_scale(da)
    da = da / factor

    traces = [str(t) for t in da["trace"].values] if "trace" in da.dims else [None]
    policies = [str(p) for p in da["policy"].values] if "policy" in da.dims else [None]
    n_seeds = int(da.sizes.get("seed", 1))
    loads = da["load"].values.astype(float)

    ncols = len(traces)
    fig = Figure(figsize=(4.2 * ncols + 0.6, 3.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    if paper_styles is None:
        colors, markers = matplotlib.colormaps["tab10"], "osD^vP*X"
        styles = {p: {"color": colors(k % 10), "marker": markers[k % len(markers)]}
                  for k, p in enumerate(policies)}
    else:
        styles = policy_styles(policies, paper_styles)
    for ax, trace in zip(axes, traces):
        sub = da.sel(trace=trace) if trace is not None else da
        for policy in policies:
            line = sub.sel(policy=policy) if policy is not None else sub
            if "seed" in line.dims:
                mean = line.mean("seed", skipna=True).values
                lo = line.min("seed", skipna=True).values
                hi = line.max("seed", skipna=True).values
            else:
                mean = lo = hi = line.values
            style = styles[policy]
            color = style["color"]
            ax.plot(loads, mean, **style, label=policy if policy is not None else metric)
            if n_seeds > 1:
                ax.fill_between(loads, lo, hi, color=color, alpha=0.2, linewidth=0)
        ax.set_xlabel("offered load")
        if log_y and bool((sub > 0).all()):
            ax.set_yscale("log")
        if trace is not None:
            ax.set_title(trace)
        ax.grid(True, alpha=0.3)
    long_name = da.attrs.get("long_name", metric)
    axes[0].set_ylabel(f"{long_name} ({unit_label})" if unit_label else long_name)
    axes[-1].legend(title="policy" if policies != [None] else None, fontsize="small")
    fig.suptitle(title or f"{long_name} vs offered load")
    band = "mean over seeds, band = min–max" if n_seeds > 1 else "single run per point"
    foot = f"scale: {scale_label}; seeds: {n_seeds} ({band})" + (f"\n{note}" if note else "")
    _footer(fig, foot)

    return save_figure(fig, out_path)


def baseline_table(cube: xr.Dataset, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Long-format table of the cube: one row per (trace, policy, load).

    Columns: whichever of ``trace``, ``policy``, ``load`` the cube has, then
    one column per metric (all data variables unless ``metrics`` is given).
    With a ``seed`` dimension, metric values are means over seeds (NaN
    ignored) and an ``n_seeds`` column counts the seeds with a value.
    Rows are sorted by the coordinate columns.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> cube = build_cube([{"policy": "easy", "load": 0.5, "seed": s, "mean_wait": w}
    ...                    for s, w in [(0, 1.0), (1, 3.0)]], ["policy", "load", "seed"], ["mean_wait"])
    >>> baseline_table(cube).to_dict("records")
    [{'policy': 'easy', 'load': 0.5, 'mean_wait': 2.0, 'n_seeds': 2}]
    """
    names = list(metrics) if metrics is not None else [str(v) for v in cube.data_vars]
    ds = cube[names]
    n_seeds = None
    if "seed" in ds.dims:
        n_seeds = ds[names[0]].notnull().sum("seed")
        ds = ds.mean("seed", skipna=True, keep_attrs=True)
    keys = [d for d in ("trace", "policy", "load") if d in ds.dims]
    others = [d for d in ds.dims if d not in keys]
    keys += others  # unusual dims still become columns rather than vanish
    if n_seeds is not None:
        ds = ds.assign(n_seeds=n_seeds)
    df = ds.to_dataframe().reset_index()
    cols = keys + names + (["n_seeds"] if n_seeds is not None else [])
    df = df[cols].sort_values(keys, kind="mergesort").reset_index(drop=True)
    if n_seeds is not None:
        df["n_seeds"] = df["n_seeds"].astype(int)
    return df


def table_to_markdown(df: pd.DataFrame, units: dict[str, str] | None = None) -> str:
    """The baseline table in Markdown, without a final line break.

    The house style of this table, rendered by the one renderer
    (:func:`simlib.markdown.markdown_table`): ``units`` maps column names
    to units appended to the header, e.g. ``{"mean_wait": "s"}``; numbers to
    4 significant digits (integral values too: ``1.234e+04``); NaN as an em
    dash.

    Examples
    --------
    >>> import pandas as pd
    >>> print(table_to_markdown(pd.DataFrame({"policy": ["easy"], "mean_wait": [12.345678]}),
    ...                         {"mean_wait": "s"}))
    | policy | mean_wait (s) |
    |---|---:|
    | easy | 12.35 |
    """
    headers = {c: f"{c} ({u})" for c, u in (units or {}).items() if u}
    return markdown_table(df, headers=headers, missing="—", integers=False).rstrip("\n")


def write_table(df: pd.DataFrame, path: str | os.PathLike, *, units: dict[str, str] | None = None) -> Path:
    """Write ``df`` as CSV (``.csv``, full precision) or Markdown (``.md``).

    Examples
    --------
    >>> import tempfile, os, pandas as pd
    >>> p = write_table(pd.DataFrame({"a": [1.5]}), os.path.join(tempfile.mkdtemp(), "t.csv"))
    >>> p.read_text()
    'a\\n1.5\\n'
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        # repr-precision floats and "\n" line ends: identical bytes on rerun.
        write_csv(df, path, index=False, lineterminator="\n")
    elif suffix == ".md":
        write_text(path, table_to_markdown(df, units) + "\n")
    else:
        raise ValueError(f"{path}: table format must be .csv or .md")
    return path


def _footer(fig, text: str) -> None:
    """``text`` under the axes, wrapped to the figure's width, with room kept for it.

    The layout engine places axes only, so the footer's lines are counted
    (at about 0.6 em a character) and the axes' area ends above them.
    """
    import textwrap
    size = 0.833 * matplotlib.rcParams["font.size"]   # "small", in points
    width = fig.get_figwidth() * 72 * 0.98
    lines = [w for line in text.split("\n") for w in textwrap.wrap(line, int(width / (0.6 * size)))]
    fig.text(0.01, 0.005, "\n".join(lines), fontsize=size, ha="left", va="bottom", color="0.35")
    bottom = (len(lines) * 1.25 * size / 72 + 0.08) / fig.get_figheight()
    fig.get_layout_engine().set(h_pad=0.25, rect=(0, bottom, 1, 1 - bottom))
