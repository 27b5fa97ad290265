"""Pipeline entry point: simulate one policy on one set of paper K's workloads.

``params.spec`` is :meth:`simlib.studies.kumar.KumarPlan.simulation_spec`
(its ``cs`` is a list for the C_s sweep, ``"pick"`` when the C_s comes from
the pipeline's pick, input ``picks``). Outputs: ``summary`` (JSON: the spec
and one record of metrics per run) and ``jobs`` (gzip CSV: every run's
per-job table in Batsim's jobs.csv columns, after ``load, seed, cs``).
"""
import json
import time
from pathlib import Path

from _common import job_log, write_json
from simlib.io import write_csv
from simlib.studies.kumar import simulate_set


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        picks = None
        if "picks" in snakemake.input.keys():
            picks = json.loads(Path(snakemake.input.picks).read_text(encoding="utf-8"))
        t0 = time.perf_counter()
        records, jobs = simulate_set(p.spec, snakemake.input.workloads, picks=picks,
                                     overrun=p.simulation["overrun"], tau=p.simulation["tau"],
                                     debug=bool(snakemake.config["simulation"].get("debug", False)),
                                     log=log)
        log.info("%d runs in %.1f s", len(records), time.perf_counter() - t0)
        write_csv(jobs, snakemake.output.jobs, index=False, lineterminator="\n",
                  compression={"method": "gzip", "mtime": 0})
        write_json({"spec": p.spec, "simulation": p.simulation, "records": records},
                   snakemake.output.summary)


main(snakemake)  # noqa: F821
