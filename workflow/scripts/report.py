"""Pipeline entry point: paper_figures/README.md, the index of every artifact
(simlib.markdown.artifact_index)."""
from pathlib import Path

from _common import job_log
from simlib.io import write_text
from simlib.markdown import artifact_index


def main(snakemake):
    p = snakemake.params
    out = Path(snakemake.output[0])
    with job_log(snakemake) as log:
        text = artifact_index(p.artifacts, index_dir=str(out.parent), scale=p.scale,
                              scale_description=p.scale_description, sections=p.studies)
        write_text(out, text, encoding="utf-8")
        log.info("indexed %d artifacts", len(p.artifacts))


main(snakemake)  # noqa: F821
