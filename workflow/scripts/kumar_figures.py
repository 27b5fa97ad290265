"""Pipeline entry point: paper K's Figs. 5-11 (and the C_s sweeps of other P_S).

Inputs: the C_s-sweep cube, the load-sweep cube and the C_s picks.
``params.study`` is the ``studies.kumar`` config, ``params.scale`` the
scale, ``params.outdir`` the directory (paper_figures/K). Writes every
artifact of rule ``figures`` in :func:`simlib.studies.kumar.artifact_list`.
"""
import json
from pathlib import Path

from _common import job_log
from simlib.cube import read_cube
from simlib.figures.kumar import plot_cs_sweep, plot_load_sweep
from simlib.studies.kumar import FIGURES, KumarPlan, artifact_list
from simlib.workload import kumar as kgen


def _nbar_text(cube, workload, plan):
    """n̄ of the workload (ours, mean over seeds) and the published one."""
    da = cube["n_bar"].sel(workload=workload)
    ours = float(da.mean())
    params = plan.params(workload)
    pub = kgen.published_n_bar(params.p_s, params.p_d)
    return f"n̄ = {ours:.1f}" + (f" (paper: {pub:g})" if pub is not None else "")


def main(snakemake):
    p = snakemake.params
    scale = p.scale
    plan = KumarPlan.from_config({"scale": scale, "studies": {"kumar": p.study}})
    outdir = Path(p.outdir)
    with job_log(snakemake) as log:
        cs_cube = read_cube(snakemake.input.cs_cube)
        load_cube = read_cube(snakemake.input.load_cube)
        picks = json.loads(Path(snakemake.input.picks).read_text(encoding="utf-8"))
        by_w = picks["by_workload"]
        swept = plan.cs_sweep["swept"]

        def cs_of(w):
            for cw, c in by_w.items():
                if abs(plan.p_s(cw) - plan.p_s(w)) < 1e-12:
                    return c
            return None

        written = set()
        for fig, spec in FIGURES.items():
            for ext in ("png", "svg"):
                out = outdir / f"{spec['file']}.{ext}"
                if spec["kind"] == "cs":
                    w = spec["workloads"][0]
                    plot_cs_sweep(cs_cube, w, out, scale_label=scale, swept=swept,
                                  policies=plan.cs_sweep["policies"], metrics=spec["metrics"],
                                  pick=by_w.get(w), title=spec["title"],
                                  subtitle=_nbar_text(cs_cube, w, plan))
                else:
                    rows = {w: f"{w}: " + ", ".join(
                        filter(None, [_nbar_text(load_cube, w, plan),
                                      f"C_s = {cs_of(w)}" if cs_of(w) is not None else ""]))
                        for w in spec["workloads"]}
                    plot_load_sweep(load_cube, spec["workloads"], out, scale_label=scale,
                                    policies={w: plan.load_sweeps[w] for w in spec["workloads"]},
                                    metrics=spec["metrics"], title=spec["title"],
                                    row_titles=rows,
                                    note="C_s of Delayed-LOS / Hybrid-LOS picked by the pipeline "
                                         "from the C_s sweep (held-out seeds)")
                written.add(out.as_posix())
                log.info("wrote %s", out)
        for a in artifact_list(plan):
            if a["rule"] != "figures" or (outdir / a["file"]).as_posix() in written:
                continue
            w = a["file"].split(".")[0][len("cs_sweep_"):]
            plot_cs_sweep(cs_cube, w, outdir / a["file"], scale_label=scale, swept=swept,
                          policies=plan.cs_sweep["policies"], pick=by_w.get(w),
                          title=f"C_s sweep, Load {plan.cs_sweep['load']:g}, "
                                f"P_S = {plan.p_s(w):g} (not in the paper)",
                          subtitle=_nbar_text(cs_cube, w, plan))
            log.info("wrote %s", a["file"])


main(snakemake)  # noqa: F821
