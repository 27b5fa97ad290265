"""Paper K's published numbers (simlib.studies.kumar.published): reading
config/published/kumar.yaml, validated by its JSON schema and the checks a
schema cannot express."""
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


TEXT = PUBLISHED.read_text()


@pytest.mark.parametrize("text, message", [
    ("paper: x\n", "(top level): 'table3' is a required property"),
    (TEXT.replace("  source: \"Table III", "  sauce: \"Table III"),
     "table3: 'source' is a required property"),
    (TEXT.replace("      los: {utilization: 4.1, mean_wait: 31.88",
                  "      los: {utilization: 4.1, mean_wait: lots"),
     "tables.IV.values.los.mean_wait: 'lots' is not of type 'number'"),
    (TEXT.replace("  values: [7, 8]", "  values: [7.5, 8]"),
     "cs_optimum.values.0: 7.5 is not of type 'integer'"),
    (TEXT.replace('    easy: ["EASY", "Batch", "No"]', '    easy: ["EASY", "Batch"]'),
     "table3.values.easy: ['EASY', 'Batch'] is too short"),
    (TEXT.replace("  VII:\n", "  VIII:\n"), "tables: 'VII' is a required property"),
    # Beyond the schema: the policy registry, and the abstract copying Tables IV-V.
    (TEXT.replace("    new: delayed_los\n", "    new: delayed\n"),
     "tables.IV.new: not a registered policy"),
    (TEXT.replace('    los: ["LOS", "Batch", "No"]', '    lox: ["LOS", "Batch", "No"]'),
     "table3.values.lox: not a registered policy"),
    (TEXT.replace("    hybrid_los: {utilization: 4.55, mean_wait: 25.31",
                  "    hybrid_los: {utilization: 4.55, mean_wait: 25.0"),
     "headline.values.hybrid_los: differs from tables.V.values.los_d"),
    ("[1, 2", "cannot read published numbers"),
])
def test_load_published_names_file_and_key(tmp_path, text, message):
    p = tmp_path / "k.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_published(p)
    assert message in str(err.value) and str(err.value).startswith(f"{p}: ")
