"""Pipeline entry point: paper K's Fig. 2 (simulated) and Table III (from the registry).

Fig. 2: :func:`simlib.studies.kumar.fig2_example` run by LOS and
Delayed-LOS, drawn by :func:`simlib.figures.kumar.plot_fig2`; its schedules
as CSV. Table III: :func:`simlib.studies.kumar.algorithms_frame` beside the
published table (input ``published``), as CSV and Markdown.
"""

import pandas as pd

from _common import job_log, markdown_table
from simlib.io import write_csv, write_text
from simlib.figures.kumar import plot_fig2
from simlib.studies.kumar import fig2_example, load_published
from simlib.studies.kumar_report import algorithms_frame

TITLES = {"los": "(a) LOS: the head job starts at once",
          "delayed_los": "(b) Delayed-LOS (C_s = 7): the head is skipped"}


def main(snakemake):
    with job_log(snakemake) as log:
        schedules = fig2_example()
        for out in (snakemake.output.fig2_png, snakemake.output.fig2_svg):
            plot_fig2(schedules, out, titles=TITLES)
            log.info("wrote %s", out)
        rows = []
        for policy, df in schedules.items():
            for r in df.itertuples():
                rows.append({"policy": policy, "job_id": r.job_id,
                             "processors": r.requested_number_of_resources,
                             "start": r.starting_time, "end": r.finish_time,
                             "allocated_resources": r.allocated_resources})
        write_csv(pd.DataFrame(rows), snakemake.output.fig2_csv, index=False, lineterminator="\n")
        published = load_published(snakemake.input.published)
        table = algorithms_frame(published)
        write_csv(table, snakemake.output.table3_csv, index=False, lineterminator="\n")
        md = ["# Table III: list of all algorithms (generated from simlib.policies.POLICIES)", "",
              "`published`: paper name / workload / ECC processor as printed in Table III; "
              "`matches_published` compares it with the registry's class attributes "
              "(`heterogeneous`, `elastic`).", "", markdown_table(table, index=False)]
        write_text(snakemake.output.table3_md, "\n".join(md), encoding="utf-8")
        log.info("Table III: %d algorithms", len(table))


main(snakemake)  # noqa: F821
