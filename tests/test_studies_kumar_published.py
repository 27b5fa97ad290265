"""Paper K's published numbers (simlib.studies.kumar.published): reading and
checking config/published/kumar.yaml."""
from __future__ import annotations

from pathlib import Path

import pytest

from simlib.errors import ConfigError
from simlib.studies.kumar.published import load_published

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "config/published/kumar.yaml"


def published():
    return load_published(PUBLISHED)


def test_load_published_reads_the_repository_file():
    pub = published()
    assert pub["tables"]["IV"]["values"]["los"]["mean_wait"] == 31.88
    assert pub["tables"]["VII"]["new"] == "hybrid_los_e"
    assert pub["cs_optimum"]["values"] == [7, 8]
    assert len(pub["table3"]["values"]) == 12


@pytest.mark.parametrize("text, message", [
    ("paper: x\n", "key 'table3' missing"),
    (PUBLISHED.read_text().replace("  source: \"Table III", "  sauce: \"Table III"),
     "table3.source missing"),
    (PUBLISHED.read_text().replace("mean_wait: 31.88", "mean_wait: lots"),
     "tables.IV.values.los.mean_wait must be a number"),
    (PUBLISHED.read_text().replace("    new: delayed_los\n", "    new: delayed\n"),
     "tables.IV.new: not a registered policy"),
    ("[1, 2", "cannot read published numbers"),
])
def test_load_published_names_the_bad_key(tmp_path, text, message):
    p = tmp_path / "k.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_published(p)
    assert message in str(err.value) and str(p) in str(err.value)
