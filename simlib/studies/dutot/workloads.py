"""Paper D's workloads (§5.1): jobs of the CEA-Curie log that fit one cluster.

:func:`eligible_step` (``dutot_eligible``) cleans the **whole** log with the
project's cleaning (:func:`simlib.workload.prepare.clean`, policy
``traces.cleaning``) and keeps the *pool* (:func:`eligible_jobs`), in trace
order; :func:`workload_step` (``dutot_workload``) draws one seed's workload
from it (:func:`make_workload`). A job's size_j is its requested processors
(SWF field 8; the cleaning copies the allocated count, field 5, where the log
has none; one processor is one node), ret_j its runtime (field 4), rw_j its
requested time (field 9). Eligible: ``size_j <= max_size`` (it fits one
cluster) and ``runtime_min <= ret_j <= runtime_max``, bounds included, where
ret_j is read before or after the cleaning's ``runtime_above_request`` rule
(clip a runtime above the request to it) as the grid's ``pool_rule`` says
(:func:`pool_by_rule`): ``filter_then_clip`` (§5.1's order, "first remove
every job that does not fit our criteria", on the log's execution time t_j)
or ``clip_then_filter`` (the project's cleaning first). Seed
s picks ``jobs`` distinct positions of the pool
(``Generator(PCG64(SeedSequence([base_seed, s]))).choice``); every job is
released at 0 with walltime ``w_j = max(rw_j, ret_j * F_w)``, rounded up to a
whole second, in field 9 (where the engine reads the walltime). Each choice
and why: the README's interpretation choice 2 (``templates/README.md.j2``).
The paper's own generator and picks cannot be recovered: our workloads are
drawn the same way, not the same jobs.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from simlib.errors import ConfigError
from simlib.io import write_json, write_text
from simlib.workload.prepare import CleaningPolicy, clean, format_cleaning_log
from simlib.workload.swf import Workload, max_procs, read_swf, write_swf

__all__ = ["POOL_RULES", "generator", "eligible_jobs", "pool_by_rule", "compare_pool_rules",
           "pick_positions", "make_workload", "summarize", "eligible_step", "workload_step"]

#: The orders of §5.1's filter and the cleaning's runtime_above_request rule:
#: ``filter_then_clip`` filters on the log's runtime, then clips the pool's
#: runtimes to their requests (§5.1: "first remove every job that does not
#: fit our criteria"); ``clip_then_filter`` clips first (the cleaning applied
#: to the whole log), so a job whose logged runtime is above u_t but whose
#: request is within the bounds enters the pool.
POOL_RULES = ("filter_then_clip", "clip_then_filter")


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


def _runtime_above_request(pool: Workload, action: str) -> tuple[Workload, int]:
    """The cleaning's ``runtime_above_request`` rule applied to a pool (``clip``: the runtime
    becomes the request; ``drop``; ``keep``; ``error``): ``(pool, jobs it matched)``."""
    jobs = pool.jobs
    req, run = jobs["requested_time"], jobs["run_time"]
    over = ((req > 0) & (run > req)).to_numpy()
    n = int(over.sum())
    if n and action == "error":
        raise ConfigError(f"{n} eligible job(s) run past their requested time and the cleaning "
                          "rule runtime_above_request is set to 'error'")
    if action == "clip" and n:
        jobs = jobs.copy()
        jobs.loc[over, "run_time"] = jobs.loc[over, "requested_time"]
    elif action == "drop" and n:
        jobs = jobs[~over].reset_index(drop=True)
    return Workload(jobs, list(pool.header), pool.path), n


def pool_by_rule(raw: Workload, machine_procs: int, policy: CleaningPolicy, *, rule: str,
                 max_size: int, runtime_min: float, runtime_max: float
                 ) -> tuple[Workload, dict, dict]:
    """The pool of a raw log under a ``pool_rule`` (:data:`POOL_RULES`): ``(pool, cleaning
    counts, filter counts)``. ``filter_then_clip`` cleans the log with every rule of
    ``policy`` but ``runtime_above_request`` (kept), filters on the logged runtimes, then
    applies that rule to the pool; ``clip_then_filter`` cleans with the whole policy, then
    filters. Either way the filter counts' ``runtime_above_request`` is the number of
    eligible jobs whose logged runtime is above their request.
    """
    if rule not in POOL_RULES:
        raise ConfigError(f"pool_rule must be one of {list(POOL_RULES)}, not {rule!r}")
    bounds = {"max_size": max_size, "runtime_min": runtime_min, "runtime_max": runtime_max}
    if rule == "clip_then_filter":
        cleaned, cleaning = clean(raw, machine_procs, policy=policy)
        pool, counts = eligible_jobs(cleaned, **bounds)
        # The eligible jobs whose logged runtime is above their request.
        logged = raw.jobs
        over = logged["job_id"][(logged["requested_time"] > 0)
                                & (logged["run_time"] > logged["requested_time"])]
        counts["runtime_above_request"] = int(pool.jobs["job_id"].isin(over).sum())
        return pool, cleaning, counts
    kept = dataclasses.replace(policy, runtime_above_request="keep")
    cleaned, cleaning = clean(raw, machine_procs, policy=kept)
    pool, counts = eligible_jobs(cleaned, **bounds)
    pool, over = _runtime_above_request(pool, policy.runtime_above_request)
    counts["runtime_above_request"] = over
    counts["eligible"] = int(len(pool.jobs))
    return pool, cleaning, counts


def compare_pool_rules(pools: dict[str, Workload], rule: str,
                       clipped: dict[str, int] | None = None) -> dict:
    """What the other pool rule changes against ``rule``'s pool: per rule its ``pool_jobs``
    and (given) ``runtime_above_request`` (eligible jobs whose runtime was clipped);
    ``entering`` (jobs of the other pool not in ours), ``leaving`` (ours not in the other),
    ``runtime_changed`` (jobs of both whose runtime differs)."""
    other = next(r for r in pools if r != rule)
    mine = pools[rule].jobs.set_index("job_id")["run_time"]
    theirs = pools[other].jobs.set_index("job_id")["run_time"]
    both = mine.index.intersection(theirs.index)
    return {"rule": rule, "other": other,
            "pool_jobs": {r: int(len(p.jobs)) for r, p in pools.items()},
            "runtime_above_request": {r: int(c) for r, c in (clipped or {}).items()},
            "entering": int(len(theirs.index.difference(mine.index))),
            "leaving": int(len(mine.index.difference(theirs.index))),
            "runtime_changed": int((mine.loc[both] != theirs.loc[both]).sum())}


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
    """Step ``dutot_eligible``: the pool of eligible jobs of the whole cleaned log ``raw``
    under the ``pool_rule`` parameter (:func:`pool_by_rule`): ``swf``, ``cleaning_log`` and
    ``info`` (JSON: cleaning and filter counts, pool sizes, and ``pool_rules``: both rules'
    pool sizes and what the other rule changes, :func:`compare_pool_rules`)."""
    p = ctx.params
    raw = read_swf(ctx.input.raw, unsorted=p["unsorted"])
    policy = CleaningPolicy.from_mapping(p["cleaning"])
    rule = p.get("pool_rule", POOL_RULES[0])
    bounds = {"max_size": int(p["max_size"]), "runtime_min": float(p["runtime_min"]),
              "runtime_max": float(p["runtime_max"])}
    # Both rules' pools (the README states what the other one changes).
    results = {r: pool_by_rule(raw, int(p["machine_procs"]), policy, rule=r, **bounds)
               for r in sorted(POOL_RULES, key=lambda r: r != rule)}
    pool, cleaning, counts = results[rule]
    log = format_cleaning_log(p["trace"], cleaning, policy)
    if rule == "filter_then_clip":
        log += (f"paper D pool rule filter_then_clip: runtime_above_request applied after the "
                f"pool's filter, to {counts['runtime_above_request']} eligible jobs\n")
    write_text(ctx.output.cleaning_log, log)
    pool.header.append(f"; simlib: paper D pool ({rule}): size <= {p['max_size']}, "
                       f"{p['runtime_min']:g} s <= runtime <= {p['runtime_max']:g} s")
    write_swf(pool, ctx.output.swf)
    sizes = pool.jobs["requested_procs"].value_counts().sort_index()
    write_json({
        "trace": p["trace"], "machine_procs": int(p["machine_procs"]),
        "header_max_procs": max_procs(raw), "cleaning_counts": cleaning,
        "filter_counts": counts, "size_from_allocated": int(cleaning["size_from_allocated"]),
        "pool_rule": rule,
        "pool_rules": compare_pool_rules(
            {r: v[0] for r, v in results.items()}, rule,
            {r: v[2]["runtime_above_request"] for r, v in results.items()}),
        "pool_sizes": {str(int(k)): int(v) for k, v in sizes.items()}, **bounds}, ctx.output.info)
    ctx.log.info("%s: %d jobs cleaned, %d eligible under %s (%d too wide, %d too short, "
                 "%d too long); %s",
                 p["trace"], counts["jobs_in"], counts["eligible"], rule, counts["too_wide"],
                 counts["too_short"], counts["too_long"],
                 ", ".join(f"{r}: {len(v[0].jobs)}" for r, v in results.items()))


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
