"""Tests of simlib.studies.utrera.readme: paper_figures/utrera/README.md."""
from pathlib import Path

from simlib.studies.utrera import readme
from simlib.studies.utrera.readme import DISCUSSION, INTERPRETATION, SECTIONS, md_file


def test_md_file_drops_the_title_and_nests_the_headings(tmp_path):
    f = tmp_path / "t.md"
    f.write_text("# Title\n\nIntro.\n\n| a |\n|---:|\n| 1 |\n\n## Gains\n\n| b |\n", encoding="utf-8")
    assert md_file(f) == "Intro.\n\n| a |\n|---:|\n| 1 |\n\n#### Gains\n\n| b |\n"


def test_links_inside_and_outside_paper_figures():
    here = Path("paper_figures/utrera")
    assert readme._link("paper_figures/utrera/fig3.png", here) == "[`fig3.png`](fig3.png)"
    assert readme._link("results/utrera_traces.smoke.nc", here) == (
        "[`results/utrera_traces.smoke.nc`](../../results/utrera_traces.smoke.nc)"
        " (built by the pipeline, not committed)")


def test_every_section_names_artifacts_of_the_study():
    from simlib.studies.utrera import _ARTIFACTS
    names = {name for name, _ in _ARTIFACTS}
    for title, pngs, md in SECTIONS:
        assert set(pngs) <= names, title
        assert md is None or md in names, title
    # The README's own sections, in the order the tests and readers rely on.
    assert INTERPRETATION.startswith("## Interpretation choices\n")
    assert DISCUSSION.startswith("## Why (discussion of the verdicts)\n")
    assert "J6 starts expanded" in INTERPRETATION


def test_verdict_table_renders_the_claims_file(tmp_path):
    from simlib.claims import Claim, read_claims, write_claims
    path = tmp_path / "claims.csv"
    write_claims([Claim("U", "Fig. 2: nine numbers", "Sect. 3.1", "9 numbers", "9/9 equal",
                        "truncated |x| equal", "reproduced"),
                  Claim("U", "Table 3: MPL", "Table 3", "6 numbers", "1.2 vs 1.47",
                        "within 0.1", "partly reproduced")], path, scale="smoke")
    lines = readme._verdict_table(read_claims(path), {"ov0": {"Table 3: MPL": "reproduced"}})
    assert lines == [
        "| # | claim (source) | published | ours | verdict | rule | if ov0 |",
        "|---:|---|---|---|---|---|---|",
        "| 1 | Fig. 2: nine numbers (Sect. 3.1) | 9 numbers | 9/9 equal | **reproduced** | "
        "truncated \\|x\\| equal | – |",
        "| 2 | Table 3: MPL (Table 3) | 6 numbers | 1.2 vs 1.47 | **partly reproduced** | "
        "within 0.1 | reproduced |"]
