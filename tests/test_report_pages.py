"""simlib.report_pages: the report's HTML renderings and captions of the artifacts."""
from __future__ import annotations

from simlib.report_pages import (artifact_claims, caption_rst, csv_html, markdown_html,
                                 rendered_path, rst_text)

README = """# Paper X

Some *text* with `code` and **bold**.

- one item
- another, see [the table](tables/t1.md)

| policy | mean wait |
| --- | ---: |
| easy | 12.5 |

![figure](fig.png)
"""


def test_markdown_renders_headings_lists_tables_and_repository_links(tmp_path):
    (tmp_path / "paper_figures" / "x").mkdir(parents=True)
    (tmp_path / "paper_figures" / "x" / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    out = markdown_html(README, base="paper_figures/x", root=tmp_path)
    assert "<h1>Paper X</h1>" in out
    assert "<em>text</em>" in out and "<code>code</code>" in out and "<strong>bold</strong>" in out
    assert out.count("<li>") == 2
    # A relative link cannot be opened from the report: its repository path is shown.
    assert "<code>paper_figures/x/tables/t1.md</code>" in out and 'href="tables' not in out
    assert '<th style="text-align:right">mean wait</th>' in out
    assert '<td style="text-align:right">12.5</td>' in out
    assert '<img src="data:image/png;base64,' in out


def test_a_missing_image_is_named_not_broken():
    out = markdown_html("![f](nowhere.png)\n", base="p", root=None)
    assert "<img" not in out and "p/nowhere.png" in out


def test_csv_becomes_a_table_with_escaped_cells():
    out = csv_html("policy,wait\n<easy>,1.5\n")
    assert "<th>policy</th>" in out and "&lt;easy&gt;" in out
    assert '<td style="text-align:right">1.5</td>' in out
    assert csv_html("") == "<p>(empty table)</p>\n"


def test_a_caption_names_the_rule_the_scale_and_the_verdicts_on_the_artifact():
    claims = [{"figure": "fig3.png", "verdict": "reproduced"},
              {"figure": "fig3", "verdict": "not reproduced"}, {"figure": "t2", "verdict": "x"}]
    assert len(artifact_claims("paper_figures/u/fig3.png", claims)) == 2
    text = caption_rst({"path": "paper_figures/u/fig3.png", "title": "Fig. 3: *waits*"},
                       rule="utrera_figures_traces", scale="smoke", scale_description="CI scale",
                       family="figure", study="Paper U", claims=claims)
    assert text.startswith("{% raw %}") and text.rstrip().endswith("{% endraw %}")
    for word in ("utrera_figures_traces", "smoke", "reproduced", "not reproduced", r"\*waits\*"):
        assert word in text
    assert rst_text("a_b*c") == r"a\_b\*c"
    assert rendered_path("paper_figures/u/t.md") == "results/report/paper_figures/u/t.md.html"
