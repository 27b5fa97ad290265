"""Tests of simlib.claims: verdict vocabulary, rules, claims files, CLAIMS.md, published files."""
import doctest

import pandas as pd
import pytest

import simlib.claims as claims_module
import numpy as np
import xarray as xr

from simlib.claims import (CLAIM_COLUMNS, CLAIMS_FILE_COLUMNS, CONSISTENCY, MIN_UNITS, Claim,
                           Verdict, apply_criteria, claims_frame, claims_index, combine_cases,
                           paired_evidence, per_unit, published_loader, read_claims,
                           read_published, value_verdict, verdict_changes, verdict_counts,
                           verdict_from_hits, verdict_from_sign, write_claims)
from simlib.errors import ConfigError
from simlib.markdown import markdown_table


def test_vocabulary_is_closed():
    assert [v.value for v in Verdict] == ["reproduced", "partly reproduced", "not reproduced",
                                          "contradicted", "inconclusive", "not testable here"]
    with pytest.raises(ValueError):
        Claim("U", "c", "s", "p", "o", "rule", "consistent")  # not a verdict word
    with pytest.raises(ValueError):
        Claim("U", "c", "s", "p", "o", "rule", "partly")  # paper U's old word


def test_rules_can_say_not_reproduced():
    assert verdict_from_hits(0, 5) is Verdict.NOT_REPRODUCED
    assert verdict_from_hits(0, 0) is Verdict.NOT_REPRODUCED  # nothing tested is no success
    assert verdict_from_sign(0, 4, 4) is Verdict.CONTRADICTED
    assert verdict_from_sign(0, 1, 2) is Verdict.NOT_REPRODUCED  # worse once, never better
    assert verdict_from_sign(0, 0, 0) is Verdict.NOT_REPRODUCED


def test_partly_is_a_majority_of_the_stated_cases():
    # One definition for every paper: more than half of the cases hold.
    assert verdict_from_hits(3, 5) is Verdict.PARTLY
    assert verdict_from_hits(2, 4) is Verdict.NOT_REPRODUCED  # half is no majority
    assert verdict_from_hits(1, 5) is Verdict.NOT_REPRODUCED  # one case is not "partly"
    assert verdict_from_sign(2, 2, 4) is Verdict.NOT_REPRODUCED
    assert combine_cases(["reproduced", "reproduced", "not reproduced"]) is Verdict.PARTLY
    assert combine_cases(["reproduced", "partly reproduced"]) is Verdict.NOT_REPRODUCED
    # Undecided cases that could make a majority leave the claim undecided.
    assert verdict_from_hits(1, 4, undecided=2) is Verdict.INCONCLUSIVE
    assert verdict_from_hits(1, 4, undecided=1) is Verdict.NOT_REPRODUCED


def test_correlated_pairs_pass_where_independent_units_do_not():
    # Two workloads (seeds), each run at 12 F_comm values: within a seed the
    # 12 runs share the jobs, so they are one unit, not 12.
    rng = np.random.default_rng(0)
    gain = np.array([[0.05], [0.03]]) + rng.normal(0, 0.002, (2, 12))
    runs = xr.DataArray(gain, dims=("seed", "f_comm"))
    as_pairs = paired_evidence(runs.values.ravel(), test="sign")
    assert as_pairs.verdict is Verdict.REPRODUCED and as_pairs.n == 24  # 24/24 "pairs"
    by_unit = paired_evidence(per_unit(runs, "seed").values, test="sign")
    assert by_unit.n == 2 and by_unit.verdict is Verdict.INCONCLUSIVE
    # With enough independent seeds the same effect is decided.
    many = xr.DataArray(0.04 + rng.normal(0, 0.01, (8, 12)), dims=("seed", "f_comm"))
    assert paired_evidence(per_unit(many, "seed").values, test="sign").verdict is (
        Verdict.REPRODUCED)


def test_underpowered_comparison_is_inconclusive_not_reproduced():
    noisy = [0.03, -0.02, 0.05]  # 3 units, not significant
    assert paired_evidence(noisy).verdict is Verdict.INCONCLUSIVE
    # The same spread over MIN_UNITS units, still not significant: decided.
    flat = np.tile([0.03, -0.03], MIN_UNITS // 2)
    assert paired_evidence(flat).verdict is Verdict.NOT_REPRODUCED
    # A tight interval that excludes the minimum effect decides even on few units.
    tiny = [0.001, -0.001, 0.0005, -0.0005]
    assert paired_evidence(tiny, min_effect=0.05).verdict is Verdict.NOT_REPRODUCED
    # A sign test on 5 units cannot reach p < 0.05 even with 5/5.
    assert paired_evidence([1, 2, 3, 4, 5], test="sign").verdict is Verdict.INCONCLUSIVE
    assert paired_evidence([1, 2, 3, 4, 5, 6], test="sign").verdict is Verdict.REPRODUCED


def test_minimum_effect_and_contradiction():
    small = [0.004, 0.005, 0.003, 0.004, 0.006, 0.005]  # significant, 0.45 %
    assert paired_evidence(small).verdict is Verdict.REPRODUCED
    assert paired_evidence(small, min_effect=0.01).verdict is Verdict.NOT_REPRODUCED
    opposite = [-x * 10 for x in small]
    assert paired_evidence(opposite, min_effect=0.01).verdict is Verdict.CONTRADICTED
    assert paired_evidence([-x for x in small], min_effect=0.01).verdict is (
        Verdict.NOT_REPRODUCED)  # opposite, but smaller than the effect that counts
    e = paired_evidence(small)
    assert e.n == 6 and e.holds == 6 and e.low > 0 and "6/6 units" in e.text()


def test_within_the_interval_needs_enough_units():
    # Paper Z's case: 3 seeds, a +-19-point interval covers the published 28.
    assert value_verdict(12.0, 19.0, 3, 28.0, tolerance=2.0) is Verdict.INCONCLUSIVE
    assert value_verdict(12.0, 19.0, MIN_UNITS, 28.0, tolerance=2.0) is Verdict.REPRODUCED
    assert value_verdict(27.0, 19.0, 3, 28.0, tolerance=2.0) is Verdict.REPRODUCED  # tolerance
    assert value_verdict(12.0, 3.0, 20, 28.0, tolerance=2.0) is Verdict.NOT_REPRODUCED
    assert value_verdict(-12.0, 3.0, 20, 28.0, tolerance=2.0, direction=1) is (
        Verdict.CONTRADICTED)
    assert value_verdict(-1.0, 3.0, 20, 28.0, tolerance=2.0, direction=1) is (
        Verdict.NOT_REPRODUCED)  # interval crosses 0: no clear opposite


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
    write_claims([Claim("U", "u1", "Fig. 2", "9 numbers", "9/9", "equal", "reproduced",
                        unit="seed", n=20, key="u1"),
                  Claim("U", "u2", "Table 1", "gains", "a|b", "signs", "partly reproduced",
                        unit="trace", n="3"),
                  Claim("U", "u3", "Fig. 1", "example", "same", "equal", "reproduced",
                        unit="-", n=1, kind=CONSISTENCY)],
                 u, scale="smoke")
    write_claims([Claim("K", "k1", "Sect. V", "n", "not run", "none", "not testable here")],
                 k, scale="smoke")
    papers = [{"paper": "U", "title": "Paper U", "claims": u, "readme": tmp_path / "U/README.md"},
              {"paper": "K", "title": "Paper K", "claims": k, "readme": None}]
    changes = [{"paper": "U", "key": "u1", "old": {"smoke": "partly reproduced"},
                "why": "per-seed units"},
               {"paper": "U", "key": "u1", "old": {"full": "x"}, "why": "other scale"}]
    text = claims_index(papers, scale="smoke", here=tmp_path, scale_description="CI",
                        changes=changes)
    lines = text.splitlines()
    assert "Scale: **smoke** — CI." in lines
    head = ("| paper | title | reproduced | partly reproduced | not reproduced | contradicted "
            "| inconclusive | not testable here | total | consistency checks |")
    i = lines.index(head)
    assert lines[i + 1] == "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    # The consistency check is listed apart and not counted.
    assert lines[i + 2] == "| [U](U/README.md) | Paper U | 1 | 1 | 0 | 0 | 0 | 0 | 2 | 1 |"
    assert lines[i + 3] == "| K | Paper K | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 |"
    assert lines[i + 4] == "| all |  | 1 | 1 | 0 | 0 | 0 | 1 | 3 | 1 |"
    j = lines.index("| paper | claim | reading | source | published | ours | verdict | unit | n "
                    "| criterion |")
    assert lines[j + 2] == ("| [U](U/README.md) | u1 |  | Fig. 2 | 9 numbers | 9/9 | reproduced "
                            "| seed | 20 | equal |")
    assert lines[j + 3].endswith("| a\\|b | partly reproduced | trace | 3 | signs |")
    assert lines[j + 4] == ("| K | k1 |  | Sect. V | n | not run | not testable here |  |  "
                            "| none |")
    assert lines[j + 5] == ""
    k = lines.index("## Consistency checks")
    assert "| [U](U/README.md) | u3 | Fig. 1 | same | reproduced | equal |" in lines[k:]
    c = lines.index("## Changes")
    assert ("| U | u1 | partly reproduced | reproduced | per-seed units |" in lines[c:])
    assert not any("other scale" in line for line in lines)
    # A claims file of another scale (stale) or naming another paper is refused.
    with pytest.raises(ValueError, match="scale 'smoke', expected 'default'"):
        claims_index(papers, scale="default", here=tmp_path)
    with pytest.raises(ValueError, match="paper 'K', expected 'Z'"):
        claims_index([{**papers[1], "paper": "Z"}], scale="smoke", here=tmp_path)


def test_verdict_changes_file_is_checked(tmp_path):
    path = tmp_path / "changes.yaml"
    path.write_text("changes:\n  - {paper: U, key: a, old: reproduced, why: w}\n")
    assert verdict_changes(path) == [{"paper": "U", "key": "a", "old": "reproduced", "why": "w"}]
    path.write_text("changes:\n  - {paper: U, key: a, old: reproduced}\n")
    with pytest.raises(ConfigError, match=r"changes.yaml: changes.0: fields"):
        verdict_changes(path)


def test_claim_kind_is_closed():
    with pytest.raises(ValueError, match="kind"):
        Claim("U", "c", "s", "p", "o", "rule", "reproduced", kind="example")


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
