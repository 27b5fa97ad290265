"""Pipeline entry point: paper_figures/CLAIMS.md, every paper's claims in one table.

Reads the claims file of each study that declares one (``Study.claims_file``)
and renders them with :func:`simlib.claims.claims_index`; knows no paper. At
full scale the index is CLAIMS.full.md and each paper's claims file is also
kept as claims.full.csv, so both scales' verdicts can be committed.
"""
import shutil
from pathlib import Path

from _common import job_log
from simlib.claims import claims_index, verdict_changes
from simlib.io import atomic_path, write_text


def main(snakemake):
    p = snakemake.params
    out = Path(snakemake.output[0])
    with job_log(snakemake) as log:
        text = claims_index(p.papers, scale=p.scale, here=out.parent,
                            scale_description=p.scale_description,
                            changes=verdict_changes(snakemake.input.changes))
        write_text(out, text, encoding="utf-8")
        for paper, copy in zip(p.papers, snakemake.output[1:]):
            with atomic_path(copy) as tmp:
                shutil.copyfile(paper["claims"], tmp)
        log.info("claims of %s", ", ".join(x["paper"] for x in p.papers))


main(snakemake)  # noqa: F821
