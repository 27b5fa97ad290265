"""Tests of simlib.claims: verdict vocabulary, rules, claims files, CLAIMS.md, published files."""
import doctest

import pandas as pd
import pytest

import simlib.claims as claims_module
from simlib.claims import (CLAIM_COLUMNS, CLAIMS_FILE_COLUMNS, Claim, Verdict, apply_criteria,
                           claims_frame, claims_index, published_loader, read_claims,
                           read_published,
                           verdict_counts, verdict_from_hits, verdict_from_sign, write_claims)
from simlib.errors import ConfigError
from simlib.markdown import markdown_table


def test_vocabulary_is_closed():
    assert [v.value for v in Verdict] == ["reproduced", "partly reproduced", "not reproduced",
                                          "contradicted", "not testable here"]
    with pytest.raises(ValueError):
        Claim("U", "c", "s", "p", "o", "rule", "consistent")  # not a verdict word
    with pytest.raises(ValueError):
        Claim("U", "c", "s", "p", "o", "rule", "partly")  # paper U's old word


def test_rules_can_say_not_reproduced():
    assert verdict_from_hits(0, 5) is Verdict.NOT_REPRODUCED
    assert verdict_from_hits(0, 0) is Verdict.NOT_REPRODUCED  # nothing tested is no success
    assert verdict_from_sign(0, 4, 4) is Verdict.CONTRADICTED
    assert verdict_from_sign(2, 2, 4) is Verdict.PARTLY
    assert verdict_from_sign(0, 1, 2) is Verdict.NOT_REPRODUCED  # worse once, never better
    assert verdict_from_sign(0, 0, 0) is Verdict.NOT_REPRODUCED


def test_frame_and_counts():
    cs = [Claim("K", "a", "Fig. 1", "p", "o", "rule", Verdict.REPRODUCED, figure="f.png"),
          Claim("K", "b", "Fig. 2", "p", "o", "rule", "not testable here")]
    df = claims_frame(cs)
    assert tuple(df.columns) == CLAIM_COLUMNS
    assert df["verdict"].tolist() == ["reproduced", "not testable here"]
    assert verdict_counts(cs) == {"reproduced": 1, "not testable here": 1}
    # Words count the same as claims, in vocabulary order.
    assert list(verdict_counts(["contradicted", "reproduced", "contradicted"]).items()) == [
        ("reproduced", 1), ("contradicted", 2)]
    with pytest.raises(ValueError):
        verdict_counts(["mixed"])


def _crit_a(published, table):
    return Claim("X", f"a {published}", "s", "p", str(len(table)), "rule", "reproduced")


def _crit_b(published, other, label="main"):
    return Claim("X", f"b {label}", "s", "p", str(other), "rule", "not reproduced")


def test_apply_criteria_skips_missing_inputs_and_passes_options():
    got = apply_criteria([_crit_a, _crit_b], published=1, table=[1, 2], other=None)
    assert [c.claim for c in got] == ["a 1"]
    got = apply_criteria([_crit_a, _crit_b], published=1, other=3, label="ov0")
    assert [(c.claim, c.ours) for c in got] == [("b ov0", "3")]
    with pytest.raises(TypeError, match="no criterion reads tabel"):
        apply_criteria([_crit_a], published=1, tabel=[1])


def test_claims_file_round_trip_and_refusals(tmp_path):
    path = tmp_path / "claims.csv"
    cs = [Claim("U", "a, with comma", "Fig. 2", "1", "", "-", "reproduced"),
          Claim("U", "b", "Table 1", "2", "nan", "rule", "partly reproduced", reading="ov0")]
    written = write_claims(cs, path, scale="smoke")
    assert tuple(written.columns) == CLAIMS_FILE_COLUMNS
    back = read_claims(path)
    # Text comes back as written: empty stays empty, "nan" and "-" stay text.
    assert back.drop(columns="scale").to_dict("records") == [c.as_dict() for c in cs]
    assert path.read_bytes().count(b"\r") == 0
    path.write_text(path.read_text().replace("partly reproduced", "partly"))
    with pytest.raises(ValueError, match=r"claims.csv: row 2: verdict 'partly'"):
        read_claims(path)
    pd.DataFrame({"claim": ["a"], "verdict": ["reproduced"]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="columns"):
        read_claims(path)


def test_claims_index_one_table_and_counts(tmp_path):
    u, k = tmp_path / "U" / "claims.csv", tmp_path / "K" / "claims.csv"
    write_claims([Claim("U", "u1", "Fig. 2", "9 numbers", "9/9", "equal", "reproduced"),
                  Claim("U", "u2", "Table 1", "gains", "a|b", "signs", "partly reproduced")],
                 u, scale="smoke")
    write_claims([Claim("K", "k1", "Sect. V", "n", "not run", "none", "not testable here")],
                 k, scale="smoke")
    papers = [{"paper": "U", "title": "Paper U", "claims": u, "readme": tmp_path / "U/README.md"},
              {"paper": "K", "title": "Paper K", "claims": k, "readme": None}]
    text = claims_index(papers, scale="smoke", here=tmp_path, scale_description="CI")
    lines = text.splitlines()
    assert "Scale: **smoke** — CI." in lines
    head = ("| paper | title | reproduced | partly reproduced | not reproduced | contradicted "
            "| not testable here | total |")
    i = lines.index(head)
    assert lines[i + 1] == "|---|---|---:|---:|---:|---:|---:|---:|"
    assert lines[i + 2] == "| [U](U/README.md) | Paper U | 1 | 1 | 0 | 0 | 0 | 2 |"
    assert lines[i + 3] == "| K | Paper K | 0 | 0 | 0 | 0 | 1 | 1 |"
    assert lines[i + 4] == "| all |  | 1 | 1 | 0 | 0 | 1 | 3 |"
    j = lines.index("| paper | claim | source | published | ours | verdict | criterion |")
    assert lines[j + 2] == "| [U](U/README.md) | u1 | Fig. 2 | 9 numbers | 9/9 | reproduced | equal |"
    assert lines[j + 3].endswith("| a\\|b | partly reproduced | signs |")
    assert lines[j + 4] == "| K | k1 | Sect. V | n | not run | not testable here | none |"
    assert len(lines) == j + 5
    # A claims file of another scale (stale) or naming another paper is refused.
    with pytest.raises(ValueError, match="scale 'smoke', expected 'default'"):
        claims_index(papers, scale="default", here=tmp_path)
    with pytest.raises(ValueError, match="paper 'K', expected 'Z'"):
        claims_index([{**papers[1], "paper": "Z"}], scale="smoke", here=tmp_path)


def test_claims_render_through_the_one_renderer():
    df = claims_frame([Claim("K", "x | y", "s", "p", "line\nbreak", "c", "contradicted")])
    assert markdown_table(df, ["claim", "ours", "verdict"]).splitlines()[2] == (
        "| x \\| y | line break | contradicted |")


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
    path.write_text("t1: {source: s, values: {a: x}}\n")
    with pytest.raises(ConfigError, match=r"p.yaml: t1.values.a: 'x' is not of type 'number'"):
        read_published(path, schema)
    path.write_text("t1: [unclosed\n")
    with pytest.raises(ConfigError, match="cannot read published numbers"):
        read_published(path, schema)


def test_published_loader_reads_against_the_schema_beside_the_module(tmp_path):
    (tmp_path / "published.schema.json").write_text(
        '{"type": "object", "required": ["t1"], "properties": {"t1": {"type": "number"}}}')
    seen = []
    load = published_loader(tmp_path / "published.py", lambda data, path: seen.append(path))
    path = tmp_path / "p.yaml"
    path.write_text("t1: 2\n")
    assert load(path) == {"t1": 2} and seen == [path]   # the paper's check ran
    path.write_text("t1: x\n")
    with pytest.raises(ConfigError, match=r"p.yaml: t1: 'x' is not of type 'number'"):
        load(path)
    assert load.schema == tmp_path / "published.schema.json"


def test_claims_examples():
    assert doctest.testmod(claims_module).failed == 0
