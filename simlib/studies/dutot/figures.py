"""Paper D's figures and tables (steps ``dutot_figures_*``).

Fig. 1 (:func:`homogeneous_step`, one per reading of the platform) and
Fig. 3 (:func:`heterogeneous_step`: both sets together as the paper plots
them, then split by set and by ordering) plot makespan vs F_comm, one panel
per variant, one point per run (crosses: runs with jobs killed at their
walltime), least-squares trends; the trend tables hold the numbers behind
the lines. :func:`platforms_step` draws our platforms (Fig. 2 substitute),
writes their SimGrid files and Table 1 with absolute values. Headings and
notes are templates (``templates/``); figures go through a private Agg
figure with pinned metadata (:func:`simlib.figures.common.save_figure`), so
reruns give identical files.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from simlib.cube import read_cube
from simlib.figures.common import new_figure, save_figure, time_unit
from simlib.io import write_csv, write_text
from simlib.markdown import markdown_table
from simlib.render import render

from .platforms import FIELDS, from_description, table1_frame
from .published import load_published
from .report import fit_trend, runs_frame, trends_frame

__all__ = ["variant_label", "format_rate", "format_latency", "plot_scatter",
           "draw_platforms", "trends_markdown", "table1_markdown", "grid_facts", "headings",
           "homogeneous_step", "heterogeneous_step", "platforms_step"]

_VARIANT_COLORS = {"basic": "tab:red", "best_effort_contiguous": "tab:orange",
                   "best_effort_local": "tab:olive", "contiguous": "tab:blue", "local": "tab:green"}
#: F_comm is shown in units of 1e7 (the homogeneous experiment's step).
F_UNIT = 1e7


def variant_label(variant: str) -> str:
    """The paper's name of a variant: ours with spaces (``best effort local``)."""
    return variant.replace("_", " ")


def format_rate(bytes_per_s: float) -> str:
    """A bandwidth in B/s as text with a decimal prefix.

    Examples
    --------
    >>> format_rate(1.25e9), format_rate(1.25e6), format_rate(5e9)
    ('1.25 GB/s', '1.25 MB/s', '5 GB/s')
    """
    for factor, unit in ((1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s")):
        if bytes_per_s >= factor:
            return f"{bytes_per_s / factor:.3g} {unit}"
    return f"{bytes_per_s:.3g} B/s"


def format_latency(seconds: float) -> str:
    """A latency as text.

    Examples
    --------
    >>> format_latency(24e-9), format_latency(24e-6), format_latency(0.0)
    ('24 ns', '24 us', '0 s')
    """
    if seconds == 0:
        return "0 s"
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds:.3g} s"


def plot_scatter(runs: pd.DataFrame, variants: Sequence[str], out, *, title: str, note: str,
                 group: str | None = None) -> None:
    """Makespan vs F_comm of :func:`~simlib.studies.dutot.report.runs_frame` rows, one panel
    per variant (in ``variants`` order), one point per run, trend lines; with ``group`` (a
    column: sets, orderings) one colour and trend per value. A last panel overlays every
    variant's trends (dashed per group)."""
    factor, unit = time_unit(runs["makespan"])
    fig = new_figure(13.5, 8.0)
    axes = fig.subplots(2, 3, sharex=True, sharey=True)
    groups = sorted(set(runs[group])) if group else [None]
    cmap = matplotlib.colormaps["tab10"]
    gcolor = {g: cmap(i % 10) for i, g in enumerate(groups)}
    styles = ["-", "--", ":", "-."]
    xmax = float(runs["f_comm"].max()) / F_UNIT if len(runs) else 1.0
    xs = np.linspace(0.0, xmax, 2)
    overlay = axes.flat[len(variants)] if len(variants) < 6 else None
    for ax, variant in zip(axes.flat, variants):
        vrows = runs[runs["variant"] == variant]
        for i, g in enumerate(groups):
            rows = vrows if g is None else vrows[vrows[group] == g]
            if rows.empty:
                continue
            color = _VARIANT_COLORS.get(variant, "tab:gray") if g is None else gcolor[g]
            x = rows["f_comm"].to_numpy() / F_UNIT
            y = rows["makespan"].to_numpy() / factor
            killed = rows["jobs_killed"].to_numpy() > 0
            label = None if g is None else f"{group} {g}"
            ax.scatter(x[~killed], y[~killed], s=12, alpha=0.55, color=color, marker="o",
                       linewidths=0, label=label)
            if killed.any():
                ax.scatter(x[killed], y[killed], s=16, alpha=0.7, color=color, marker="x",
                           linewidths=0.9)
            t = fit_trend(x, y)
            if np.isfinite(t["slope"]):
                ax.plot(xs, t["intercept"] + t["slope"] * xs, color=color, lw=1.4)
                if overlay is not None:
                    ls = "-" if g is None else styles[i % len(styles)]
                    ov_label = variant_label(variant) if g is None or i == 0 else None
                    overlay.plot(xs, t["intercept"] + t["slope"] * xs,
                                 color=_VARIANT_COLORS.get(variant, "tab:gray"), ls=ls, lw=1.4,
                                 label=ov_label)
        ax.set_title(variant_label(variant))
        ax.grid(alpha=0.3)
        if group:
            ax.legend(fontsize=7, loc="upper left")
    if overlay is not None:
        overlay.set_title("trend lines of every variant")
        overlay.grid(alpha=0.3)
        if group:
            for i, g in enumerate(groups):
                overlay.plot([], [], color="k", ls=styles[i % len(styles)], label=f"{group} {g}")
        overlay.scatter([], [], marker="x", color="k", label="run with jobs killed at walltime")
        overlay.legend(fontsize=7, loc="upper left")
    for ax in axes.flat[len(variants) + (overlay is not None):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(f"F_comm (x {F_UNIT:.0e} B per pair per s of runtime)")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"makespan C_max ({unit})")
    fig.suptitle(_wrap(title, note), fontsize=9)
    save_figure(fig, out)


def _wrap(*parts: str, width: int = 180) -> str:
    """Heading lines that fit the figure's width."""
    return "\n".join(textwrap.fill(p, width) for p in parts)


def draw_platforms(descriptions: Sequence[Mapping], out, *, title: str) -> None:
    """One row per platform: its clusters as groups of nodes coloured by speed, node ids left
    to right; under each cluster its Table 1 name (or index) and switch bandwidth, beside each
    row the private links and the main switch."""
    n = len(descriptions)
    fig = new_figure(14.0, 0.95 * n + 1.6)
    ax = fig.subplots()
    speeds = [c["speed"] for d in descriptions for c in d["clusters"]]
    norm = matplotlib.colors.Normalize(vmin=min(speeds) / 1e3, vmax=max(speeds) / 1e3)
    cmap = matplotlib.colormaps["viridis"]
    width, gap, per_row = 4.0, 0.6, 8
    xmax = 0.0
    for i, d in enumerate(descriptions):
        y0 = (n - 1 - i) * 1.4
        for k, c in enumerate(d["clusters"]):
            x0 = k * (width + gap)
            ax.add_patch(Rectangle((x0 - 0.1, y0 - 0.05), width + 0.2, 0.85, fill=False, lw=0.8))
            cols = min(per_row, c["nodes"])
            rows = -(-c["nodes"] // cols)
            size = width / cols
            for j in range(c["nodes"]):
                r, q = divmod(j, cols)
                ax.add_patch(Rectangle((x0 + q * size + 0.04, y0 + 0.75 - (r + 1) * 0.75 / rows
                                        + 0.03), size - 0.08, 0.75 / rows - 0.06,
                                       color=cmap(norm(c["speed"] / 1e3)), lw=0))
            # Homogeneous clusters have no Table 1 name: their position.
            label = f"#{k}" if d["name"].startswith("hom-") else c["name"]
            ax.text(x0 + width / 2, y0 - 0.12, f"{label}  switch {format_rate(c['switch_bw'])}",
                    ha="center", va="top", fontsize=6.5)
            xmax = max(xmax, x0 + width)
        links = {(c["bw"], c["lat"]) for c in d["clusters"]}
        link_text = "; ".join(f"{format_rate(bw)}, {format_latency(lat)}" for bw, lat in sorted(links))
        ax.text(-0.4, y0 + 0.4, d["name"], ha="right", va="center", fontsize=8, weight="bold")
        ax.text(xmax + 0.4, y0 + 0.55, f"private links {link_text}", ha="left", va="center",
                fontsize=7)
        ax.text(xmax + 0.4, y0 + 0.2, f"main switch {format_rate(d['backbone_bw'])}, "
                f"{format_latency(d['backbone_lat'])}", ha="left", va="center", fontsize=7)
    ax.set_xlim(-5.0, xmax + 8.0)
    ax.set_ylim(-0.6, (n - 1) * 1.4 + 1.0)
    ax.axis("off")
    sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
    fig.colorbar(sm, ax=ax, shrink=0.6, pad=0.01, label="node speed (kflop/s)")
    ax.set_title(_wrap(title, width=170), fontsize=9)
    save_figure(fig, out)


def table1_markdown(published: Mapping) -> tuple[pd.DataFrame, str]:
    """Table 1 (multipliers and absolute values) as a frame and Markdown."""
    frame, het = table1_frame(published), published["heterogeneous"]
    shown = pd.DataFrame({
        "c": frame["cluster"], "set": frame["set"],
        **{f"{f} (x)": frame[f"{f}_factor"] for f in FIELDS},
        "bw_s": frame["switch_bw"].map(format_rate), "lat_s": frame["switch_lat"].map(format_latency),
        "cp (kflop/s)": frame["speed"] / 1e3, "bw": frame["bw"].map(format_rate),
        "lat": frame["lat"].map(format_latency)})
    headers = {"switch_bw (x)": "bw_s (x)", "switch_lat (x)": "lat_s (x)",
               "speed (x)": "cp (x)", "bw (x)": "bw (x)", "lat (x)": "lat (x)"}
    table = markdown_table(shown, headers=headers, integers=False, digits=4)
    return frame, render(__package__, "table1.md.j2", source=het["source"], base=het["base"],
                         rate=format_rate, latency=format_latency, table=table)


def trends_markdown(trends: pd.DataFrame, keys: Sequence[str],
                    columns: Sequence[str] | None = None) -> str:
    """A trends table (:func:`~simlib.studies.dutot.report.trends_frame`): ``keys``, then
    ``columns`` (default: all) in hours (slopes per 1e8 of F_comm) and percent."""
    shown = trends[list(keys)].copy()
    if "variant" in shown:
        shown["variant"] = shown["variant"].map(variant_label)
    values = {"mean makespan (h)": trends["mean_makespan"] / 3600,
              "slope (h per 1e8)": trends["slope"] * 1e8 / 3600,
              "intercept (h)": trends["intercept"] / 3600,
              "residual SD (h)": trends["resid_sd"] / 3600,
              "residual SD / mean (%)": 100 * trends["resid_sd_rel"],
              "runs": trends["runs"], "runs with kills": trends["runs_with_kills"],
              "jobs killed (%)": 100 * trends["killed_share"]}
    for name in columns or values:
        shown[name] = values[name]
    return markdown_table(shown, integers=False, digits=4)


def grid_facts(runs: pd.DataFrame) -> dict:
    """The grid of some runs: seeds (count, first, last), F_comm values (count, largest)."""
    seeds, f = sorted(set(runs["seed"])), sorted(set(runs["f_comm"]))
    return {"seeds": len(seeds), "first": int(seeds[0]), "last": int(seeds[-1]),
            "f_count": len(f), "f_max": float(max(f))}


def headings(**context) -> list[str]:
    """A figure's title and note (template ``figure_titles.j2``, ``figure`` = fig1, fig3,
    platforms)."""
    return render(__package__, "figure_titles.j2", **context).splitlines()


def homogeneous_step(ctx) -> None:
    """Step ``dutot_figures_homogeneous``: Fig. 1 per model and the trends table."""
    p, out = ctx.params, ctx.output
    runs = runs_frame(read_cube(ctx.input.cube))
    variants = [v for v in p["variants"] if v in set(runs["variant"])]
    for model in p["models"]:
        mine = runs[runs["model"] == model]
        title, note = headings(figure="fig1", model=model, scale=p["scale"],
                               grid=grid_facts(mine), jobs=p["jobs"])
        plot_scatter(mine, variants, out[f"fig1_{model}"], title=title, note=note)
        ctx.log.info("Fig. 1, %s model: %d runs", model, len(mine))
    # The printed reading first, as everywhere.
    order = {m: i for i, m in enumerate(p["models"])}
    trends = trends_frame(runs.sort_values("model", key=lambda s: s.map(order), kind="stable"),
                          ["model", "variant"])
    write_csv(trends, out.trends_csv, index=False, lineterminator="\n")
    write_text(out.trends_md, render(__package__, "trends_homogeneous.md.j2", scale=p["scale"],
                                     grid=grid_facts(runs), jobs=p["jobs"],
                                     table=trends_markdown(trends, ["model", "variant"])))


def heterogeneous_step(ctx) -> None:
    """Step ``dutot_figures_heterogeneous``: Fig. 3, by set, by ordering, and the trends table."""
    p, out = ctx.params, ctx.output
    runs = runs_frame(read_cube(ctx.input.cube))
    variants = [v for v in p["variants"] if v in set(runs["variant"])]
    words = {"scale": p["scale"], "grid": grid_facts(runs), "jobs": p["jobs"],
             "platforms": runs[["set", "ordering"]].drop_duplicates().shape[0]}
    for name, group in (("fig3", None), ("fig3_by_set", "set"), ("fig3_by_ordering", "ordering")):
        title, note = headings(figure="fig3", group=group, **words)
        plot_scatter(runs, variants, out[name], title=title, note=note, group=group)
    parts = [trends_frame(runs, ["variant"]).assign(grouping="all", group="both sets"),
             *(trends_frame(runs, [g, "variant"]).rename(columns={g: "group"}).assign(grouping=g)
               for g in ("set", "ordering"))]
    trends = pd.concat(parts, ignore_index=True)
    trends = trends[["grouping", "group", *[c for c in trends.columns
                                             if c not in ("grouping", "group")]]]
    write_csv(trends, out.trends_csv, index=False, lineterminator="\n")
    tables = {g: trends_markdown(trends[trends["grouping"] == g], ["group", "variant"])
              for g in ("all", "set", "ordering")}
    write_text(out.trends_md, render(__package__, "trends_heterogeneous.md.j2", tables=tables,
                                     **words))
    ctx.log.info("Fig. 3: %d runs on %d platforms", len(runs), words["platforms"])


def platforms_step(ctx) -> None:
    """Step ``dutot_figures_platforms``: each platform's SimGrid file (``xml_<name>``, dashes as
    underscores) from its description and source, their ``drawing``, and Table 1."""
    out, p = ctx.output, ctx.params
    descriptions = list(p["platforms"].values())
    for name, d in p["platforms"].items():
        lines = from_description(d).to_xml().splitlines()
        # Where the numbers come from, after the <platform> line ("--" may
        # not appear inside an XML comment).
        source = p["sources"][name].replace("--", "-")
        write_text(out[f"xml_{name.replace('-', '_')}"],
                   "\n".join([*lines[:3], f"  <!-- source: {source} -->", *lines[3:]]) + "\n")
    draw_platforms(descriptions, out.drawing, title=headings(figure="platforms")[0])
    frame, md = table1_markdown(load_published(ctx.input.published))
    write_csv(frame, out.table1_csv, index=False, lineterminator="\n")
    write_text(out.table1_md, md)
    ctx.log.info("drew %d platforms; Table 1: %d clusters", len(descriptions), len(frame))
