"""Paper U's drawings, one function per figure of ``paper_figures/utrera/``, from the tables
of :mod:`simlib.studies.utrera.tables`, and the labels its tables share.

Every figure prints the scale and the number of seeds that produced it, and
shows the paper's numbers beside ours where the paper printed any (labelled
"paper"); :mod:`simlib.figures.common` draws them reproducibly.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from simlib.markdown import markdown_table
from simlib.render import template_data

from ...figures.common import footer_lines, log_y, new_figure, nonnegative_yerr, save_figure, time_unit
from ...figures.gantt import core_runs
from ...figures.styles import policy_styles
from . import EASY, MALLEABLE
from .tables import trunc2

__all__ = ["POLICY_LABELS", "METRIC_LABELS", "PAPER_STYLES", "policy_label", "user_policies",
           "styles", "users_note", "fig2_table", "plot_fig2", "plot_table1", "plot_fig3",
           "plot_ratios", "plot_long_util", "plot_fig1", "to_markdown"]

def words() -> dict:
    """The figures' words: the policies' and metrics' names, and per figure
    (``templates/figures.yaml``: a step drawing them declares it in ``Step.templates``)."""
    return template_data(__package__, "figures.yaml")


#: Display names of the policies; axis and table names of the metrics.
POLICY_LABELS, METRIC_LABELS = words()["policies"], words()["metrics"]
#: Paper U's policies: one style each, whatever else a cube holds (a user's
#: policies, config extra_policies, take the reserved ones: :mod:`simlib.figures.styles`).
PAPER_STYLES = {"easy": {"color": "tab:blue", "marker": "o"},
                "fcfs_malleable": {"color": "tab:orange", "marker": "o"},
                "fcfs": {"color": "tab:gray", "marker": "o"}}
_COLORS = {p: v["color"] for p, v in PAPER_STYLES.items()}


def policy_label(policy: str) -> str:
    """Display name of a policy or of a cube's policy label (``policy:variant``).

    Examples
    --------
    >>> policy_label("fcfs_malleable:ov0")
    'FCFS-malleable [ov0]'
    """
    base, _, variant = policy.partition(":")
    return POLICY_LABELS.get(base, base) + (f" [{variant}]" if variant else "")


def user_policies(policies) -> list[str]:
    """The user's policies (config extra_policies) among ``policies`` (a cube's or a table's
    policy labels), in their order: neither a compared paper policy nor FCFS-malleable
    under another reading or candidate order (``fcfs_malleable:<...>``).

    Examples
    --------
    >>> user_policies(["easy", "easy_tagged", "fcfs_malleable", "fcfs_malleable:ov0", "mine"])
    ['easy_tagged', 'mine']
    """
    return [p for p in dict.fromkeys(str(x) for x in policies)
            if p not in (EASY, MALLEABLE) and not p.startswith(f"{MALLEABLE}:")]


def styles(policies: Sequence[str]) -> dict[str, dict]:
    """Colour, marker (and line style) of each of ``policies`` and its ``label``: a paper
    policy's own (:data:`PAPER_STYLES`, :func:`policy_label`), a user's reserved one
    (:func:`simlib.figures.styles.policy_styles`, in the order given) labelled by its name.

    Examples
    --------
    >>> s = styles(["easy", "mine", "fcfs_malleable"])
    >>> s["easy"]["color"], s["mine"]["color"], s["mine"]["label"], s["fcfs_malleable"]["label"]
    ('tab:blue', 'tab:purple', 'mine', 'FCFS-malleable')
    """
    out = policy_styles(policies, PAPER_STYLES)
    for p, st in out.items():
        st["label"] = policy_label(p) if p in PAPER_STYLES else p
    return out


def users_note(users: Sequence[str]) -> str | None:
    """A figure's footer line naming the user's policies it shows (None without any)."""
    if not users:
        return None
    return (f"user policies (config extra_policies, dash-dot; not in the paper): "
            f"{', '.join(users)}")


#: Paper U's tables in Markdown: the one renderer (:func:`simlib.markdown.markdown_table`)
#: in this paper's style, 3 significant digits and missing numbers as an en dash.
#: Same parameters as the renderer (e.g. ``digits=4``, ``index=True``).
to_markdown = functools.partial(markdown_table, digits=3, missing="–")


def fig2_table(schedules: Mapping, published: Mapping) -> pd.DataFrame:
    """The nine numbers of Fig. 2: ours beside the paper's.

    ``schedules`` is the JSON of the pipeline's fig2 run (``policies ->
    {metrics, segments}``), ``published`` the ``fig2`` block of the
    published numbers. Columns ``policy, metric, ours, ours_truncated,
    paper, match`` (the paper truncates to two decimals).
    """
    rows = []
    for pol, mets in published["values"].items():
        for m, p in mets.items():
            o = float(schedules["policies"][pol]["metrics"][m])
            t = o if m == "utrera_fragmentation" else trunc2(o)
            rows.append({"policy": pol, "metric": m, "ours": o, "ours_truncated": t,
                         "paper": float(p), "match": bool(abs(t - p) < 1e-9)})
    return pd.DataFrame(rows)


def plot_fig2(schedules: Mapping, published: Mapping, out, *, scale_label: str,
              policies: Sequence[str] | None = None) -> Path:
    """Fig. 2: one Gantt chart per policy, rendered from the simulated schedules.

    Each rectangle is a job on a contiguous range of CPUs over time,
    labelled ``J<k>`` and ``<CPUs> x <processes per CPU>`` (``4 x 2``: four
    CPUs holding two processes each, i.e. shrunk). The panel titles give our
    average response, slowdown and fragmentation with the paper's values.
    """
    policies = list(policies or schedules["policies"])
    cpus = int(schedules["cpus"])
    t_max = max(s["end"] for p in policies for s in schedules["policies"][p]["segments"])
    job_ids = sorted({s["job_id"] for p in policies for s in schedules["policies"][p]["segments"]})
    cmap = matplotlib.colormaps["Pastel1"]
    colors = {j: cmap(i % 9) for i, j in enumerate(job_ids)}
    fig = new_figure(4.4 * len(policies), 3.9)
    axes = fig.subplots(1, len(policies), squeeze=False)[0]
    pub, w = published.get("values", {}), words()["fig2"]
    for k, (ax, pol) in enumerate(zip(axes, policies)):
        segs = schedules["policies"][pol]["segments"]
        for s in segs:
            runs = core_runs(s["cpu_ids"])
            big = max(runs, key=lambda r: r[1])
            for first, n in runs:
                ax.add_patch(Rectangle((s["start"], first), s["end"] - s["start"], n,
                                       facecolor=colors[s["job_id"]], edgecolor="0.2", lw=0.8))
                # The CPU set may be split: name every piece, size it on the largest.
                mpl = s["procs"] / s["cpus"]
                text = (f"J{s['job_id']}\n{s['cpus']}×{mpl:g}" if (first, n) == big
                        else f"J{s['job_id']}")
                ax.text(s["start"] + (s["end"] - s["start"]) / 2, first + n / 2, text,
                        ha="center", va="center", fontsize="small")
        ax.set_xlim(0, math.ceil(t_max))
        ax.set_ylim(0, cpus)
        ax.set_xticks(range(0, math.ceil(t_max) + 1))
        ax.set_yticks(range(0, cpus + 1, 2))
        ax.set_xlabel("time (units)")
        if k == 0:
            ax.set_ylabel("CPUs")
        ax.grid(True, alpha=0.3)
        # Ours, the paper's in parentheses.
        m, pm = schedules["policies"][pol]["metrics"], pub.get(pol, {})
        both = {key: f"{k * m[key]:{spec}}{unit}" + (f" ({k * pm[key]:g}{unit})" if key in pm else "")
                for key, spec, k, unit in (("mean_response", ".3f", 1, ""),
                                           ("utrera_slowdown", ".3f", 1, ""),
                                           ("utrera_fragmentation", ".0f", 100, " %"))}
        ax.set_title(w["panel"].format(letter=chr(97 + k), policy=policy_label(pol), **both),
                     fontsize="medium")
    fig.suptitle(w["title"])
    footer_lines(fig, w["footer"].format(scale=scale_label))
    return save_figure(fig, out)


#: The paper's Table 1 columns drawn beside ours: column, label, line style.
_PAPER_LINES = (("paper_S", "paper S", {"ls": "--", "marker": "s", "mfc": "none"}),
                ("paper_R", "paper R", {"ls": ":", "marker": "x"}))


def _gains(t1: pd.DataFrame, col: str, new: str = MALLEABLE) -> pd.DataFrame:
    piv = t1.pivot_table(index=["metric", "load"], columns="policy", values=col)
    return 100 * (piv["easy"] - piv[new]) / piv["easy"]


def _line(style: Mapping) -> dict:
    """Matplotlib keywords of a :func:`styles` entry (``ls`` a user's dash-dot)."""
    return {"color": style["color"], "marker": style["marker"], "label": style["label"],
            **({"ls": style["linestyle"]} if "linestyle" in style else {})}


def plot_table1(t1: pd.DataFrame, out, *, scale_label: str, n_seeds: int,
                note: str | None = None) -> Path:
    """Table 1 as a figure: ours (mean ± 95 % CI) against the paper's S and R.

    Top row: average wait, response and slowdown against load for both
    policies, ours as solid lines, the paper's simulator (S) and runtime
    system (R) columns as dashed / dotted lines; the bounded slowdown
    (ours only: the paper gives none) beside the paper's slowdown. Bottom
    row: the gain of FCFS-malleable over EASY in percent, which depends
    less on the absolute runtimes (ours are not the paper's jobs).

    ``t1`` is :func:`simlib.studies.utrera.tables.table1_frame` with published
    columns.
    """
    metrics = [m for m in ("mean_wait", "mean_response", "utrera_slowdown",
                           "mean_bounded_slowdown") if m in set(t1["metric"])]
    users = user_policies(t1["policy"])
    st = styles([EASY, MALLEABLE, *users])
    fig = new_figure(4.3 * len(metrics), 7.0)
    axes = fig.subplots(2, len(metrics), squeeze=False)
    for j, m in enumerate(metrics):
        ax = axes[0][j]
        sub = t1[t1["metric"] == m]
        published = "paper_S" in sub and bool(sub["paper_S"].notna().any())
        for pol in ("easy", "fcfs_malleable"):
            d = sub[sub["policy"] == pol].sort_values("load")
            c = _COLORS[pol]
            ax.errorbar(d["load"], d["mean"], yerr=nonnegative_yerr(d["mean"], d["ci95"].fillna(0)),
                        color=c, marker="o",
                        capsize=3, label=f"{policy_label(pol)} (ours)")
            for col, name, style in _PAPER_LINES if published else ():
                ax.plot(d["load"], d[col], color=c, label=f"{policy_label(pol)} ({name})", **style)
        for pol in users:  # ours only: the paper has no such policy
            d = sub[sub["policy"] == pol].sort_values("load")
            ax.errorbar(d["load"], d["mean"], yerr=nonnegative_yerr(d["mean"], d["ci95"].fillna(0)),
                        capsize=3,
                        **_line(st[pol]))
        unit = "" if "slowdown" in m else " (s)"
        ax.set_title(METRIC_LABELS[m])
        ax.set_ylabel(METRIC_LABELS[m] + unit)
        ax.set_xlabel("offered load")
        if bool((sub[["mean"]].to_numpy() > 0).all()):
            log_y(ax, np.r_[sub["mean"], sub.get("paper_S", []), sub.get("paper_R", [])])
        ax.grid(True, alpha=0.3)
        ax2 = axes[1][j]
        for col, name, style in (("mean", "ours", {"marker": "o"}),
                                 *(_PAPER_LINES if published else ())):
            g = _gains(sub, col).loc[m]
            ax2.plot(g.index, g.values, color="k", label=name, **style)
        for pol in users:
            g = _gains(sub, "mean", pol).loc[m]
            ax2.plot(g.index, g.values, **_line(st[pol]))
        ax2.axhline(0, color="0.5", lw=0.8)
        ax2.set_xlabel("offered load")
        ax2.set_ylabel("gain over EASY (%): FCFS-malleable (black)" if users
                       else "gain of FCFS-malleable over EASY (%)")
        ax2.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="x-small")
    axes[1][0].legend(fontsize="x-small")
    _titles(fig, "table1", note, scale=scale_label, n_seeds=n_seeds)
    return save_figure(fig, out)


def _titles(fig, name: str, note: str | None, **values) -> None:
    """Figure ``name``'s title and footer (:func:`words`, formatted with ``values``), ``note``
    on the footer's next lines."""
    w = words()[name]
    fig.suptitle(w["title"].format(**values))
    footer_lines(fig, w["footer"].format(**values) + (f"\n{note}" if note else ""))


def _grouped_bars(ax, df, groups, members, colors, labels, *, log=False, scale=1.0):
    width = 0.8 / len(members)
    for i, mem in enumerate(members):
        vals, errs = [], []
        for g in groups:
            r = df[(df["group"] == g) & (df["member"] == mem)]
            vals.append(float(r["mean"].iloc[0]) / scale if len(r) else np.nan)
            errs.append(float(r["ci95"].fillna(0).iloc[0]) / scale if len(r) else 0.0)
        x = np.arange(len(groups)) + (i - (len(members) - 1) / 2) * width
        ax.bar(x, vals, width, yerr=nonnegative_yerr(vals, errs), capsize=2, color=colors[i],
               label=labels[i],
               edgecolor="0.3", lw=0.5)
    ax.set_xticks(np.arange(len(groups)), groups)
    if log:
        log_y(ax, df["mean"] / scale)
    ax.grid(True, axis="y", alpha=0.3)


def plot_fig3(traces: pd.DataFrame, out, *, scale_label: str, n_seeds: int,
              policies: Sequence[str] = ("easy", "fcfs_malleable"),
              note: str | None = None) -> Path:
    """Fig. 3 (a)-(d): average wait, execution, response time and slowdown.

    Grouped bars per trace, one per policy, ours with 95 % CI error bars
    (over OV seeds). The paper's Fig. 3 prints no numbers: its claims are
    checked in the README. Logarithmic y axes, since the policies differ by
    orders of magnitude on some traces.

    ``traces`` is :func:`simlib.studies.utrera.tables.long_frame`.
    """
    metrics = ["mean_wait", "mean_execution", "mean_response", "utrera_slowdown"]
    st = styles(policies)
    groups = sorted(set(traces["trace"]))
    fig = new_figure(10.0, 7.4)
    axes = fig.subplots(2, 2).ravel()
    for k, (ax, m) in enumerate(zip(axes, metrics)):
        d = traces[(traces["metric"] == m) & traces["policy"].isin(policies)].rename(
            columns={"trace": "group", "policy": "member"})
        if m == "utrera_slowdown":
            scale, unit = 1.0, ""
        else:
            scale, unit = time_unit(d["mean"])
            unit = f" ({unit})"
        _grouped_bars(ax, d, groups, list(policies), [st[p]["color"] for p in policies],
                      [st[p]["label"] for p in policies], log=bool((d["mean"] > 0).all()),
                      scale=scale)
        ax.set_title(f"({chr(97 + k)}) {METRIC_LABELS[m]}")
        ax.set_ylabel(METRIC_LABELS[m] + unit)
        ax.tick_params(axis="x", labelsize="small")
    axes[0].legend(fontsize="small")
    _titles(fig, "fig3", note, scale=scale_label, n_seeds=n_seeds)
    return save_figure(fig, out)


def _ratio_frame(traces, metric, labels, base_label):
    rows = []
    for t in sorted(set(traces["trace"])):
        b = traces[(traces["trace"] == t) & (traces["policy"] == base_label)
                   & (traces["metric"] == metric)]
        if not len(b):
            continue
        base = float(b["mean"].iloc[0])
        for name, lab in labels.items():
            r = traces[(traces["trace"] == t) & (traces["policy"] == lab) & (traces["metric"] == metric)]
            if len(r):
                rows.append({"group": t, "member": name, "mean": float(r["mean"].iloc[0]) / base,
                             "ci95": float(np.nan_to_num(r["ci95"].iloc[0])) / base})
    return pd.DataFrame(rows, columns=["group", "member", "mean", "ci95"])


#: The ratio figures' colour map and axis: the orders differ by percents (linear axis).
_RATIOS = {"orders": ("tab10", False), "readings": ("Set2", True)}


def plot_ratios(traces: pd.DataFrame, labels: Mapping[str, str], base_label: str, out, name: str,
                **values) -> Path:
    """Figure ``name``: the average slowdown and response of each of ``labels`` (name ->
    policy label in ``traces``) over ``base_label``'s, per trace (1: as good; below: better).

    "orders": the four candidate orders of FCFS-malleable over the oldest
    first (``values`` ``base``: "oldest"); "readings": FCFS-malleable under
    each reading of the time model over EASY. Two panels of grouped bars
    (:func:`_ratio_frame`, the CI scaled the same way), a line at 1 and the
    legend outside; a log axis for the readings when every ratio is positive,
    else a linear axis from just below the lowest bar. The words: figure
    ``name``'s (:func:`words`, formatted with ``values``: ``scale``, ``n_seeds``).
    """
    (colormap, log), names, w = _RATIOS[name], list(labels), words()[name]
    cmap = matplotlib.colormaps[colormap]
    fig = new_figure(11.5, 3.8)
    axes = fig.subplots(1, 2)
    for ax, m in zip(axes, ("utrera_slowdown", "mean_response")):
        d = _ratio_frame(traces, m, labels, base_label)
        groups = sorted(set(d["group"]))
        _grouped_bars(ax, d, groups, names, [cmap(i) for i in range(len(names))], names,
                      log=log and bool((d["mean"] > 0).all()))
        ax.axhline(1.0, color="k", lw=0.8)
        if not log:
            lo = float(np.nanmin(d["mean"] - d["ci95"])) if len(d) else 0.9
            ax.set_ylim(bottom=max(0.0, min(0.9, lo - 0.05)))
        ax.set_title(w["panel"].format(metric=METRIC_LABELS[m], **values))
        ax.set_ylabel(w["ylabel"].format(**values))
    # Outside the axes: the bars fill them.
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, title=w["legend"], fontsize="small", loc="outside right upper")
    _titles(fig, name, None, **values)
    return save_figure(fig, out)


def plot_long_util(lu: pd.DataFrame, out, *, trace: str, scale_label: str, n_seeds: int,
                   threshold: float | None = 0.9, note: str | None = None) -> Path:
    """Sect. 5.1: average slowdown and response against long jobs' CPU utilization.

    ``lu`` is :func:`simlib.studies.utrera.tables.long_frame`; the paper's
    threshold (FCFS-malleable wins below it) is drawn as a vertical line.
    """
    users = user_policies(lu["policy"])
    st = styles([EASY, MALLEABLE, *users])
    fig = new_figure(9.5, 3.8)
    axes = fig.subplots(1, 2)
    for ax, m in zip(axes, ("utrera_slowdown", "mean_response")):
        sub = lu[lu["metric"] == m]
        scale, unit = (1.0, "") if m == "utrera_slowdown" else time_unit(sub["mean"])
        for pol in (EASY, MALLEABLE, *users):
            d = sub[sub["policy"] == pol].sort_values("long_util")
            ax.errorbar(100 * d["long_util"], d["mean"] / scale,
                        yerr=nonnegative_yerr(d["mean"] / scale, d["ci95"].fillna(0) / scale),
                        capsize=3, **_line(st[pol]))
        if threshold is not None:
            ax.axvline(100 * threshold, color="k", ls="--", lw=0.8,
                       label=words()["long_util"]["threshold"].format(percent=100 * threshold))
        ax.set_xlabel("CPU utilization of long jobs (%)")
        ax.set_ylabel(METRIC_LABELS[m] + (f" ({unit})" if unit else ""))
        if bool((sub["mean"] > 0).all()):
            log_y(ax, sub["mean"] / scale)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small")
    _titles(fig, "long_util", note, trace=trace, scale=scale_label, n_seeds=n_seeds)
    return save_figure(fig, out)


def plot_fig1(timeline: pd.DataFrame, waiting_cpus, cpus: int, t0: float, length: float, out, *,
              trace: str, scale_label: str, note: str | None = None) -> Path:
    """Fig. 1 substitute: one window of a trace simulated under EASY.

    Top: CPUs busy and CPUs requested by waiting jobs; bottom: wait-queue
    length (jobs). ``waiting_cpus`` holds the requested CPUs of the waiting
    jobs at each timeline row. Time in days from ``t0``.
    """
    t = timeline["time"].to_numpy(dtype=float)
    wc = np.asarray(waiting_cpus, dtype=float)
    keep = (t >= t0) & (t <= t0 + length)
    # Carry the state in force at t0 into the window.
    k0 = max(int(np.searchsorted(t, t0, side="right")) - 1, 0)
    idx = np.union1d([k0], np.flatnonzero(keep))
    x = (np.maximum(t[idx], t0) - t0) / 86400.0
    busy = timeline["busy_cpus"].to_numpy(dtype=float)[idx]
    queue = timeline["queued_jobs"].to_numpy(dtype=float)[idx]
    fig = new_figure(10.0, 5.5)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    ax1.step(x, busy, where="post", color="tab:blue", label="CPUs busy")
    ax1.step(x, wc[idx], where="post", color="tab:red", label="CPUs requested by waiting jobs")
    ax1.axhline(cpus, color="k", ls="--", lw=0.8, label=f"machine ({cpus} CPUs)")
    ax1.set_ylabel("CPUs")
    ax1.legend(fontsize="small", loc="upper left")
    ax1.grid(True, alpha=0.3)
    ax2.step(x, queue, where="post", color="tab:green")
    ax2.set_ylabel("jobs in the wait queue")
    ax2.set_xlabel("days")
    ax2.set_xlim(0, length / 86400.0)
    ax2.grid(True, alpha=0.3)
    fig.suptitle(words()["fig1"]["title"].format(trace=trace, days=length / 86400))
    footer_lines(fig, f"scale: {scale_label}" + (f"; {note}" if note else ""))
    return save_figure(fig, out)
