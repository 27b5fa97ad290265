"""Paper Z's worked examples, Figs. 1 and 5, from small simulations (step ``zeng_examples``).

The jobs are ours (the README's interpretations): the examples are about
node usage, not time slicing, so medium slices take 90 % of an interval.

* :func:`fig5_group` -- §4.6's three-job group: primary Job 3, matched
  Jobs 1 and 2, each at two processes per node. G-LOMARC-TS forms the group
  by itself; Job 2 ends first, then Job 3, which disbands the group while
  Job 1 goes on. Formula 5 is evaluated on what the simulation measured
  (``T_g``: Job 3's running time; ``T_i``: the work each job did in the
  group, in seconds at one process per node without slowdown) and
  formula 6 on the jobs as the policy saw them when it formed the group
  (:func:`simlib.policies.glomarc_ts.utilization_gain`): they must agree.
* :func:`fig1_node_usage` -- §4.1's six jobs scheduled with space sharing
  (SSP) and with G-LOMARC-TS (GLTS) on the same nodes; Job 6 runs at 4
  processes per node under SSP (formula 8) and at 2 in its GLTS group. The
  node time each scheduler holds for the same work is the saving Fig. 1
  illustrates.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from simlib.claims import CONSISTENCY, Claim, Verdict
from simlib.engine.job import DONE, Job
from simlib.engine.simulator import Simulator
from simlib.figures.common import footer, new_figure, save_figure
from simlib.io import write_json, write_text
from simlib.policies import POLICIES, make_policy
from simlib.policies.glomarc_ts import Member, utilization_gain
from simlib.policies.scojo_pect import self_slowdown
from simlib.render import render

from .runs import RunningPeriods, machine
from .words import claim

__all__ = ["EXAMPLE_SHARES", "PairSlowdowns", "fig5_group", "fig1_node_usage", "node_time",
           "example_claims", "examples_step"]

#: Slice shares of the examples (medium, long): one medium slice holds every job.
EXAMPLE_SHARES = {"medium_share": 0.9, "long_share": 0.1}


class PairSlowdowns(dict):
    """``SL_cos`` of job ``a`` coscheduled with job ``b``, from a table by job ids; 1 elsewhere."""

    def __call__(self, a: int, b: int) -> float:
        return float(self.get((a, b), 1.0))


def _job(idx: int, label: int, procs: int, work: float, sl_scr: float, sl_sno: float,
         cos: PairSlowdowns) -> Job:
    job = Job(idx, label, 0.0, procs, float(work), float(work))
    job.features = {"sl_scr": sl_scr, "sl_sno": sl_sno, "sl_cos": cos}
    return job


def _simulate(jobs, policy: str, params: dict, nodes: int, variant: str | None = None):
    pol = make_policy(policy, **{**params, **EXAMPLE_SHARES, "non_type_backfilling": False,
                                 **({} if variant is None else {"variant": variant})})
    sim = Simulator(machine("multicore", nodes), jobs, pol, debug=True, record_timeline=False)
    periods = sim.observe(RunningPeriods(pol, window=(0.0, float("inf"))))
    return sim, pol, periods


# --------------------------------------------------------------------- Fig. 5
#: Fig. 5's jobs: label -> (processes, work T_i in s, SL_scr, SL_sno).
FIG5_JOBS = {3: (4, 700.0, 1.6, 1.05), 1: (2, 2000.0, 1.6, 1.05), 2: (2, 650.0, 1.6, 1.05)}
#: SL_cos of (job, partner).
FIG5_COS = {(3, 1): 1.05, (3, 2): 1.1, (1, 3): 1.05, (2, 3): 1.1}


def fig5_group(params: dict) -> dict:
    """Run Fig. 5's three jobs under G-LOMARC-TS on 2 nodes; formulas 5 and 6.

    Returns the group formed (primary and matched labels), each job's start,
    finish and running periods, ``T_g``, the ``T_i``, both gains and their
    difference.
    """
    cos = PairSlowdowns(FIG5_COS)
    jobs = [_job(i, label, *spec, cos) for i, (label, spec) in enumerate(FIG5_JOBS.items())]
    sim, pol, periods = _simulate(jobs, "glomarc_ts", params, nodes=2, variant="GLTS")
    seen = {}

    class Watch:  # the group each job starts in, and the work done when the primary ends
        def job_started(self, job, now):
            gid = pol.group_of.get(job.idx)
            seen[job.job_id] = None if gid is None else (
                jobs[pol.groups[gid][0]].job_id,
                tuple(sorted(jobs[i].job_id for i in pol.groups[gid][1])))

        def job_ended(self, job, now):
            if job.job_id == 3:
                seen["done_at_primary_end"] = {
                    j.job_id: float(j.work) if j is job or j.state == DONE
                    else float(sim.execution.work_done(j)) for j in jobs}

    sim.observe(Watch())
    sim.run()
    by = {j.job_id: j for j in jobs}
    group = seen.get(3)
    out = {"group": group, "segments": [list(r) for r in periods.rows],
           "jobs": {label: {"procs": j.procs, "work": j.work, "start": j.start, "finish": j.finish,
                            "running": periods.total.get(j.idx, 0.0)} for label, j in by.items()}}
    if group != (3, (1, 2)):
        out.update({"formula5": float("nan"), "formula6": float("nan"), "t_g": float("nan")})
        return out
    t_g = periods.total[by[3].idx]
    done = seen["done_at_primary_end"]
    s = {k: by[k].procs for k in by}
    # Formula 5 on the measurements (the N_cores factors cancel).
    f5 = (done[1] * s[1] + done[2] * s[2] + done[3] * s[3] - t_g * s[3] / 2) / (t_g * s[3] / 2)
    # Formula 6 on the jobs as the policy saw them when it formed the group.
    members = {k: Member(k, size=by[k].procs, work=by[k].work,
                         self_slowdown=self_slowdown(2, *FIG5_JOBS[k][2:]),
                         sl_cos={p: v for (a, p), v in FIG5_COS.items() if a == k})
               for k in by}
    run6 = utilization_gain(members[3], [members[1], members[2]])
    out.update({"t_g": t_g, "t_i": done, "formula5": f5, "formula6": run6.gain,
                "predicted_t_g": run6.t_total,
                "periods": [[t, list(keys)] for t, keys in run6.periods]})
    return out


# --------------------------------------------------------------------- Fig. 1
#: Fig. 1's jobs: label -> (processes, work in s, SL_scr, SL_sno). Job 6's
#: SL_scr x SL_sno <= MAX_SL, so formula 8 gives it 4 processes per node
#: under space sharing; G-LOMARC-TS matches it at 2.
FIG1_JOBS = {1: (4, 1500.0, 1.6, 1.05), 2: (2, 1400.0, 1.6, 1.05), 3: (2, 900.0, 1.6, 1.05),
             4: (4, 1200.0, 1.6, 1.05), 5: (4, 1000.0, 1.6, 1.05), 6: (4, 1400.0, 1.15, 1.0)}


def fig1_node_usage(params: dict, nodes: int = 4) -> dict:
    """Run Fig. 1's six jobs under SSP and under GLTS on ``nodes`` nodes.

    Per scheduler: each job's start, finish and running periods (cores),
    the node time held (nodes with a running process, integrated over
    time), the makespan, the groups formed and each job's processes per node.
    """
    out = {}
    for name, policy, variant in (("SSP", "scojo_pect", None), ("GLTS", "glomarc_ts", "GLTS")):
        cos = PairSlowdowns({})   # SL_cos = 1: the saving comes from the cores alone
        jobs = [_job(i, label, *spec, cos) for i, (label, spec) in enumerate(FIG1_JOBS.items())]
        p = params if variant else {k: v for k, v in params.items()
                                    if k in POLICIES["scojo_pect"].defaults}
        sim, pol, periods = _simulate(jobs, policy, p, nodes, variant)
        sim.run()
        segs = pd.DataFrame(periods.rows, columns=["job_id", "vm", "start", "end", "cores"])
        out[name] = {
            "segments": segs.values.tolist(), "node_time": node_time(segs, cores_per_node=4),
            "makespan": max(j.finish for j in jobs),
            "ppn": {j.job_id: int(pol.plan[j.idx][1]) for j in jobs},
            "groups": len(getattr(pol, "group_sizes", [])),
            "work": float(sum(j.work * j.procs for j in jobs))}
    out["saved"] = 1.0 - out["GLTS"]["node_time"] / out["SSP"]["node_time"]
    return out


def node_time(segs: pd.DataFrame, cores_per_node: int) -> float:
    """Node-seconds with at least one running process (a node shared by two jobs counts once)."""
    events = []
    for _, r in segs.iterrows():
        for c in {int(c) // cores_per_node for c in str(r["cores"]).split()}:
            events += [(r["start"], 1, c), (r["end"], -1, c)]
    events.sort()
    busy: dict[int, int] = {}
    total, last = 0.0, None
    for t, d, node in events:
        if last is not None:
            total += (t - last) * sum(1 for v in busy.values() if v > 0)
        busy[node] = busy.get(node, 0) + d
        last = t
    return total


# -------------------------------------------------------------------- verdicts
def example_claims(ex: dict) -> list[Claim]:
    """Formula 5 = formula 6 on Fig. 5's group; GLTS holds less node time than SSP on Fig. 1's jobs.

    Both are consistency checks (:data:`simlib.claims.CONSISTENCY`): our
    code against our own worked examples (the jobs are ours), which only a
    bug could fail; listed apart and not counted among the verdicts."""
    f5, f6 = ex["fig5"]["formula5"], ex["fig5"]["formula6"]
    ok5 = bool(np.isfinite(f5) and abs(f5 - f6) <= 1e-6 * max(1.0, abs(f6)))
    f1 = ex["fig1"]
    ok1 = f1["saved"] > 0 and f1["GLTS"]["groups"] > 0
    check = dict(kind=CONSISTENCY, unit="-", n=1)
    return [claim("fig5", Verdict.REPRODUCED if ok5 else Verdict.NOT_REPRODUCED, fig5=ex["fig5"],
                  formed=bool(np.isfinite(f5)), **check),
            claim("fig1", Verdict.REPRODUCED if ok1 else Verdict.NOT_REPRODUCED, fig1=f1, **check)]


# ---------------------------------------------------------------- the figures
def _gantt(ax, segs, title: str, cores: int, colors: dict) -> None:
    for job_id, _vm, start, end, cs in segs:
        for c in str(cs).split():
            ax.broken_barh([(start / 60, (end - start) / 60)], (int(c) % cores - 0.4, 0.8),
                           color=colors[int(job_id)])
        first = min(int(c) % cores for c in str(cs).split())  # on the job's own bar
        ax.text((start + end) / 120, first, f"Job {job_id}", ha="center", va="center",
                fontsize=6, color="white")
    for n in range(cores // 4 + 1):
        ax.axhline(n * 4 - 0.5, color="0.3", lw=0.8)
    ax.set_ylim(cores - 0.5, -0.5)
    ax.set_yticks(range(cores), [f"node {c // 4} core {c % 4}" for c in range(cores)], fontsize=6)
    ax.set_xlabel("time (min)", fontsize=8)
    ax.set_title(title, fontsize=9)


def _colors(labels) -> dict:
    from matplotlib import colormaps
    cmap = colormaps["tab10"]
    return {k: cmap(i % 10) for i, k in enumerate(sorted(labels))}


def fig5_figure(ex: dict, path: str, note: str) -> None:
    f5 = ex["fig5"]
    jobs = f5["jobs"]
    colors = _colors(int(k) for k in jobs)
    fig = new_figure(11, 3.8)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.4])
    # Left: each job alone at one process per node, no slowdown (nodes x T_i).
    y = 0.0
    for k in sorted(jobs, key=int):
        j = jobs[k]
        t_i = f5["t_i"][k] if "t_i" in f5 else j["work"]
        left.broken_barh([(0, t_i / 60)], (y, j["procs"]), color=colors[int(k)])
        left.text(t_i / 120, y + j["procs"] / 2, f"Job {k}: S={j['procs']}, T={t_i:.0f} s",
                  ha="center", va="center", fontsize=7)
        y += j["procs"]
    left.set_ylim(y, 0)
    left.set_xlabel("time (min)", fontsize=8)
    left.set_ylabel("nodes (one process per node)", fontsize=8)
    left.set_title("space sharing, no slowdown: the work done in the group", fontsize=9)
    _gantt(right, f5["segments"], "coscheduled (G-LOMARC-TS): Job 3 primary, Jobs 1-2 matched",
           8, colors)
    if np.isfinite(f5["formula5"]):
        right.axvline((jobs["3"]["start"] + f5["t_g"]) / 60, color="0.3", ls=":", lw=1)
        sub = (f"T_g = {f5['t_g']:.1f} s; U_gain by formula 5 (measured) {f5['formula5']:.4f}, "
               f"by formula 6 (policy) {f5['formula6']:.4f}")
    else:
        sub = f"the policy did not form Fig. 5's group (it formed {f5['group']})"
    fig.suptitle("Fig. 5 (ours): node usage of Jobs 1-3 without and with coscheduling\n" + sub,
                 fontsize=10)
    footer(fig, note)
    save_figure(fig, path)


def fig1_figure(ex: dict, path: str, note: str, nodes: int = 4) -> None:
    f1 = ex["fig1"]
    colors = _colors(int(s[0]) for s in f1["SSP"]["segments"])
    fig = new_figure(11, 4.2)
    axes = fig.subplots(1, 2, sharex=True)
    for ax, name in zip(axes, ("GLTS", "SSP")):
        r = f1[name]
        _gantt(ax, r["segments"], f"{'G-LOMARC-TS' if name == 'GLTS' else 'space sharing (SSP)'}"
               f"\nnode time {r['node_time'] / 60:.0f} node-min, makespan "
               f"{r['makespan'] / 60:.0f} min; Job 6 at PPN {r['ppn']['6']}", 4 * nodes, colors)
    fig.suptitle(f"Fig. 1 (ours): the same six jobs with and without coscheduling; "
                 f"{100 * f1['saved']:.1f} % node time saved", fontsize=10)
    footer(fig, note)
    save_figure(fig, path)


def examples_table(ex: dict) -> pd.DataFrame:
    """Every running period of the examples (their numbers as JSON: job ids as text)."""
    runs = [("1", name, ex["fig1"][name]) for name in ("SSP", "GLTS")]
    runs.append(("5", "GLTS", {**ex["fig5"], "ppn": {str(k): 2 for k in ex["fig5"]["jobs"]}}))
    return pd.DataFrame([{"figure": fig, "scheduler": name, "job": int(seg[0]), "start_s": seg[2],
                          "end_s": seg[3], "cores": seg[4], "ppn": r["ppn"][str(seg[0])]}
                         for fig, name, r in runs for seg in r["segments"]])


def examples_step(ctx) -> None:
    """Step ``zeng_examples``: Figs. 1 and 5, their numbers (JSON) and a table."""
    p, out = ctx.params, ctx.output
    ex = json.loads(json.dumps({"fig5": fig5_group(p["policy_params"]),
                                "fig1": fig1_node_usage(p["policy_params"])}))
    write_json(ex, out.json)
    note = ("small simulations (our jobs; paper Z prints none): Table 6 and §5.1's parameters, "
            "medium slices 90 % of an interval")
    fig5_figure(ex, out.fig5, note)
    fig1_figure(ex, out.fig1, note)
    write_text(out.md, render(__package__, "examples.md.j2", note=note, fig5_jobs=FIG5_JOBS,
                              fig5_cos=FIG5_COS, fig1_jobs=FIG1_JOBS, fig1=ex["fig1"],
                              fig5={"t_i": {}, "predicted_t_g": float("nan"), **ex["fig5"]},
                              table=examples_table(ex)))
