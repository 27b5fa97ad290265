"""Pipeline entry point: paper_figures/K/README.md.

Every artifact of paper K with published vs reproduced numbers and a verdict
per claim (:func:`simlib.studies.kumar.render_readme`), from the tables
rule's CSVs, the C_s picks and the published numbers.
"""
import json
from pathlib import Path

import pandas as pd

from _common import job_log
from simlib.io import write_text
from simlib.studies.kumar import KumarPlan, artifact_list, fig2_example, load_published
from simlib.cube import read_cube
from simlib.studies.kumar_report import algorithms_frame, dedicated_frame, render_readme


def main(snakemake):
    p = snakemake.params
    plan = KumarPlan.from_config({"scale": p.scale, "studies": {"kumar": p.study}})
    inp = snakemake.input
    with job_log(snakemake) as log:
        published = load_published(inp.published)
        picks = pd.DataFrame(json.loads(Path(inp.picks).read_text(encoding="utf-8"))["table"])
        tables = pd.read_csv(inp.tables_csv)
        claims_df = pd.read_csv(inp.claims_csv, keep_default_na=False).drop(columns=["scale"])
        nbar = pd.read_csv(inp.n_bar_csv)
        text = render_readme(plan=plan, artifacts=artifact_list(plan), n_bar=nbar, picks=picks,
                             tables=tables, claims_df=claims_df,
                             algorithms=algorithms_frame(published), published=published,
                             fig2=fig2_example(), fig1_scale=p.fig1_scale, cubes=p.cubes,
                             dedicated=dedicated_frame(read_cube(inp.load_cube)))
        write_text(snakemake.output[0], text, encoding="utf-8")
        log.info("wrote %s (%d claims)", snakemake.output[0], len(claims_df))


main(snakemake)  # noqa: F821
