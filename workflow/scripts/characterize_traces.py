"""Pipeline entry point: the trace characterization table (CSV + Markdown).

One row per trace for the whole cleaned trace, and one for the subset the
current scale simulates (before load rescaling).
"""
import json
from pathlib import Path

from _common import job_log
from simlib.markdown import markdown_table
from simlib.io import write_csv, write_text
from simlib.workload.prepare import characterization_table


def main(snakemake):
    with job_log(snakemake) as log:
        rows = {}
        for trace, path in zip(snakemake.params.traces, snakemake.input.info):
            info = json.loads(Path(path).read_text())
            for part in ("cleaned", "subset"):
                row = {k: (float("nan") if v is None else v)
                       for k, v in info["characterization"][part].items()}
                row["trace"] = trace
                row["part"] = "whole cleaned trace" if part == "cleaned" else f"{info['scale']} subset"
                rows[f"{trace} ({part})"] = row
        table = characterization_table(rows)
        # Identify rows by (trace, part) first; the workload label is the index.
        front = ["trace", "part"]
        table = table[front + [c for c in table.columns if c not in front]]
        write_csv(table, snakemake.output.csv, lineterminator="\n")
        scale = snakemake.params.scale
        md = [
            "# Trace characterization",
            "",
            f"Scale: **{scale}**. Per trace: the whole cleaned trace, and the subset simulated at "
            f"this scale (before load rescaling). Offered load = sum(size x runtime) / "
            f"(machine CPUs x submit span); cpu_util_mean = mean of field 6 / field 4 where both are "
            f"present; req_cpus_ratio = mean requested CPUs / machine CPUs; runtimes in seconds.",
            "",
            markdown_table(table.drop(columns=["trace", "part"]).T.rename_axis("quantity"),
                           index=True),
        ]
        write_text(snakemake.output.md, "\n".join(md), encoding="utf-8")
        log.info("wrote %d rows", len(table))


main(snakemake)  # noqa: F821
