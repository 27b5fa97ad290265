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
  runtimes``) -- one Lublin seed made into one workload per load:
  :func:`simlib.studies.utrera.transforms.fit_to_window` maps the submit times onto
  [0, span] and scales every runtime by one factor so that the offered
  load over the span is the target.
"""
from __future__ import annotations

from simlib.io import write_json, write_text
from simlib.studies.utrera.transforms import fit_to_window
from simlib.workload.prepare import (
    CleaningPolicy,
    characterize,
    clean,
    format_cleaning_log,
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
    """Step ``utrera_table1_workloads``: Table 1's workloads of one Lublin seed.

    Input ``swf``: the model's workload at its own arrival rate. Parameters
    ``loads``, ``span`` (s) and ``machine_size``. Outputs: ``swfs`` (one
    per load, in ``loads`` order) and ``info`` (JSON: per load the runtime
    factor, the offered load reached, the mean runtime and the number of
    1-second jobs).
    """
    p = ctx.params
    base = read_swf(ctx.input.swf)
    fits = []
    for load, out in zip(p["loads"], ctx.output.swfs, strict=True):
        wl, factor = fit_to_window(base, span=p["span"], machine_size=p["machine_size"], load=load)
        write_swf(wl, out)
        reached = offered_load(wl, p["machine_size"])
        run = wl.jobs["run_time"]
        fits.append({"load": load, "runtime_factor": factor, "offered_load": reached,
                     "mean_runtime": float(run.mean()), "one_second_jobs": int((run == 1).sum())})
        ctx.log.info("load %s: runtime factor %.6g, reached %.6f, mean runtime %.1f s",
                     load, factor, reached, run.mean())
    write_json({"seed": int(ctx.wildcards["seed"]), "span": p["span"],
                "machine_size": p["machine_size"], "jobs": len(base.jobs), "fits": fits},
               ctx.output.info)
