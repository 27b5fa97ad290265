"""Pipeline entry point: paper U's Fig. 2 toy example, simulated.

Runs the hand-made jobs under each policy, recording every job's CPU set
over time (the Gantt charts) and the example's metrics: average response,
average slowdown (formula 1) and fragmentation (formula 2), plus the
average MPL. Output: one JSON with, per policy, the segments and metrics.
"""
from _common import job_log, write_json
from simlib.studies.utrera import run_metrics, simulate_with_allocations
from simlib.workload.utrera import toy_workload


def main(snakemake):
    p = snakemake.params
    fig2 = p.fig2
    with job_log(snakemake) as log:
        wl = toy_workload(fig2["jobs"], name="paper U Fig. 2")
        out = {"cpus": fig2["cpus"], "jobs": fig2["jobs"], "policies": {}}
        for policy in p.policies:
            params = ({**p.malleable, **(fig2.get("malleable_params") or {})}
                      if policy == "fcfs_malleable" else {})
            res, seg = simulate_with_allocations(wl, policy, cpus=fig2["cpus"], policy_params=params,
                                                 overrun=p.simulation["overrun"], workload_name="fig2")
            metrics = run_metrics(res, tau=p.simulation["tau"])
            log.info("%s: %s", policy, {k: metrics[k] for k in
                                        ("mean_response", "utrera_slowdown", "utrera_fragmentation")})
            out["policies"][policy] = {
                "params": params,
                "metrics": metrics,
                "segments": [{**r, "cpu_ids": list(r["cpu_ids"])}
                             for r in seg.to_dict("records")],
            }
        write_json(out, snakemake.output.schedules)


main(snakemake)  # noqa: F821
