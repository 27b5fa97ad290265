"""Figures of paper K (Kumar, Shae, Jamjoom): Figs. 1, 2 and 5–11, from the study's cubes.

Curves are means over seeds with a shaded 95 % Student-t confidence band;
every figure prints the scale and the number of seeds that produced it.
Colours follow the policy's family so that a figure reads the same way in
every panel: EASY family blue, LOS family orange, Delayed-LOS / Hybrid-LOS green; a
user's policy (config extra_policies) takes a reserved style (:mod:`simlib.figures.styles`).

Rendering goes through :mod:`simlib.figures.common` (a private Agg canvas,
pinned metadata), so reruns give identical files.
"""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib
import numpy as np
import pandas as pd
import xarray as xr

from ...figures.common import new_figure, save_figure, seed_band
from ...figures.gantt import draw_jobs
from ...figures.styles import user_style
from .plan import CS_INF, PAPER_NAMES, cs_label

__all__ = ["policy_style", "user_policies", "plot_fig1", "plot_fig1_sensitivity", "plot_fig2",
           "cs_axis", "plot_cs_sweep", "plot_load_sweep"]

#: Policy families by name prefix, first match: (prefixes, colour, marker).
_FAMILIES = ((("delayed_los", "hybrid_los"), "tab:green", "D"), (("easy",), "tab:blue", "s"),
             (("los",), "tab:orange", "o"), (("",), "tab:gray", "^"))
_LABELS = {"utilization": "mean utilization", "mean_wait": "mean job waiting time",
           "kumar_slowdown": "slowdown (ratio of means)"}
_SHORT = {"utilization": "utilization", "mean_wait": "mean wait", "kumar_slowdown": "slowdown"}


def policy_style(policy: str, users: Sequence[str] = ()) -> dict:
    """Colour, marker and label of a policy: a paper policy's by family, a user's
    (config extra_policies; its place in ``users``) from the reserved user styles.

    Examples
    --------
    >>> policy_style("hybrid_los_e")["label"], policy_style("los_d")["color"]
    ('Hybrid-LOS-E', 'tab:orange')
    >>> policy_style("easy_small", ["sjf_easy", "easy_small"])["color"]
    'tab:brown'
    """
    if policy not in PAPER_NAMES:
        k = list(users).index(policy) if policy in users else 0
        return {**user_style(k), "label": policy}
    _, color, marker = next(f for f in _FAMILIES if policy.startswith(f[0]))
    return {"color": color, "marker": marker, "label": PAPER_NAMES[policy]}


def user_policies(cube) -> list[str]:
    """The policies of ``cube`` (Dataset or DataArray) that are not paper K's, in its order."""
    return [str(p) for p in cube["policy"].values if str(p) not in PAPER_NAMES]


def _new_figure(nrows: int, ncols: int, w: float = 4.0, h: float = 3.2):
    fig = new_figure(w * ncols + 0.4, h * nrows + 0.9)
    return fig, fig.subplots(nrows, ncols, squeeze=False)


def _footer(fig, text: str) -> None:
    # Wrap to the figure's width; constrained layout ignores fig.text, so
    # keep a strip at the bottom for it.
    width = max(40, int(fig.get_figwidth() * 15))
    text = "\n".join(textwrap.fill(line, width) for line in text.split("\n"))
    lines = text.count("\n") + 1
    strip = (0.17 * lines + 0.08) / fig.get_figheight()
    fig.text(0.01, 0.01, text, fontsize="small", ha="left", va="bottom", color="0.35")
    fig.get_layout_engine().set(h_pad=0.05, rect=(0, strip, 1, 1 - strip))


def _seeds_note(da: xr.DataArray, scale_label: str, cut: bool = False) -> str:
    if "seed" not in da.dims:
        return f"scale: {scale_label}; deterministic input, one run per point"
    n = int(da.sizes["seed"])
    band = "mean over seeds, band = 95 % CI" if n > 1 else "one run per point"
    if cut:
        band += ", cut at 0 where it reaches below (the quantity cannot be negative)"
    return f"scale: {scale_label}; seeds: {n} ({band})"


def _metric_axis(ax, metric: str, unit: str) -> None:
    label = _LABELS.get(metric, metric)
    ax.set_ylabel(f"{label} ({unit})" if unit else label)
    ax.grid(True, alpha=0.3)


def _draw(ax, x, da, policy, factor=1.0, label="{}", band=False, users=(), floor=0.0,
          **kw) -> bool:
    """``policy``'s seed mean of ``da`` against ``x`` (``label``: its name formatted in) and
    its 95 % band, where it has a width (anyway with ``band``); ``users``: the
    user policies of the figure (their styles).

    The band is the Student-t interval of the mean, intersected with
    ``[floor, inf)``: waits, slowdowns and utilization cannot be negative, so
    the cut interval covers the mean at least as often (None: no floor, for
    improvements). Returns whether the floor cut the band.
    """
    st = policy_style(policy, users)
    mean, lo, hi = seed_band(da)
    cut = floor is not None and bool(np.any(lo < floor))
    if cut:
        lo = np.maximum(lo, floor)
    if "linestyle" in st:
        kw.setdefault("linestyle", st["linestyle"])
    ax.plot(x, mean / factor, color=st["color"], marker=st["marker"], markersize=4,
            label=label.format(st["label"]), **kw)
    if band or np.any(hi > lo):
        ax.fill_between(x, lo / factor, hi / factor, color=st["color"], alpha=0.18, linewidth=0)
    return cut


def plot_fig1(cube: xr.Dataset, out_path, *, scale_label: str, note: str | None = None) -> Path:
    """Fig. 1: mean wait of EASY and LOS (and any user policy of the cube) against
    offered load on a real trace."""
    da = cube["mean_wait"]
    users = user_policies(da)
    traces = [str(t) for t in da["trace"].values] if "trace" in da.dims else [""]
    fig, axes = _new_figure(1, len(traces), 4.8, 3.6)
    factor, unit = _time_unit(da)
    cut = False
    for ax, trace in zip(axes[0], traces):
        sub = da.sel(trace=trace) if trace else da
        x = sub["load"].values.astype(float)
        for p in ("easy", "los", *users):
            if p in sub["policy"].values:
                cut |= _draw(ax, x, sub.sel(policy=p), p, factor, users=users)
        ax.set_xlabel("offered load (inter-arrival times scaled)")
        _metric_axis(ax, "mean_wait", unit)
        if bool((sub > 0).all()):
            ax.set_yscale("log")
        ax.set_title(trace or None)
        ax.legend(fontsize="small")
    fig.suptitle("Fig. 1: EASY vs LOS on the SDSC log")
    _footer(fig, _seeds_note(da, scale_label, cut) + (f"\n{note}" if note else ""))
    return save_figure(fig, out_path)


def plot_fig1_sensitivity(improvement: xr.DataArray, out_path, *, tolerance: float,
                          scale_label: str) -> Path:
    """LOS's improvement over EASY (%) against load, one panel per trace segment.

    ``improvement`` has dims (segment, load, policy), policies named
    ``los_<lookahead>_<tie rule>`` (:func:`.fig1_sensitivity.improvements`):
    colour by lookahead, solid for the ``earliest`` tie rule, dashed for
    ``latest``; the grey strip is the verdict's ± tolerance.

    Examples
    --------
    >>> import tempfile, os
    >>> da = xr.DataArray(np.array([[[5.0, -3.0]]]), dims=("segment", "load", "policy"),
    ...     coords={"segment": ["0-99"], "load": [0.5], "policy": ["los_50_earliest",
    ...                                                          "los_50_latest"]})
    >>> plot_fig1_sensitivity(da, os.path.join(tempfile.mkdtemp(), "f.png"), tolerance=5,
    ...                       scale_label="smoke").exists()
    True
    """
    segs = [str(s) for s in improvement["segment"].values]
    fig, axes = _new_figure(1, len(segs), 4.0, 3.4)
    pols = [str(p) for p in improvement["policy"].values]
    looks = list(dict.fromkeys(p.split("_")[1] for p in pols))
    colors = dict(zip(looks, ("tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive")))
    # Variants often coincide: later lookaheads drawn thinner on top, so
    # every curve stays visible.
    widths = {look: max(3.2 - 1.0 * i, 1.0) for i, look in enumerate(looks)}
    markers = dict(zip(looks, ("o", "s", "^", "v", "D")))
    x = improvement["load"].values.astype(float)
    for ax, seg in zip(axes[0], segs):
        ax.axhspan(-tolerance, tolerance, color="0.88", linewidth=0)
        ax.axhline(0, color="0.4", linewidth=0.8)
        for p in pols:
            _, look, tie = p.split("_", 2)
            ax.plot(x, improvement.sel(segment=seg, policy=p).values,
                    marker=markers.get(look, "o"), markersize=1.5 + 1.5 * widths[look],
                    linewidth=widths[look], color=colors.get(look, "tab:gray"),
                    linestyle="-" if tie == "earliest" else "--",
                    label=f"LOS lookahead {look}, {tie}")
        ax.set_title(f"jobs {seg}")
        ax.set_xlabel("offered load (inter-arrival times scaled)")
        ax.set_ylabel("LOS improvement over EASY, mean wait (%)")
    axes[0][0].legend(fontsize="x-small")
    fig.suptitle("Fig. 1 sensitivity: LOS vs EASY by segment of the SDSC log, lookahead and "
                 "tie rule")
    _footer(fig, f"{scale_label} scale; above 0: LOS waits less; grey: ± {tolerance:g} % "
            "(the verdict's tolerance)")
    return save_figure(fig, out_path)


def plot_fig2(schedules: Mapping[str, pd.DataFrame], out_path, *, cpus: int = 10,
              titles: Mapping[str, str] | None = None) -> Path:
    """Fig. 2: the schedules of the 7-4-6 example, one Gantt panel per policy.

    ``schedules`` maps a policy name to its per-job table (Batsim columns,
    as :func:`simlib.studies.kumar.runs.fig2_example` returns); each job is drawn
    on the processors it was allocated.
    """
    titles, names = dict(titles or {}), list(schedules)
    fig, axes = _new_figure(1, len(names), 4.2, 3.0)
    colors = matplotlib.colormaps["Set2"]
    horizon = max(float(df["finish_time"].max()) for df in schedules.values())
    for ax, name in zip(axes[0], names):
        df = schedules[name]
        draw_jobs(ax, df, colors=lambda k: colors(k % 8), edgecolor="black", linewidth=0.8,
                  label=lambda r: f"job {r.job_id}\n{r.requested_number_of_resources} procs")
        used_now = int(df.loc[df["starting_time"] == 0, "requested_number_of_resources"].sum())
        ax.set_xlim(0, horizon)
        ax.set_ylim(0, cpus)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("processor")
        ax.set_yticks(range(0, cpus + 1, 2))
        ax.set_title(titles.get(name, PAPER_NAMES.get(name, name)) +
                     f"\n{used_now} of {cpus} processors busy at t = 0", fontsize="medium")
    fig.suptitle("Fig. 2: jobs of 7, 4 and 6 processors arrive on an idle machine of "
                 f"{cpus} (simulated)")
    _footer(fig, "Rendered from simlib simulations (simlib.studies.kumar.fig2_example)")
    return save_figure(fig, out_path)


#: Paper K's figures show every time in hours (one unit for the whole family, so
#: that Figs. 1 and 5-11 can be read against each other).
TIME_UNIT = (3600.0, "h")


def _time_unit(da) -> tuple[float, str]:
    return TIME_UNIT if da.attrs.get("units") == "s" else (1.0, "")


def cs_axis(values) -> tuple[np.ndarray, list[float], list[str]]:
    """x positions, ticks and tick labels of C_s values; infinity one step past the largest.

    Examples
    --------
    >>> from simlib.studies.kumar.plan import CS_INF
    >>> x, ticks, labels = cs_axis([1, 2, 20, CS_INF])
    >>> x.tolist(), labels
    ([1.0, 2.0, 20.0, 22.0], ['1', '2', '20', '∞'])
    """
    v = np.asarray(values, dtype=float)
    inf = v == float(CS_INF)
    fin = v[~inf]
    x = v.copy()
    if inf.any():
        top = fin.max() if fin.size else 0.0
        x[inf] = top + max(2.0, 0.1 * (top - (fin.min() if fin.size else 0.0)))
    shown = fin if fin.size <= 12 else fin[np.isin(fin, np.unique(
        np.r_[fin.min(), fin.max(), fin[np.mod(fin, 5) == 0]]))]
    ticks = [float(t) for t in shown] + [float(t) for t in x[inf]]
    labels = [cs_label(t) for t in shown] + ["∞"] * int(inf.sum())
    return x, ticks, labels


def plot_cs_sweep(cube: xr.Dataset, workload: str, out_path, *, scale_label: str,
                  swept: str = "delayed_los", policies: Sequence[str] = ("easy", "los"),
                  metrics: Sequence[str] = ("utilization", "mean_wait"),
                  pick: int | None = None, title: str | None = None,
                  subtitle: str | None = None, paired: str | None = "mean_wait",
                  marks: Sequence[tuple[float, float, str]] = ()) -> Path:
    """Figs. 5–6: metrics against C_s for the swept policy and its references.

    EASY and LOS do not depend on C_s: they are flat lines (one run per
    seed). ``pick`` marks the C_s the pipeline picked. ``paired`` adds a
    panel with the swept policy's paired % improvement in that metric over
    each reference (mean and 95 % CI over seeds): the seed-to-seed spread
    of the absolute values hides differences that pairing reveals. ``marks``
    shades the paper's statements, ``(from C_s, to C_s, label)`` (an
    infinite end reaches the last finite C_s).
    """
    from ...metrics import percent_improvement

    sub = cube.sel(workload=workload)
    x, ticks, tick_labels = cs_axis(sub["cs"].values)
    fig, axes = _new_figure(1, len(metrics) + (paired is not None), 4.2, 3.3)
    if paired is not None:
        ax = axes[0][-1]
        higher = paired == "utilization"
        new = sub[paired].sel(policy=swept)
        for p in policies:
            if p not in sub["policy"].values:
                continue
            imp = percent_improvement(new.transpose("cs", "seed").values,
                                      sub[paired].sel(policy=p).transpose("cs", "seed").values,
                                      higher_is_better=higher)
            _draw(ax, x, xr.DataArray(imp, dims=("cs", "seed")), p, label="over {}", band=True,
                  floor=None)
        ax.axhline(0, color="0.3", linewidth=0.8)
        ax.set_xticks(ticks, tick_labels)
        ax.set_xlabel("maximum skip count C_s")
        ax.set_ylabel(f"% improvement in {_SHORT.get(paired, paired)} (paired)")
        ax.set_title(f"{policy_style(swept)['label']}'s improvement", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    cut = False
    for ax, m in zip(axes[0], metrics):
        da = sub[m]
        factor, unit = _time_unit(da)
        for p in [*policies, swept]:
            if p in da["policy"].values:
                cut |= _draw(ax, x, da.sel(policy=p), p, factor,
                             linestyle="--" if p != swept else "-")
        if pick is not None:
            at = float(x[list(sub["cs"].values).index(pick)]) if pick in sub["cs"].values else pick
            ax.axvline(at, color="0.3", linestyle=":", linewidth=1)
            right = at > (x.min() + x.max()) / 2
            ax.annotate(f"picked C_s = {cs_label(pick)}", (at, 1.0),
                        xycoords=("data", "axes fraction"),
                        xytext=(-3 if right else 3, -12), textcoords="offset points",
                        ha="right" if right else "left", fontsize="small", color="0.3")
        for lo, hi, label in marks:   # the paper's statements, shaded
            fin = x[sub["cs"].values != CS_INF]
            a = max(lo, x.min()) if np.isfinite(lo) else x.min()
            b = min(hi, fin.max()) if np.isfinite(hi) else x.max()
            ax.axvspan(a - 0.3, b + 0.3, facecolor="none", edgecolor="0.4", hatch="//",
                       linewidth=0, zorder=0, label=label)
        ax.set_xticks(ticks, tick_labels)
        ax.set_xlabel("maximum skip count C_s")
        _metric_axis(ax, m, unit)
    axes[0][len(metrics) - 1].legend(fontsize="small")
    fig.suptitle((title or f"metrics vs C_s ({workload})") + (f"\n{subtitle}" if subtitle else ""),
                 fontsize="medium")
    _footer(fig, _seeds_note(sub[metrics[0]], scale_label, cut)
            + "; EASY and LOS do not depend on C_s")
    return save_figure(fig, out_path)


def plot_load_sweep(cube: xr.Dataset, workloads: Sequence[str], out_path, *, scale_label: str,
                    policies: Mapping[str, Sequence[str]] | None = None,
                    metrics: Sequence[str] = ("utilization", "mean_wait", "kumar_slowdown"),
                    title: str | None = None, row_titles: Mapping[str, str] | None = None,
                    note: str | None = None) -> Path:
    """Figs. 7–11: metrics against Load, one row per workload, one column per metric.

    ``policies`` maps each workload to the policies to draw (default: every
    policy with values for it).
    """
    row_titles = dict(row_titles or {})
    users = user_policies(cube)
    fig, axes = _new_figure(len(workloads), len(metrics), 4.0, 3.1)
    cut = False
    for r, w in enumerate(workloads):
        sub = cube.sel(workload=w)
        x = sub["load"].values.astype(float)
        pols = list((policies or {}).get(w) or
                    [p for p in sub["policy"].values
                     if np.isfinite(sub[metrics[0]].sel(policy=p).values).any()])
        for c, m in enumerate(metrics):
            ax = axes[r][c]
            da = sub[m]
            factor, unit = _time_unit(da)
            for p in pols:
                cut |= _draw(ax, x, da.sel(policy=p), p, factor, users=users)
            ax.set_xlabel("Load")
            _metric_axis(ax, m, unit)
            if c == 0 and w in row_titles:
                ax.set_title(row_titles[w], fontsize="medium", loc="left")
        axes[r][-1].legend(fontsize="small")
    fig.suptitle(title or "metrics vs Load", fontsize="medium")
    _footer(fig, _seeds_note(cube[metrics[0]], scale_label, cut) + (f"\n{note}" if note else ""))
    return save_figure(fig, out_path)
