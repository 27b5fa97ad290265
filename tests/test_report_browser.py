"""The smoke report as a browser shows it (issue 37).

Builds the smoke pipeline on the trace fixtures (baseline, papers U and K:
:mod:`helpers_pipeline` leaves D and Z out) and its ``snakemake --report``,
then loads report.html in headless Chromium. The report draws its pages
with JavaScript (React), so the page's rendered DOM is read with
``--dump-dom`` once the scripts have run (``--virtual-time-budget``).
Without Chromium the tests are skipped with the reason, except in CI
(``CI=true``), where ``.ci/run`` installs it and they must run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile

import pytest

from helpers_pipeline import REPO, snakemake

pytestmark = pytest.mark.pipeline

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
                None)
#: What a docutils failure leaves in a page (a caption or the front page).
ERROR_TEXT = ("Docutils System Messages", "ERROR/", "Unknown target name", "System Message")
#: Report categories of the fixture run (paper D and Z are left out there).
CATEGORIES = {"Baseline", "Utrera et al.", "Kumar et al.", "Traces", "Workloads", "Claims", "Index"}
PAPERS = {"Baseline": "baseline", "Utrera et al.": "utrera", "Kumar et al.": "kumar"}


@pytest.fixture(scope="module")
def chromium():
    if CHROMIUM is None:
        why = "Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {why}")
        pytest.skip(why)
    return CHROMIUM


@pytest.fixture(scope="module")
def report(tmp_path_factory, chromium):
    """The unzipped smoke report: (its folder, results, categories)."""
    wd = tmp_path_factory.mktemp("report")
    snakemake(wd, "--config", "scale=smoke")
    out = wd / "report.zip"
    snakemake(wd, "--report", out, "--report-stylesheet", REPO / "workflow/report/report.css",
              "--config", "scale=smoke")
    with zipfile.ZipFile(out) as zf:
        zf.extractall(wd / "unzipped")
    folder = wd / "unzipped" / "report"
    html = (folder / "report.html").read_text()

    def var(name):
        return json.loads(re.search(rf"^\s*var {name} = (\{{.*\}});\s*$", html, re.M).group(1))
    return folder, var("results"), var("categories")


def dom(chromium, url: str) -> str:
    """The DOM of ``url`` once its scripts have run, as headless Chromium renders it."""
    proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=10000", "--window-size=1280,800", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def visible_text(page: str) -> str:
    """The page's text without its scripts (which hold every caption as data)."""
    page = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_front_page_lists_every_category_without_errors(report, chromium):
    folder, _, categories = report
    assert set(categories) == CATEGORIES
    page = dom(chromium, (folder / "report.html").as_uri())
    text = visible_text(page)
    # Drawn by the scripts: the menu and the front page's links, one per category.
    for name in CATEGORIES:
        assert re.search(rf">\s*{re.escape(name)}\s*<", page.replace("&amp;", "&")), name
        assert f"app.showCategory('{name.replace(' ', '%20')}')" in page, name
    assert "simlib: four scheduling papers, reproduced" in text
    for bad in (*ERROR_TEXT, "shared/"):
        assert bad not in page, bad


def test_each_paper_shows_a_figure_and_a_table_inline(report, chromium):
    """Images and HTML are what the report shows inline: each paper has both,
    and every table, README and cube is an HTML page."""
    folder, results, categories = report
    for cat, key in PAPERS.items():
        subs = categories[cat]
        assert {"Figures", "Tables", "README" if key != "baseline" else "Figures"} <= set(subs), cat
        assert any(results[p]["mime_type"] == "image/png" for p in subs["Figures"]), cat
        assert all(results[p]["mime_type"] == "text/html" for p in subs["Tables"]), cat
    for path, res in results.items():
        assert res["mime_type"] in ("image/png", "image/svg+xml", "text/html"), path
        for bad in ERROR_TEXT:
            assert bad not in res["caption"], (path, res["caption"])
        assert "<strong>smoke</strong>" in res["caption"], path
    # A table page as the report's frame loads it: an HTML table, no error.
    table = folder / results["results/report/paper_figures/kumar/tables_iv_vii.md.html"]["data_uri"]
    page = dom(chromium, table.as_uri())
    assert page.count("<table>") >= 1 and "<td" in page and "download the file" in page
    readme = dom(chromium, (folder / results["results/report/paper_figures/utrera/README.md.html"]
                            ["data_uri"]).as_uri())
    assert "<h1>" in readme and "<table>" in readme and "<img " in readme

