"""Paper U's inputs: the trace portions and Table 1's synthetic workloads.

Two steps of the study:

* :func:`prepare_trace` (``utrera_prepare_trace``) -- one trace cleaned for
  the paper's machine size (Table 2: 430 CPUs for CTC, not the header's
  338), cut to the configured portion (job positions in the cleaned trace),
  and characterized (Table 2) with the demand ratio under the log's own
  schedule (our reading of Req.Cpus/Cpus, see
  :mod:`simlib.studies.utrera.metrics`), for the portion and the whole
  cleaned trace.
* :func:`table1_workloads` (``utrera_table1_workloads``, ``table1.fit:
  sizes`` or ``runtimes``) -- one Lublin seed made into one workload per
  load, submit times mapped onto [0, span]; ``sizes``
  (:func:`~simlib.studies.utrera.transforms.fit_sizes_to_window`) scales
  the runtimes to one mean at every load and reaches the load through the
  job sizes, ``runtimes``
  (:func:`~simlib.studies.utrera.transforms.fit_to_window`) reaches it by
  one runtime factor per load.
"""
from __future__ import annotations

from simlib.io import write_json, write_text
from simlib.studies.utrera.transforms import fit_sizes_to_window, fit_to_window
from simlib.workload.prepare import (
    CleaningPolicy,
    characterize,
    clean,
    format_cleaning_log,
    job_size,
    offered_load,
    subset,
)
from simlib.workload.swf import max_procs, read_swf, write_swf

from .metrics import log_demand_ratios

__all__ = ["describe", "prepare_trace", "table1_workloads"]


def describe(workload, cpus: int) -> dict:
    """Table 2's facts of a workload on ``cpus`` CPUs.

    :func:`simlib.workload.prepare.characterize` plus the demand ratios
    under the log's own schedule (``demand_ratio_log``,
    ``queue_demand_ratio_log``;
    :func:`~simlib.studies.utrera.metrics.log_demand_ratios`).

    Examples
    --------
    >>> from simlib.studies.utrera.transforms import toy_workload
    >>> w = toy_workload([(0, 4, 2), (0, 4, 2)])
    >>> w.jobs["wait_time"] = [0, 2]
    >>> d = describe(w, 4)
    >>> d["demand_ratio_log"], d["queue_demand_ratio_log"]
    (1.5, 0.5)
    """
    out = characterize(workload, cpus)
    out["demand_ratio_log"], out["queue_demand_ratio_log"] = log_demand_ratios(workload, cpus)
    return out


def prepare_trace(ctx) -> None:
    """Step ``utrera_prepare_trace``: paper U's portion of one trace.

    Inputs: ``raw`` (the verified trace). Parameters: ``portion``
    (``machine_procs``, ``first_job``, ``n_jobs``), ``cleaning`` and
    ``unsorted`` (``config.traces``). Outputs: ``swf`` (the portion),
    ``cleaning_log`` and ``info`` (JSON: the portion's place in the trace,
    the cleaning counts and :func:`describe` of the portion and of the
    whole cleaned trace).

    Raises
    ------
    ValueError
        When the cleaned trace holds fewer jobs than the portion asks for.
    """
    p, trace = ctx.params, ctx.wildcards["trace"]
    portion = p["portion"]
    cpus = portion["machine_procs"]
    raw = read_swf(ctx.input.raw, unsorted=p["unsorted"])
    policy = CleaningPolicy.from_mapping(p["cleaning"])
    cleaned, counts = clean(raw, cpus, policy=policy)
    write_text(ctx.output.cleaning_log, format_cleaning_log(trace, counts, policy),
               encoding="utf-8")
    part = subset(cleaned, first_job=portion["first_job"], n_jobs=portion["n_jobs"])
    if len(part.jobs) < portion["n_jobs"]:
        raise ValueError(f"{trace}: only {len(part.jobs)} jobs from position "
                         f"{portion['first_job']} (asked {portion['n_jobs']})")
    part.header.append(f"; simlib: paper U portion on {cpus} CPUs (header MaxProcs "
                       f"{max_procs(raw)})")
    write_swf(part, ctx.output.swf)
    ctx.log.info("%s: %d jobs from position %d on %d CPUs", trace, len(part.jobs),
                 portion["first_job"], cpus)
    write_json({
        "trace": trace,
        "scale": ctx.wildcards["scale"],
        "machine_procs": cpus,
        "header_max_procs": max_procs(raw),
        "first_job": portion["first_job"],
        "jobs": len(part.jobs),
        "first_job_id": int(part.jobs["job_id"].iloc[0]),
        "last_job_id": int(part.jobs["job_id"].iloc[-1]),
        "cleaning_counts": counts,
        "portion": describe(part, cpus),
        "cleaned": describe(cleaned, cpus),
    }, ctx.output.info)


def table1_workloads(ctx) -> None:
    """Step ``utrera_table1_workloads``: Table 1's workloads of one Lublin seed and one fit.

    Input ``swf``: the model's workload at its own arrival rate. Parameters
    ``fit`` (``"sizes"`` or ``"runtimes"``), ``loads``, ``span`` (s),
    ``machine_size`` and ``mean_runtime`` (s, ``sizes`` only). Outputs:
    ``swfs`` (one per load, in ``loads`` order) and ``info`` (JSON: the fit,
    and per load the runtime factor, the size factor (``sizes``), the
    offered load reached, the mean and median runtime, the mean size, the number of
    1-second and of machine-wide jobs).
    """
    p = ctx.params
    fit, cpus = p.get("fit", "runtimes"), p["machine_size"]
    base = read_swf(ctx.input.swf)
    fits = []
    for load, out in zip(p["loads"], ctx.output.swfs, strict=True):
        if fit == "sizes":
            wl, factor, size_factor = fit_sizes_to_window(
                base, span=p["span"], machine_size=cpus, load=load,
                mean_runtime=p["mean_runtime"])
        else:
            wl, factor = fit_to_window(base, span=p["span"], machine_size=cpus, load=load)
            size_factor = 1.0  # sizes as the model drew them
        write_swf(wl, out)
        reached = offered_load(wl, cpus)
        run, size = wl.jobs["run_time"], job_size(wl.jobs)
        fits.append({"load": load, "runtime_factor": factor, "size_factor": size_factor,
                     "offered_load": reached, "mean_runtime": float(run.mean()),
                     "median_runtime": float(run.median()),
                     "mean_size": float(size.mean()), "one_second_jobs": int((run == 1).sum()),
                     "machine_wide_jobs": int((size >= cpus).sum())})
        ctx.log.info("%s, load %s: runtime x %.6g, sizes x %.6g, reached %.6f, mean runtime "
                     "%.1f s, mean size %.1f", fit, load, factor, size_factor, reached,
                     run.mean(), size.mean())
    write_json({"fit": fit, "seed": int(ctx.wildcards["seed"]), "span": p["span"],
                "machine_size": cpus, "jobs": len(base.jobs), "fits": fits}, ctx.output.info)
