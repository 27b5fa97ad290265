"""Pipeline entry point: the report's HTML renderings and captions
(simlib.report_pages), one of each artifact, under results/report/."""
import csv
from pathlib import Path

from _common import job_log
from simlib.io import write_text
from simlib.report_pages import RENDERED, caption_rst, page_html, rendered_path


def main(snakemake):
    p = snakemake.params
    claims = {paper: list(csv.DictReader(Path(path).read_text(encoding="utf-8").splitlines()))
              for paper, path in p.claims.items()}
    root = Path.cwd()
    with job_log(snakemake) as log:
        for entry, caption in zip(p.entries, snakemake.output.captions):
            path = entry["path"]
            if Path(path).suffix in RENDERED:
                write_text(rendered_path(path), page_html(entry, root, p.scale))
            write_text(caption, caption_rst(
                entry, rule=p.made["rules"][path], scale=p.scale,
                scale_description=p.scale_description, family=p.made["families"][path],
                study=p.studies.get(entry["section"], ""), claims=claims.get(entry["section"], [])))
        log.info("wrote the report's pages of %d artifacts", len(p.entries))


main(snakemake)  # noqa: F821
