"""The README and docs: every relative link points into the repository and
at a file that exists; the layout section names every top-level folder."""
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", REPO / "docs" / "adding_a_study.md",
        REPO / "docs" / "writing_a_policy.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_stay_in_the_repository_and_exist(doc):
    text = doc.read_text(encoding="utf-8")
    links = [m.group(1) for m in LINK.finditer(text)]
    assert links, f"{doc}: no links found (pattern broken?)"
    for link in links:
        assert "://" not in link, f"{doc}: link {link!r} leaves the repository"
        target = (doc.parent / link).resolve()
        assert target.is_relative_to(REPO), f"{doc}: link {link!r} leaves the repository"
        assert target.exists(), f"{doc}: link {link!r} points at nothing"


def test_layout_section_names_every_top_level_folder():
    try:
        files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True,
                               text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, cannot tell tracked folders: {exc}")
    folders = sorted({f.split("/", 1)[0] for f in files if "/" in f})
    text = (REPO / "README.md").read_text(encoding="utf-8")
    layout = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    missing = [d for d in folders if f"{d}/" not in layout and f"{d} " not in layout]
    assert folders and not missing, f"README layout section does not list: {missing}"
