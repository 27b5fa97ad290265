"""Tests of simlib.claims: verdict vocabulary, rules, one renderer, published files."""
import pandas as pd
import pytest

from simlib.claims import (CLAIM_COLUMNS, Claim, Verdict, claims_frame, format_cell,
                           markdown_table, read_published, verdict_counts, verdict_from_hits,
                           verdict_from_sign)
from simlib.errors import ConfigError


def test_vocabulary_is_closed():
    assert [v.value for v in Verdict] == ["reproduced", "partly reproduced", "not reproduced",
                                          "contradicted", "not testable here"]
    with pytest.raises(ValueError):
        Claim("U", "c", "s", "p", "o", "rule", "consistent")  # not a verdict word


def test_rules_can_say_not_reproduced():
    assert verdict_from_hits(0, 5) is Verdict.NOT_REPRODUCED
    assert verdict_from_hits(0, 0) is Verdict.NOT_REPRODUCED  # nothing tested is no success
    assert verdict_from_sign(0, 4, 4) is Verdict.CONTRADICTED
    assert verdict_from_sign(2, 2, 4) is Verdict.PARTLY


def test_frame_and_counts():
    cs = [Claim("K", "a", "Fig. 1", "p", "o", "rule", Verdict.REPRODUCED, figure="f.png"),
          Claim("K", "b", "Fig. 2", "p", "o", "rule", "not testable here")]
    df = claims_frame(cs)
    assert tuple(df.columns) == CLAIM_COLUMNS
    assert df["verdict"].tolist() == ["reproduced", "not testable here"]
    assert verdict_counts(cs) == {"reproduced": 1, "not testable here": 1}


def test_markdown_table_escapes_and_aligns():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.23456, float("nan")], "n": [3, 4]})
    text = markdown_table(df, ["name", "x", "n"], digits=3)
    assert text.splitlines() == ["| name | x | n |", "|---|---:|---:|",
                                 "| a\\|b | 1.23 | 3 |", "| c | - | 4 |"]
    assert format_cell(1e20) == "1e+20"


def test_read_published_names_file_and_key(tmp_path):
    path = tmp_path / "p.yaml"
    schema = {"type": "object", "required": ["t1"], "properties": {"t1": {
        "type": "object", "required": ["source"],
        "properties": {"source": {"type": "string"},
                       "values": {"type": "object",
                                  "additionalProperties": {"type": "number"}}}}}}
    path.write_text("t1: {source: 'Table 1', values: {0.3: 1.5}}\n")
    assert read_published(path, schema)["t1"]["values"][0.3] == 1.5  # YAML keys kept
    path.write_text("t1: {values: {a: 1}}\n")
    with pytest.raises(ConfigError, match=r"p.yaml: t1: 'source' is a required property"):
        read_published(path, schema)
    path.write_text("t1: [unclosed\n")
    with pytest.raises(ConfigError, match="cannot read published numbers"):
        read_published(path, schema)
