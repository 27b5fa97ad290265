"""Pieces every figure module shares: time units for axes, figures, deterministic saving."""
from __future__ import annotations

from pathlib import Path

import matplotlib
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
