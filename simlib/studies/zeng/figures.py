"""Paper Z's figures (step ``zeng_figures``), drawn from our runs: SSP's RR per class
under W1 and W2 beside the paper's W2 values (``ssp_rr.png``); one day of
Scojo-PECT (``gantt_day.png``: the slices of each virtual machine, hatched
where the switch overhead runs, and every job's running periods on the
nodes coloured by its type, so that preemptions at slice ends and non-type
backfilling show); Table 4's printed shares and our draws (``table4.png``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr
from matplotlib.patches import Patch, Rectangle

from simlib.figures.common import footer, grouped_bars, new_figure, save_figure
from simlib.stats import mean_ci

from .published import load_published

__all__ = ["COLORS", "bars", "ssp_rr_figure", "gantt_day_figure", "table4_figure", "figures_step"]

#: One colour per virtual machine (job type).
COLORS = {"short": "#4c9f38", "medium": "#1f77b4", "long": "#d62728"}
_CLASSES = ("all", "medium", "long")


def bars(ax, series: dict, ticks, **kw):
    """Grouped bars (:func:`~simlib.figures.common.grouped_bars`), mean and 95 % CI over
    seeds: series label -> one array of values per tick."""
    return grouped_bars(ax, {label: tuple(zip(*(mean_ci(v)[:2] for v in groups)))
                             for label, groups in series.items()}, ticks, **kw)


def ssp_rr_figure(cube: xr.Dataset, pub: dict, scale_note: str):
    fig = new_figure(7.5, 3.6)
    ax = fig.add_subplot()
    workloads = cube["workload"].values.tolist()
    x, offsets = bars(ax, {f"ours, {w}": [cube[f"rr_{c}"].sel(workload=w, machine="multicore").values
                                          for c in _CLASSES] for w in workloads},
                      [f"{c} jobs" for c in _CLASSES], colors=["#9ecae1", "#3182bd", "#08519c"])
    if "W2" in workloads:
        ax.scatter(x + offsets[workloads.index("W2")], [pub["ssp_w2"][f"rr_{c}"] for c in _CLASSES],
                   marker="D", color="black", zorder=3, label="paper, W2 (§5.3, reference)")
    ax.set_ylabel("average bounded relative response time RR")
    ax.set_title("SSP (Scojo-PECT, space sharing): RR per job class", fontsize=10)
    ax.legend(fontsize=8)
    footer(fig, scale_note)
    return fig


def gantt_day_figure(segments: pd.DataFrame, slices: pd.DataFrame, *, day_start: float,
                     nodes: int, title: str):
    """The slices and running periods of one day (hours from ``day_start``)."""
    fig = new_figure(10, 6.5)
    gs = fig.add_gridspec(2, 1, height_ratios=[1, 9])
    top, ax = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    h = 3600.0
    for row in slices.itertuples():
        a, e, b = ((row.start - day_start) / h, (row.effective - day_start) / h,
                   (row.end - day_start) / h)
        top.add_patch(Rectangle((a, 0), e - a, 1, facecolor="white", edgecolor="0.4",
                                hatch="////", linewidth=0.3))
        top.add_patch(Rectangle((e, 0), b - e, 1, facecolor=COLORS[row.vm], edgecolor="0.4",
                                linewidth=0.3))
    top.set(xlim=(0, 24), ylim=(0, 1), yticks=[], xticks=[])
    top.set_title(title, fontsize=10)
    top.set_ylabel("slice", rotation=0, ha="right", va="center", fontsize=8)
    for row in segments.itertuples():
        a, b = max(row.start, day_start), min(row.end, day_start + 24 * h)
        for n in sorted({int(c) // 4 for c in str(row.cores).split()}):
            ax.add_patch(Rectangle(((a - day_start) / h, n), (b - a) / h, 1,
                                   facecolor=COLORS[row.vm], edgecolor="none", alpha=0.85))
    ax.set(xlim=(0, 24), ylim=(0, nodes), xlabel="hours into the day", ylabel="node")
    ax.invert_yaxis()
    handles = [Patch(facecolor=c, label=f"{t} virtual machine / jobs") for t, c in COLORS.items()]
    handles.append(Patch(facecolor="white", edgecolor="0.4", hatch="////",
                         label="slice switch (60 s overhead)"))
    ax.legend(handles=handles, fontsize=7, loc="lower right", framealpha=0.9)
    return fig


def table4_figure(t4: pd.DataFrame, scale_note: str):
    fig = new_figure(10, 3.2)
    axes = fig.subplots(1, 3, sharey=True)
    x = np.arange(len(t4))
    for ax, name in zip(axes, ("sl_scr", "sl_sno", "sl_cos")):
        ax.bar(x - 0.2, t4[f"{name}_printed"], 0.4, label="printed (Table 4)", color="0.6")
        ax.bar(x + 0.2, t4[f"{name}_ours"], 0.4, label="our draws", color="#3182bd")
        ax.set_xticks(x, t4["range"], rotation=60, fontsize=6)
        ax.set_title(name.upper(), fontsize=9)
    axes[0].set_ylabel("% per range")
    axes[0].legend(fontsize=7)
    footer(fig, scale_note)
    return fig


def figures_step(ctx) -> None:
    """Step ``zeng_figures``."""
    p, out = ctx.params, ctx.output
    cube = xr.load_dataset(ctx.input.cube)
    note = (f"scale {p['scale']}: {p['jobs']} jobs per workload, seeds "
            f"{', '.join(map(str, p['seeds']))}; RR bound {p['rr_bound']:g} s")
    save_figure(ssp_rr_figure(cube, load_published(ctx.input.published), note), out.ssp_rr)
    slices, g = pd.read_csv(ctx.input.slices), p["gantt"]
    # The day recorded by the run: from its first submission + `day` days.
    day_start = float(slices["window_start"].iloc[0]) if len(slices) else 0.0
    title = (f"Scojo-PECT with SSP, workload {g['workload']} seed {g['seed']}, day {g['day']} "
             f"({p['scale']} scale): slices per virtual machine and running jobs")
    save_figure(gantt_day_figure(pd.read_csv(ctx.input.segments), slices, day_start=day_start,
                                 nodes=p["nodes"], title=title), out.gantt_day)
    save_figure(table4_figure(pd.read_csv(ctx.input.table4), note), out.table4)
