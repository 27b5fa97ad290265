"""Paper U's inputs: the trace portions and Table 1's synthetic workloads.

* :func:`prepare_trace` (steps ``utrera_prepare_trace`` and
  ``utrera_prepare_portion``) -- one trace cleaned for the paper's machine
  size (Table 2: 430 CPUs for CTC, not the header's 338), cut to a portion
  (:func:`select_portion`) and characterized (Table 2, :func:`describe`).
* :func:`table1_workloads` (``utrera_table1_workloads``) -- one Lublin seed
  made into one workload per load by a fit of :mod:`.transforms` (README,
  interpretation 5).
"""
from __future__ import annotations

from simlib.io import write_json, write_text
from simlib.studies.utrera.transforms import densest_window, fit_sizes_to_window, fit_to_window, long_jobs
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

__all__ = ["describe", "select_portion", "prepare_trace", "table1_workloads"]


def describe(workload, cpus: int) -> dict:
    """Table 2's facts of a workload on ``cpus`` CPUs: :func:`simlib.workload.prepare.characterize`
    and the demand ratios under the log's own schedule (``demand_ratio_log``,
    ``queue_demand_ratio_log``: :func:`.metrics.log_demand_ratios`).

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


def select_portion(cleaned, portion: dict, *, where: str = "portion"):
    """The jobs of a portion of a cleaned trace, and where they are.

    ``portion``: ``first_job`` (a 0-based position, or ``"densest"``:
    :func:`.transforms.densest_window` of the long jobs) and ``n_jobs``.
    Returns the portion and its facts: ``selection`` ("densest" or
    "positions"), ``first_job``, ``jobs``, ``long_jobs`` (in the portion)
    and ``long_jobs_cleaned`` (in the whole cleaned trace). ValueError
    (naming the config key ``where``) when the trace holds too few jobs.
    """
    n_jobs, first = int(portion["n_jobs"]), portion["first_job"]
    flags = long_jobs(cleaned)
    total = len(cleaned.jobs)
    if first == "densest":
        if n_jobs > total:
            raise ValueError(f"{where}: the densest window of {n_jobs} jobs asks more than the "
                             f"{total} of the cleaned trace")
        first, _ = densest_window(flags, n_jobs)
    first = int(first)
    if first + n_jobs > total:
        raise ValueError(f"{where}: only {max(0, total - first)} jobs from position {first} of "
                         f"the {total} of the cleaned trace (asked {n_jobs})")
    part = subset(cleaned, first_job=first, n_jobs=n_jobs)
    return part, {"selection": "densest" if portion["first_job"] == "densest" else "positions",
                  "first_job": first, "jobs": len(part.jobs),
                  "long_jobs": int(flags[first:first + n_jobs].sum()),
                  "long_jobs_cleaned": int(flags.sum())}


def prepare_trace(ctx) -> None:
    """Steps ``utrera_prepare_trace`` and ``utrera_prepare_portion``: a portion of one trace.

    Input ``raw`` (the verified trace), cleaned (``params.cleaning``) for
    ``params.portion["machine_procs"]`` CPUs and cut (:func:`select_portion`;
    ``config_key``: the key configuring a portion other than Fig. 3's).
    Outputs: ``swf``, ``cleaning_log`` and ``info`` (JSON: the portion's
    place in the trace, the cleaning counts and :func:`describe` of the
    portion and of the whole cleaned trace; with ``config_key``, the facts
    of :func:`select_portion` too).
    """
    p, trace = ctx.params, ctx.wildcards["trace"]
    portion = p["portion"]
    cpus = portion["machine_procs"]
    where = portion.get("config_key", f"studies.utrera.trace_portions.{trace}")
    raw = read_swf(ctx.input.raw, unsorted=p["unsorted"])
    policy = CleaningPolicy.from_mapping(p["cleaning"])
    cleaned, counts = clean(raw, cpus, policy=policy)
    write_text(ctx.output.cleaning_log, format_cleaning_log(trace, counts, policy),
               encoding="utf-8")
    part, facts = select_portion(cleaned, portion, where=f"{trace}: config {where}")
    part.header.append(f"; simlib: paper U portion on {cpus} CPUs (header MaxProcs "
                       f"{max_procs(raw)})")
    write_swf(part, ctx.output.swf)
    ctx.log.info("%s: %d jobs from position %d (%s) on %d CPUs, %d long jobs", trace,
                 len(part.jobs), facts["first_job"], facts["selection"], cpus,
                 facts["long_jobs"])
    info = {"trace": trace, "scale": ctx.wildcards["scale"], "machine_procs": cpus,
            "header_max_procs": max_procs(raw), "first_job": facts["first_job"],
            "jobs": len(part.jobs), "first_job_id": int(part.jobs["job_id"].iloc[0]),
            "last_job_id": int(part.jobs["job_id"].iloc[-1])}
    if "config_key" in portion:  # (Fig. 3's portions keep their record as it was)
        info.update(config_key=where, selection=facts["selection"],
                    cleaned_jobs=len(cleaned.jobs), long_jobs=facts["long_jobs"],
                    long_jobs_cleaned=facts["long_jobs_cleaned"])
    info.update(cleaning_counts=counts, portion=describe(part, cpus),
                cleaned=describe(cleaned, cpus))
    write_json(info, ctx.output.info)


def table1_workloads(ctx) -> None:
    """Step ``utrera_table1_workloads``: Table 1's workloads of one Lublin seed (input ``swf``,
    at the model's own arrival rate) and one fit, ``swfs`` (one per load, in ``loads``
    order) and ``info`` (JSON: per load the factors, the offered load reached, the mean
    and median runtime, the mean size, the number of 1-second and of machine-wide jobs).
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
