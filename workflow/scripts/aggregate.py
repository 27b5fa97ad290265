"""Pipeline entry point: build a study's netCDF cube from its run summaries.

Dims (policy, trace, load); one variable per metric of
:func:`simlib.metrics.summarize` plus per-point workload facts (offered load
reached, inter-arrival factor, jobs killed at their requested time); units
on every variable; provenance (simlib version, git commit, sha256 of the
study's config sub-tree) in the attributes.
"""
import json
from pathlib import Path

from _common import job_log, repo_root
from simlib.cube import build_cube, provenance, write_cube

DIMS = ["policy", "trace", "load"]

#: Per-run workload facts stored beside the metrics.
EXTRA = {
    "offered_load": ("1", "offered load reached",
                     "sum(size * runtime) / (CPUs * submit span) of the rescaled workload"),
    "interarrival_factor": ("1", "inter-arrival scale factor",
                            "factor multiplying the trace's inter-arrival times to reach the target load"),
    "jobs": ("1", "jobs simulated", "number of jobs in the run"),
    "jobs_killed": ("1", "jobs killed at their requested time",
                    "jobs whose runtime exceeded their request (overrun policy 'kill')"),
}


def main(snakemake):
    study = snakemake.wildcards.study
    with job_log(snakemake) as log:
        records, metric_names = [], None
        for path in snakemake.input.summaries:
            s = json.loads(Path(path).read_text())
            if metric_names is None:
                metric_names = list(s["metrics"])
            rec = {"policy": s["policy"], "trace": s["trace"], "load": float(s["load"])}
            rec.update({m: s["metrics"].get(m) for m in metric_names})
            rec.update({k: s[k] for k in EXTRA})
            records.append(rec)
        attrs = provenance(snakemake.params.subtree, repo_dir=repo_root(snakemake))
        attrs.update({
            "study": study,
            "scale": snakemake.wildcards.scale,
            "title": f"{study} study, {snakemake.wildcards.scale} scale",
            "config_subtree": json.dumps(snakemake.params.subtree, sort_keys=True),
            "tau_s": float(snakemake.params.subtree["simulation"]["tau"]),
            "load_method": "inter-arrival times multiplied by one factor per (trace, load)",
        })
        cube = build_cube(records, DIMS, metric_names + list(EXTRA), attrs=attrs, metric_info=EXTRA)
        write_cube(cube, snakemake.output.cube)
        log.info("cube %s: dims %s, variables %s", snakemake.output.cube, dict(cube.sizes),
                 list(cube.data_vars))


main(snakemake)  # noqa: F821
