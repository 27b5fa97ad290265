"""Gantt charts of a schedule: each job a rectangle over time on the CPUs it held.

Shared by the papers' schedule figures (U's and K's Fig. 2) and by
``simlib simulate --gantt``. The input is a per-job table in the Batsim
``jobs.csv`` schema (:data:`simlib.runner.BATSIM_COLUMNS`): a job's CPUs are
its ``allocated_resources``, written as Batsim interval sets (``"0-3 8"``).
A job whose CPUs are not contiguous is drawn as one rectangle per
contiguous run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from .common import new_figure, save_figure, time_unit

__all__ = ["parse_intervals", "core_runs", "draw_jobs", "gantt_figure", "plot_gantt",
           "MAX_JOBS", "MAX_LABELS"]

#: Jobs drawn at most by :func:`gantt_figure` (the first ones by start time).
MAX_JOBS = 5000
#: Up to this many jobs, each rectangle is labelled with its job id.
MAX_LABELS = 40


def parse_intervals(text) -> list[int]:
    """CPU ids of a Batsim interval set: ``"0-2 5"`` -> ``[0, 1, 2, 5]``.

    The inverse of :func:`simlib.runner.intervals`; an empty or missing
    value (a job that never ran) gives ``[]``.

    Examples
    --------
    >>> parse_intervals("0-2 5 7-8")
    [0, 1, 2, 5, 7, 8]
    >>> parse_intervals(float("nan"))
    []
    """
    if not isinstance(text, str):
        return []
    ids: list[int] = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        ids.extend(range(int(lo), int(hi or lo) + 1))
    return ids


def core_runs(ids: Sequence[int]) -> list[tuple[int, int]]:
    """Contiguous runs of CPU ids as ``(first, count)``, in increasing order.

    Examples
    --------
    >>> core_runs([5, 0, 1, 2, 7])
    [(0, 3), (5, 1), (7, 1)]
    >>> core_runs([])
    []
    """
    out: list[tuple[int, int]] = []
    for c in sorted(ids):
        if out and c == out[-1][0] + out[-1][1]:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((c, 1))
    return out


def draw_jobs(ax, jobs: pd.DataFrame, *, colors=None, scale: float = 1.0,
              label: Callable | None = None, edgecolor="0.2", linewidth: float = 0.6,
              fontsize="small") -> int:
    """Draw each job of ``jobs`` (Batsim columns) on ``ax``; return the rectangles drawn.

    Parameters
    ----------
    ax : matplotlib Axes
        x is time (seconds divided by ``scale``), y is the CPU id.
    jobs : pandas.DataFrame
        Needs ``starting_time``, ``execution_time`` and ``allocated_resources``.
    colors : callable, optional
        ``colors(k)`` -> colour of the k-th job (row order); default a
        20-colour cycle.
    scale : float
        Seconds per x unit (e.g. 3600 for hours).
    label : callable, optional
        ``label(row)`` -> text written at the middle of the job's largest
        CPU run (``row`` is a namedtuple of the table); no labels if None.

    Examples
    --------
    >>> import pandas as pd
    >>> from simlib.figures.common import new_figure
    >>> ax = new_figure(3, 2).subplots()
    >>> draw_jobs(ax, pd.DataFrame({"starting_time": [0.0], "execution_time": [5.0],
    ...                             "allocated_resources": ["0-1 4"]}))
    2
    """
    if colors is None:
        cmap = matplotlib.colormaps["tab20"]
        colors = lambda k: cmap(k % 20)  # noqa: E731
    verts, faces = [], []
    for k, row in enumerate(jobs.itertuples(index=False)):
        runs = core_runs(parse_intervals(row.allocated_resources))
        if not runs:
            continue
        x0 = row.starting_time / scale
        x1 = (row.starting_time + row.execution_time) / scale
        color = colors(k)
        for first, count in runs:
            verts.append([(x0, first), (x1, first), (x1, first + count), (x0, first + count)])
            faces.append(color)
        if label is not None:
            first, count = max(runs, key=lambda r: r[1])
            ax.text((x0 + x1) / 2, first + count / 2, label(row), ha="center", va="center",
                    fontsize=fontsize)
    if verts:
        ax.add_collection(PolyCollection(verts, facecolors=faces, edgecolors=edgecolor,
                                         linewidths=linewidth))
    return len(verts)


def gantt_figure(jobs: pd.DataFrame, cpus: int, *, max_jobs: int = MAX_JOBS,
                 title: str | None = None) -> Figure:
    """A Gantt chart of one schedule: CPUs 0..cpus-1 against time.

    At most ``max_jobs`` jobs are drawn, the first ones by start time; the
    caption then says how many were left out. Jobs are labelled with their
    id when there are at most :data:`MAX_LABELS`.

    Examples
    --------
    >>> import pandas as pd
    >>> j = pd.DataFrame({"job_id": ["1", "2"], "starting_time": [0.0, 10.0],
    ...                   "execution_time": [10.0, 5.0], "allocated_resources": ["0-3", "0-1"]})
    >>> fig = gantt_figure(j, 4, max_jobs=1)
    >>> "first 1 of 2 jobs" in fig.axes[0].get_xlabel()
    True
    """
    order = np.argsort(jobs["starting_time"].to_numpy(dtype=float), kind="stable")
    shown = jobs.iloc[order[:max_jobs]]
    end = (shown["starting_time"] + shown["execution_time"]).to_numpy(dtype=float)
    t0 = float(shown["starting_time"].min()) if len(shown) else 0.0
    t1 = float(end.max()) if len(shown) else 1.0
    scale, unit = time_unit([t1 - t0, t1])
    fig = new_figure(10, 5)
    ax = fig.subplots()
    few = len(shown) <= MAX_LABELS
    draw_jobs(ax, shown, scale=scale, linewidth=0.6 if few else 0.1,
              edgecolor="0.2" if few else "face",
              label=(lambda r: str(r.job_id)) if few else None)
    span = max(t1 - t0, 1e-9) / scale
    ax.set_xlim(t0 / scale, t0 / scale + span)
    ax.set_ylim(0, cpus)
    ax.set_ylabel("CPU")
    note = "" if len(shown) == len(jobs) else (
        f" (first {len(shown)} of {len(jobs)} jobs by start time)")
    ax.set_xlabel(f"time ({unit}){note}")
    if title:
        ax.set_title(title, fontsize="medium")
    return fig


def plot_gantt(jobs: pd.DataFrame, out, *, cpus: int, max_jobs: int = MAX_JOBS,
               title: str | None = None) -> Path:
    """Draw :func:`gantt_figure` into ``out`` (.png or .svg, replaced atomically).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> j = pd.DataFrame({"job_id": ["1"], "starting_time": [0.0], "execution_time": [10.0],
    ...                   "allocated_resources": ["0-3"]})
    >>> plot_gantt(j, os.path.join(tempfile.mkdtemp(), "g.png"), cpus=4).exists()
    True
    """
    return save_figure(gantt_figure(jobs, cpus, max_jobs=max_jobs, title=title), out)
