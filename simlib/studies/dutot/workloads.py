"""Paper D's workloads (§5.1): jobs of the CEA-Curie log that fit one cluster.

:func:`eligible_step` (``dutot_eligible``) cleans the **whole** log with the
project's cleaning (:func:`simlib.workload.prepare.clean`, policy
``traces.cleaning``) and keeps the *pool* (:func:`eligible_jobs`), in trace
order; :func:`workload_step` (``dutot_workload``) draws one seed's workload
from it (:func:`make_workload`). A job's size_j is its requested processors
(SWF field 8; the cleaning copies the allocated count, field 5, where the log
has none; one processor is one node), ret_j its runtime (field 4), rw_j its
requested time (field 9). Eligible: ``size_j <= max_size`` (it fits one
cluster) and ``runtime_min <= ret_j <= runtime_max``, bounds included. Seed
s picks ``jobs`` distinct positions of the pool
(``Generator(PCG64(SeedSequence([base_seed, s]))).choice``); every job is
released at 0 with walltime ``w_j = max(rw_j, ret_j * F_w)``, rounded up to a
whole second, in field 9 (where the engine reads the walltime). Each choice
and why: the README's interpretation choice 2 (``templates/README.md.j2``).
The paper's own generator and picks cannot be recovered: our workloads are
drawn the same way, not the same jobs.
"""
from __future__ import annotations

import numpy as np

from simlib.io import write_json, write_text
from simlib.workload.prepare import CleaningPolicy, clean, format_cleaning_log
from simlib.workload.swf import Workload, max_procs, read_swf, write_swf

__all__ = ["generator", "eligible_jobs", "pick_positions", "make_workload", "summarize",
           "eligible_step", "workload_step"]


def generator(base_seed: int, seed: int) -> np.random.Generator:
    """The Generator of one seed: ``Generator(PCG64(SeedSequence([base_seed, seed])))``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(base_seed), int(seed)])))


def eligible_jobs(workload: Workload, *, max_size: int, runtime_min: float,
                  runtime_max: float) -> tuple[Workload, dict]:
    """The jobs of a cleaned workload that fit one cluster and run between the bounds:
    ``(pool, counts)``, the pool in the workload's order re-indexed from 0, the counts
    ``jobs_in``, ``too_wide``, ``too_short`` and ``too_long`` (among the narrow enough jobs),
    ``eligible``.
    """
    jobs = workload.jobs
    size, run = jobs["requested_procs"], jobs["run_time"]
    narrow = size <= max_size
    short = narrow & (run < runtime_min)
    long_ = narrow & (run > runtime_max)
    keep = narrow & ~short & ~long_
    counts = {"jobs_in": int(len(jobs)), "too_wide": int((~narrow).sum()),
              "too_short": int(short.sum()), "too_long": int(long_.sum()),
              "eligible": int(keep.sum())}
    pool = Workload(jobs[keep].reset_index(drop=True), list(workload.header), workload.path)
    return pool, counts


def pick_positions(pool_size: int, jobs: int, *, base_seed: int, seed: int,
                   order: str = "trace") -> np.ndarray:
    """Positions in the pool of one seed's jobs: kept in pool (trace) order with ``order``
    ``trace``, in draw order with ``pick`` (the FCFS priority: every job is released at 0);
    ValueError when the pool holds fewer than ``jobs`` jobs or ``order`` is unknown.
    """
    if jobs > pool_size:
        raise ValueError(f"the pool holds {pool_size} eligible jobs, fewer than the {jobs} asked")
    if order not in ("trace", "pick"):
        raise ValueError(f"order must be 'trace' or 'pick', not {order!r}")
    picks = generator(base_seed, seed).choice(pool_size, size=jobs, replace=False)
    return np.sort(picks) if order == "trace" else picks


def make_workload(pool: Workload, *, jobs: int, base_seed: int, seed: int, order: str,
                  f_w: float) -> Workload:
    """One seed's workload: picks, release dates 0, walltime ``max(rw_j, ret_j * F_w)``; the
    log's wait (field 3) and dependencies on jobs not in the workload (17-18) set missing."""
    pos = pick_positions(len(pool.jobs), jobs, base_seed=base_seed, seed=seed, order=order)
    picked = pool.jobs.iloc[pos].reset_index(drop=True).copy()
    walltime = np.maximum(picked["requested_time"].to_numpy(dtype=float),
                          picked["run_time"].to_numpy(dtype=float) * float(f_w))
    picked["requested_time"] = np.ceil(walltime).astype(np.int64)
    picked["submit_time"] = 0
    picked["wait_time"] = -1
    picked["preceding_job"] = -1
    picked["think_time"] = -1
    header = [
        "; simlib: paper D workload (simlib.studies.dutot.workloads)",
        f"; simlib: {jobs} jobs picked from {len(pool.jobs)} eligible, seed {seed}, "
        f"Generator(PCG64(SeedSequence([{base_seed}, {seed}]))), order {order}",
        f"; simlib: release dates 0; walltime = max(requested time, runtime * {f_w:g})",
    ]
    return Workload(picked, header)


def summarize(workload: Workload) -> dict:
    """Facts of a workload: jobs, sizes, runtimes, walltimes, total work."""
    j = workload.jobs
    size, run, wall = j["requested_procs"], j["run_time"].astype(float), j["requested_time"]
    return {"jobs": int(len(j)), "job_ids": [int(x) for x in j["job_id"]],
            "sizes": {str(int(k)): int(v) for k, v in size.value_counts().sort_index().items()},
            "runtime_mean": float(run.mean()), "runtime_min": float(run.min()),
            "runtime_max": float(run.max()), "walltime_min": float(wall.min()),
            "walltime_max": float(wall.max()), "work_node_seconds": float((size * run).sum())}


# ------------------------------------------------------------------ steps
def eligible_step(ctx) -> None:
    """Step ``dutot_eligible``: the pool of eligible jobs of the whole cleaned log ``raw``:
    ``swf``, ``cleaning_log`` and ``info`` (JSON: cleaning and filter counts, pool sizes)."""
    p = ctx.params
    raw = read_swf(ctx.input.raw, unsorted=p["unsorted"])
    policy = CleaningPolicy.from_mapping(p["cleaning"])
    cleaned, cleaning = clean(raw, int(p["machine_procs"]), policy=policy)
    write_text(ctx.output.cleaning_log, format_cleaning_log(p["trace"], cleaning, policy))
    bounds = {"max_size": int(p["max_size"]), "runtime_min": float(p["runtime_min"]),
              "runtime_max": float(p["runtime_max"])}
    pool, counts = eligible_jobs(cleaned, **bounds)
    pool.header.append(f"; simlib: paper D pool: size <= {p['max_size']}, "
                       f"{p['runtime_min']:g} s <= runtime <= {p['runtime_max']:g} s")
    write_swf(pool, ctx.output.swf)
    sizes = pool.jobs["requested_procs"].value_counts().sort_index()
    write_json({
        "trace": p["trace"], "machine_procs": int(p["machine_procs"]),
        "header_max_procs": max_procs(raw), "cleaning_counts": cleaning,
        "filter_counts": counts, "size_from_allocated": int(cleaning["size_from_allocated"]),
        "pool_sizes": {str(int(k)): int(v) for k, v in sizes.items()}, **bounds}, ctx.output.info)
    ctx.log.info("%s: %d jobs cleaned, %d eligible (%d too wide, %d too short, %d too long)",
                 p["trace"], counts["jobs_in"], counts["eligible"], counts["too_wide"],
                 counts["too_short"], counts["too_long"])


def workload_step(ctx) -> None:
    """Step ``dutot_workload``: one seed's workload (:func:`make_workload`) from ``pool``:
    ``swf`` and ``info`` (JSON: the parameters and :func:`summarize`)."""
    p, seed = ctx.params, int(ctx.wildcards["seed"])
    pool = read_swf(ctx.input.pool)
    wl = make_workload(pool, jobs=int(p["jobs"]), base_seed=int(p["base_seed"]), seed=seed,
                       order=p["order"], f_w=float(p["f_w"]))
    write_swf(wl, ctx.output.swf)
    write_json({"seed": seed, "base_seed": int(p["base_seed"]), "order": p["order"],
                "f_w": float(p["f_w"]), "pool_jobs": int(len(pool.jobs)),
                "generator": f"Generator(PCG64(SeedSequence([{int(p['base_seed'])}, {seed}])))",
                # Jobs whose walltime is the user's request (rw_j > ret_j * F_w).
                "walltime_from_request": int((wl.jobs["requested_time"] > np.ceil(
                    wl.jobs["run_time"].to_numpy(dtype=float) * float(p["f_w"]))).sum()),
                **summarize(wl)}, ctx.output.info)
    ctx.log.info("seed %d: %d jobs from a pool of %d", seed, len(wl.jobs), len(pool.jobs))
