"""Pieces every figure module shares: time units for axes, figures, deterministic saving."""
from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlib.io import atomic_path
from simlib.units import TIME_UNITS, time_unit  # noqa: F401 (re-exported)


def new_figure(w: float, h: float) -> Figure:
    """A ``w`` x ``h`` inch figure on a private Agg canvas (no pyplot state), constrained layout.

    Examples
    --------
    >>> new_figure(4, 3).get_size_inches().tolist()
    [4.0, 3.0]
    """
    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def footer(fig: Figure, text: str, fontsize: float = 7) -> None:
    """A one-line note at the bottom of a constrained-layout figure, kept clear of the axes.

    Constrained layout ignores ``fig.text``: the axes are laid out above a
    strip left for it.

    Examples
    --------
    >>> fig = new_figure(4, 3)
    >>> footer(fig, "scale smoke")
    >>> fig.texts[0].get_text()
    'scale smoke'
    """
    fig.text(0.01, 0.005, text, fontsize=fontsize, color="0.35")
    strip = 0.2 / fig.get_figheight()
    fig.get_layout_engine().set(rect=(0, strip, 1, 1 - strip))


def save_figure(fig: Figure, out_path) -> Path:
    """Write ``fig`` as PNG or SVG (by suffix), atomically; same figure => same bytes.

    SVG output otherwise carries a date and random ids: both are pinned.
    A failed drawing leaves nothing behind (an existing file is kept).
    """
    out_path = Path(out_path)
    fmt = out_path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise ValueError(f"{out_path}: figure format must be .png or .svg")
    metadata = {"Date": None} if fmt == "svg" else {}
    with matplotlib.rc_context({"svg.hashsalt": "simlib", "svg.fonttype": "path"}), \
            atomic_path(out_path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=150, metadata=metadata)
    return out_path


def grouped_bars(ax, series, ticks, *, width: float = 0.8, capsize: float = 3, colors=None):
    """Bars side by side around each tick: ``series`` maps a label to (heights, error
    half-widths), one of each per tick (a NaN half-width draws no error bar); ``colors``
    cycle over the series. Returns the ticks' positions and each series' offset from them.

    Examples
    --------
    >>> ax = new_figure(4, 3).add_subplot()
    >>> x, offsets = grouped_bars(ax, {"a": ([1, 2], [0.5, float("nan")]), "b": ([3, 4], [0, 0])},
    ...                           ["p", "q"])
    >>> x.tolist(), offsets.tolist(), [t.get_text() for t in ax.get_xticklabels()]
    ([0, 1], [-0.2, 0.2], ['p', 'q'])
    """
    import numpy as np
    x, n = np.arange(len(ticks)), len(series)
    offsets = (np.arange(n) - (n - 1) / 2) * (width / n)
    for k, (label, (heights, errors)) in enumerate(series.items()):
        ax.bar(x + offsets[k], heights, width / n, yerr=np.nan_to_num(np.asarray(errors, float)),
               capsize=capsize, label=label,
               **({} if colors is None else {"color": colors[k % len(colors)]}))
    ax.set_xticks(x, ticks)
    return x, offsets


def footer_lines(fig: Figure, text: str) -> None:
    """A footer of one or more lines (``\\n``) at the bottom left of a constrained-layout
    figure, in small grey type, the axes laid out above a band sized to its lines (at
    most 30 % of the figure's height).

    Examples
    --------
    >>> fig = new_figure(4, 3)
    >>> fig.subplots().plot([0, 1])  # doctest: +ELLIPSIS
    [...]
    >>> footer_lines(fig, "scale smoke\\n2 seeds")
    >>> fig.texts[0].get_text()
    'scale smoke\\n2 seeds'
    """
    lines = text.count("\n") + 1
    band = min(0.3, (0.19 * lines + 0.05) / fig.get_figheight())
    fig.text(0.005, 0.005, text, fontsize="small", ha="left", va="bottom", color="0.35")
    fig.get_layout_engine().set(rect=(0, band, 1, 1 - band), h_pad=0.04)


def log_y(ax, values) -> None:
    """A log y axis around the positive finite ``values``, with plain-number tick labels
    (``4``, not ``4x10^0``): minor ones too on ranges under half a decade, only at 2, 3
    and 5 x 10^k under two decades, none beyond.

    Error bars reaching 0 would stretch the axis to nothing: it is kept
    within a third of the smallest value and 1.2 times the largest (or the
    limits already set, when wider).

    Examples
    --------
    >>> ax = new_figure(4, 3).subplots()
    >>> _ = ax.plot([1, 2], [2.0, 8.0])
    >>> log_y(ax, [2.0, 8.0])
    >>> ax.get_yscale(), ax.yaxis.get_major_formatter()(5.0, 0)
    ('log', '5')
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_yscale("log")
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size:
        lo, hi = ax.get_ylim()
        ax.set_ylim(max(lo, v.min() / 3), max(hi, v.max() * 1.2))
    lo, hi = ax.get_ylim()
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    sparse = FuncFormatter(lambda x, _: f"{x:g}" if f"{x:.0e}"[0] in "235" else "")
    decades = np.log10(hi / lo)
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain if decades < 0.5 else sparse if decades < 2
                                 else NullFormatter())


def seed_band(da, level: float = 0.95):
    """Mean of a DataArray over its ``seed`` dim and the Student-t confidence band:
    ``(mean, lower, upper)`` arrays. Without a ``seed`` dim the band is the line itself;
    with one seed too.

    Examples
    --------
    >>> import xarray as xr
    >>> m, lo, hi = seed_band(xr.DataArray([[1.0, 3.0]], dims=("load", "seed")))
    >>> m.tolist(), bool(lo[0] < 1.0 and hi[0] > 3.0)
    ([2.0], True)
    """
    import numpy as np
    from scipy.stats import t as student_t

    if "seed" not in da.dims:
        v = da.values.astype(float)
        return v, v, v
    vals = np.moveaxis(da.values.astype(float), da.dims.index("seed"), -1)
    n = np.isfinite(vals).sum(axis=-1)
    with np.errstate(all="ignore"):
        mean = np.nanmean(vals, axis=-1)
        sd = np.nanstd(vals, axis=-1, ddof=1)
        half = np.where(n > 1, student_t.ppf(0.5 + level / 2, np.maximum(n - 1, 1)) * sd
                        / np.sqrt(np.maximum(n, 1)), 0.0)
    return mean, mean - half, mean + half


def nonnegative_yerr(mean, half):
    """Error bars of a quantity that cannot be negative: ``half`` each way, the lower one
    cut where it would reach below 0 (the interval intersected with [0, inf), which
    covers the mean at least as often). ``half`` as given when nothing is cut (then
    the drawing is that of a symmetric bar), else the (2, n) array matplotlib takes.

    Examples
    --------
    >>> nonnegative_yerr([5.0, 1.0], [2.0, 3.0]).tolist()
    [[2.0, 1.0], [2.0, 3.0]]
    >>> nonnegative_yerr([5.0], [2.0])
    [2.0]
    """
    import numpy as np

    m, h = np.asarray(mean, float), np.asarray(half, float)
    if not np.any(m - h < 0):
        return half
    return np.vstack([np.minimum(h, np.maximum(m, 0.0)), h])
