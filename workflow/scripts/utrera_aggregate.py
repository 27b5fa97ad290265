"""Pipeline entry point: one of paper U's netCDF cubes.

``fig2``: dims (policy); ``table1``: (policy, load, seed); ``traces``:
(trace, policy, seed); ``long_util``: (policy, long_util, seed). One
variable per metric of :func:`simlib.studies.utrera.run_metrics`, units on
each, provenance in the attributes. Runs of a policy that draws nothing
(EASY on a fixed workload) were simulated once; their values stand for
every seed (attribute ``seed_independent_policies``).
"""
import json
from pathlib import Path

from _common import job_log, repo_root
from simlib.cube import build_cube, provenance, write_cube
from simlib.studies.utrera import METRIC_INFO, RUN_METRICS

DIMS = {"table1": ["policy", "load", "seed"], "traces": ["trace", "policy", "seed"],
        "long_util": ["policy", "long_util", "seed"], "fig2": ["policy"]}

EXTRA_INFO = {**METRIC_INFO, "long_util": ("1", "long jobs' CPU utilization", "")}


def main(snakemake):
    part = snakemake.wildcards.part
    scale = snakemake.wildcards.scale
    with job_log(snakemake) as log:
        metrics = list(RUN_METRICS) + (["offered_load"] if part != "fig2" else [])
        records, fixed = [], set()
        for path in snakemake.input.summaries:
            s = json.loads(Path(path).read_text())
            if part == "fig2":
                for policy, d in s["policies"].items():
                    records.append({"policy": policy, **{m: d["metrics"].get(m) for m in metrics}})
                continue
            for run in s["runs"]:
                # Coordinates: the run's own (trace, load, long_util, policy label),
                # else the chunk's policy.
                base = {d: run.get(d, s["policy"]) if d == "policy" else run[d]
                        for d in DIMS[part] if d != "seed"}
                values = {m: run["metrics"].get(m) for m in metrics}
                if run["seed"] is None:
                    fixed.add(base["policy"])
                    seeds = snakemake.params.seeds
                else:
                    seeds = [run["seed"]]
                for seed in seeds:
                    records.append({**base, "seed": int(seed), **values})
        attrs = provenance(snakemake.params.subtree, repo_dir=repo_root(snakemake))
        attrs.update({
            "study": "utrera",
            "part": part,
            "scale": scale,
            "title": f"paper U (Utrera et al.), {part}, {scale} scale",
            "config_subtree": json.dumps(snakemake.params.subtree, sort_keys=True),
            "tau_s": float(snakemake.params.subtree["simulation"]["tau"]),
            "seed_independent_policies": ", ".join(sorted(fixed)),
            "seed_note": ("seed = index of the OV draw of fcfs_malleable (and of the Lublin "
                          "workload in table1); policies in seed_independent_policies were "
                          "simulated once and repeated along seed"),
        })
        cube = build_cube(records, DIMS[part], metrics, attrs=attrs, metric_info=EXTRA_INFO)
        if "long_util" in cube.coords:
            cube["long_util"].attrs.update(long_name="long jobs' CPU utilization", units="1")
        write_cube(cube, snakemake.output.cube)
        log.info("cube %s: dims %s", snakemake.output.cube, dict(cube.sizes))


main(snakemake)  # noqa: F821
