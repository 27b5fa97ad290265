"""Which figure of paper K is drawn from what: Figs. 1, 2 and 5–11.

The drawing itself is :mod:`simlib.studies.kumar.plots`; this module chooses
each figure's data (cube, workloads, policies, the picked C_s), its titles
and notes, and writes its files (every ``figures`` artifact of
:func:`.plan.artifact_list`).
"""
from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ...io import write_csv
from .plan import FIGURES, KumarPlan, cs_label, names
from .plots import plot_cs_sweep, plot_fig1, plot_fig2, plot_load_sweep

__all__ = ["FIG1_NOTE", "FIG2_TITLES", "draw_fig1", "draw_fig2", "draw_sweeps", "fig1_step",
           "examples_step", "sweeps_step", "sensitivity_step"]

#: Source of Fig. 1's trace, printed under the figure.
FIG1_NOTE = names()["fig1_note"]
#: Panel titles of Fig. 2.
FIG2_TITLES = names()["fig2_titles"]
_LOG = logging.getLogger(__name__)


def paper_marks(published, p_s: float) -> list[tuple[float, float, str]]:
    """The paper's C_s statements for a P_S as shaded spans ``(from, to, label)``.

    Examples
    --------
    >>> pub = {"cs_optimum": {"p_s": 0.5, "values": [7, 8]},
    ...        "cs_insensitive": {"p_s": 0.8, "above": 3}}
    >>> paper_marks(pub, 0.5), paper_marks(pub, 0.8)[0][:2], paper_marks(None, 0.5)
    ([(7, 8, 'paper: optimum C_s ≈ 7–8')], (3, inf), [])
    """
    out = []
    if not published:
        return out
    opt, ins = published.get("cs_optimum") or {}, published.get("cs_insensitive") or {}
    if opt and abs(float(opt["p_s"]) - p_s) < 1e-12:
        lo, hi = min(opt["values"]), max(opt["values"])
        out.append((lo, hi, f"paper: optimum C_s ≈ {lo}–{hi}"))
    if ins and abs(float(ins["p_s"]) - p_s) < 1e-12:
        out.append((ins["above"], float("inf"), f"paper: flat for C_s > {ins['above']}"))
    return out


def fig1_subset_note(cube) -> str:
    """Which jobs of which log Fig. 1 simulates, and LOS's lookahead, from the cube's provenance.

    Examples
    --------
    >>> import xarray as xr, json
    >>> c = xr.Dataset(attrs={"config_subtree": json.dumps({"scale_settings": {
    ...     "trace_first_job": 0, "trace_jobs": 20000}, "grid": {"policies": {"los": {}}}})})
    >>> fig1_subset_note(c)
    'jobs 0-19999 of the cleaned log; LOS lookahead 50 (its default)'
    """
    from ...policies import POLICIES
    sub = json.loads(cube.attrs.get("config_subtree", "{}"))
    sc = sub.get("scale_settings") or {}
    first, n = sc.get("trace_first_job", 0), sc.get("trace_jobs")
    jobs = f"jobs {first}-{first + n - 1}" if n else "every job"
    los = (sub.get("grid") or {}).get("policies", {}).get("los") or {}
    look = los.get("lookahead", POLICIES["los"].defaults.get("lookahead"))
    return (f"{jobs} of the cleaned log; LOS lookahead {look}"
            + ("" if "lookahead" in los else " (its default)"))


def _both(plot, png, svg, log, *args, **kw) -> None:
    """``plot`` into ``png`` and ``svg``."""
    for out in (png, svg):
        plot(*args, out, **kw)
        log.info("wrote %s", out)


def draw_fig1(cube, *, scale: str, png, svg, csv, log=_LOG) -> None:
    """Fig. 1 (PNG, SVG) and its data (CSV) from the ``kumar_fig1`` trace-sweep cube."""
    _both(plot_fig1, png, svg, log, cube, scale_label=scale,
          note=f"{FIG1_NOTE}; {fig1_subset_note(cube)}")
    df = cube[["mean_wait", "offered_load"]].to_dataframe().reset_index()
    df.insert(0, "scale", scale)
    write_csv(df, csv, index=False, lineterminator="\n")


def draw_fig2(schedules: Mapping[str, pd.DataFrame], *, png, svg, csv, log=_LOG) -> None:
    """Fig. 2 (PNG, SVG) from the simulated example (:func:`.runs.fig2_example`) and its
    schedules (CSV)."""
    _both(plot_fig2, png, svg, log, schedules, titles=FIG2_TITLES)
    rows = [{"policy": policy, "job_id": r.job_id, "processors": r.requested_number_of_resources,
             "start": r.starting_time, "end": r.finish_time,
             "allocated_resources": r.allocated_resources}
            for policy, df in schedules.items() for r in df.itertuples()]
    write_csv(pd.DataFrame(rows), csv, index=False, lineterminator="\n")


def _nbar_text(cube, workload: str, plan: KumarPlan, published) -> str:
    """n̄ of the workload (ours, mean over seeds) and the published one."""
    p = plan.params(workload)
    pub = [e["n_bar"] for e in (published or {}).get("n_bar", {}).get("values", [])
           if math.isclose(e["p_s"], p.p_s) and math.isclose(e["p_d"], p.p_d)]
    ours = float(cube["n_bar"].sel(workload=workload).mean())
    return f"n̄ = {ours:.1f}" + (f" (paper: {pub[0]:g})" if pub else "")


def draw_sweeps(plan: KumarPlan, cs_cube, load_cube, picks: Mapping, outdir, *,
                log=_LOG, published=None) -> list[str]:
    """Figs. 5–11 and the C_s sweep of every other P_S; returns the files written.

    ``picks``: :func:`.cubes.picks_document` (the C_s picked are marked on
    the C_s sweeps and named beside each load sweep); ``published``: the
    paper's C_s statements are marked on Figs. 5-6 (:func:`paper_marks`).
    The C_s sweeps of the other P_S are no figure of the paper, but they set
    the C_s of Figs. 7-11: drawn the same way.
    """
    by_w, swept, cs_load = picks["by_workload"], plan.cs_sweep["swept"], plan.cs_sweep["load"]
    shown = {w for f in FIGURES.values() if f["kind"] == "cs" for w in f["workloads"]}
    others = [{"kind": "cs", "workloads": [w], "file": f"cs_sweep_{w}", "paper": False,
               "metrics": ["utilization", "mean_wait"],
               "title": names()["cs_sweep_title"].format(load=cs_load, p_s=plan.p_s(w))}
              for w in plan.purpose_workloads("cs") if w not in shown]

    def row_title(w):
        cs = plan.picked_cs(by_w, w)
        return f"{w}: " + ", ".join(filter(None, [_nbar_text(load_cube, w, plan, published),
                                                  cs is not None and f"C_s = {cs_label(cs)}"]))

    written = []
    for spec in [*FIGURES.values(), *others]:
        ws = spec["workloads"]
        for out in (Path(outdir) / f"{spec['file']}.{ext}" for ext in ("png", "svg")):
            if spec["kind"] == "cs":
                plot_cs_sweep(cs_cube, ws[0], out, scale_label=plan.scale, swept=swept,
                              policies=plan.cs_sweep["policies"], metrics=spec["metrics"],
                              pick=by_w.get(ws[0]), title=spec["title"],
                              subtitle=_nbar_text(cs_cube, ws[0], plan, published),
                              marks=paper_marks(published, plan.p_s(ws[0]))
                              if spec.get("paper", True) else ())
            else:
                plot_load_sweep(load_cube, ws, out, scale_label=plan.scale, metrics=spec["metrics"],
                                policies={w: plan.load_sweeps[w] for w in ws}, title=spec["title"],
                                row_titles={w: row_title(w) for w in ws},
                                note=names()["load_sweep_note"])
            written.append(out.as_posix())
            log.info("wrote %s", out)
    return written


def fig1_step(ctx) -> None:
    """The ``kumar_fig1`` step: Fig. 1 from the ``kumar_fig1`` cube (:func:`draw_fig1`)."""
    from ...cube import read_cube
    out = ctx.output
    draw_fig1(read_cube(ctx.input.cube), scale=ctx.params["scale"], png=out.fig1_easy_vs_los_sdsc_png,
              svg=out.fig1_easy_vs_los_sdsc_svg, csv=out.fig1_easy_vs_los_sdsc_csv, log=ctx.log)


def examples_step(ctx) -> None:
    """The ``kumar_examples`` step: Fig. 2, simulated, and Table III, from the policy registry."""
    from .published import load_published
    from .runs import fig2_example
    from .tables import algorithms_frame, write_table
    out = ctx.output
    draw_fig2(fig2_example(), png=out.fig2_delayed_los_example_png,
              svg=out.fig2_delayed_los_example_svg, csv=out.fig2_delayed_los_example_csv, log=ctx.log)
    table = write_table(algorithms_frame(load_published(ctx.input.published)),
                        out.table3_algorithms_csv, out.table3_algorithms_md, "table3_algorithms.md.j2")
    ctx.log.info("Table III: %d algorithms", len(table))


def sweeps_step(ctx) -> None:
    """The ``kumar_figures`` step: Figs. 5–11 and the other C_s sweeps (:func:`draw_sweeps`)."""
    from ...cube import read_cube
    from .published import load_published
    plan = KumarPlan(ctx.params["study"], ctx.params["scale"])
    picks = json.loads(Path(ctx.input.picks).read_text(encoding="utf-8"))
    outdir = Path(next(iter(ctx.output.values()))).parent
    draw_sweeps(plan, read_cube(ctx.input.cs_cube), read_cube(ctx.input.load_cube), picks, outdir,
                log=ctx.log, published=load_published(ctx.input.published))


def sensitivity_step(ctx) -> None:
    """The ``kumar_fig1_sensitivity`` step: the cube, the table and the figure
    (:mod:`.fig1_sensitivity`); here, beside the other figures, so that the
    segments' simulations and the claims do not depend on the drawing code."""
    from ...cube import provenance, write_cube
    from .fig1_sensitivity import build_sensitivity_cube, improvements, write_tables
    from .plots import plot_fig1_sensitivity
    p, out, scale = ctx.params, ctx.output, ctx.scale
    attrs = provenance(p["subtree"], repo_dir=ctx.repo)
    attrs.update({"study": "kumar", "scale": scale,
                  "config_subtree": json.dumps(p["subtree"], sort_keys=True),
                  "title": f"Paper K, Fig. 1 sensitivity, {scale} scale",
                  "load_method": "inter-arrival times multiplied by one factor per (segment, load)"})
    cube = build_sensitivity_cube([json.loads(Path(f).read_text(encoding="utf-8"))
                                   for f in ctx.input.summaries], attrs)
    write_cube(cube, out.cube)
    bands = write_tables(cube, tolerance=p["tolerance"], csv=out.fig1_sensitivity_csv,
                         md=out.fig1_sensitivity_md, scale=scale)
    for ext in ("png", "svg"):
        plot_fig1_sensitivity(improvements(cube), out[f"fig1_sensitivity_{ext}"],
                              tolerance=p["tolerance"], scale_label=scale)
    ctx.log.info("bands: %s", bands.to_dict("records"))
