"""Paper K's Fig. 1 sensitivity (simlib.studies.kumar.fig1_sensitivity) and its claim."""
from __future__ import annotations

import gzip

import numpy as np
import pytest

from helpers_pipeline import synthetic_swf

from simlib.cube import build_cube
from simlib.errors import ConfigError
from simlib.studies.kumar import fig1_sensitivity as S
from simlib.studies.kumar.report import fig1_band_claim
from simlib.workload.prepare import clean
from simlib.workload.swf import read_swf, write_swf

SPEC = {"segments": {"smoke": [[0, 150], [150, None]]}, "lookaheads": [50, "all"],
        "ties": ["earliest", "latest"]}


def cube_of(waits):
    """A sensitivity cube from {(segment, load, policy): mean wait}."""
    return build_cube([{"segment": s, "load": x, "policy": p, "mean_wait": w}
                       for (s, x, p), w in waits.items()], S.DIMS, ["mean_wait"])


def two_segments(load, easy, los):
    """EASY's wait and the four (segment, tie) LOS waits at one load."""
    out = {}
    for (seg, tie), w in zip([(s, t) for s in ("0-9", "10-end") for t in ("earliest", "latest")],
                             los):
        out[(seg, load, "easy")] = easy
        out[(seg, load, f"los_50_{tie}")] = w
        # Another lookahead far off: never part of the band.
        out[(seg, load, f"los_all_{tie}")] = 10 * easy
    return out


def test_segments_and_variants_are_named_from_the_config():
    assert S.segments(SPEC, "smoke") == {"0-149": (0, 150), "150-end": (150, None)}
    assert list(S.variants(SPEC)) == ["easy", "los_50_earliest", "los_50_latest",
                                      "los_all_earliest", "los_all_latest"]
    assert S.variants(SPEC)["los_all_latest"] == ("los", {"lookahead": "all", "tie": "latest"})


@pytest.mark.parametrize("change, message", [
    (dict(segments={"smoke": [[0, 100], [50, None]]}), "segments 0-99 and 50-end overlap"),
    (dict(ties=["newest"]), "tie must be 'earliest' or 'latest'"),
    (dict(lookaheads=[50, 0]), "lookahead must be an integer >= 1"),
])
def test_bad_specs_are_rejected(change, message):
    with pytest.raises(ConfigError, match=message):
        S.check_spec({**SPEC, **change}, "here")


def test_the_schema_asks_for_the_papers_lookahead():
    # The verdict judges lookahead 50: the grid's schema requires it.
    import json

    from simlib.schema import validate
    from simlib.studies.kumar.plan import SCHEMA
    full = json.loads(SCHEMA.read_text())
    schema = {"$defs": full["$defs"], **full["properties"]["fig1_sensitivity"]}
    spec = {"segments": {s: [[0, 150]] for s in ("smoke", "default", "full")},
            "loads": {s: [0.5] for s in ("smoke", "default", "full")}, "ties": ["earliest"],
            "tolerance": 5.0, "lookaheads": [50, "all"]}
    validate(spec, schema, "here")
    with pytest.raises(ConfigError, match=r"here.lookaheads: \[500\] does not contain items"):
        validate({**spec, "lookaheads": [500]}, schema, "here")


@pytest.mark.parametrize("los, status", [
    ((80, 90, 70, 94), S.BETTER),          # every reading > +5 %
    ((120, 110, 130, 106), S.WORSE),       # every reading < -5 %
    ((96, 104, 100, 95), S.NONE),          # all within +-5 %
    ((80, 90, 70, 110), S.DEPENDS),        # one reading flips the sign
])
def test_band_status_at_a_load(los, status):
    table = S.band_table(cube_of(two_segments(0.8, 100.0, los)), 5.0)
    assert table["status"].tolist() == [status]
    assert table[["band_low", "band_high"]].values.tolist() == [[100 - max(los), 100 - min(los)]]
    assert table["runs_in_band"].tolist() == [4]


@pytest.mark.parametrize("loads, verdict", [
    ({0.5: (80, 90, 70, 94), 0.9: (80, 80, 80, 80)}, "reproduced"),
    ({0.5: (120, 110, 130, 106), 0.9: (120, 120, 120, 120)}, "contradicted"),
    # LOS better at one load of two: not a majority (issue 38's rule for "partly").
    ({0.5: (80, 90, 70, 94), 0.9: (80, 90, 70, 110)}, "not reproduced"),
    ({0.5: (80, 90, 70, 94), 0.7: (80, 80, 80, 80), 0.9: (80, 90, 70, 110)},
     "partly reproduced"),
    ({0.5: (96, 104, 100, 95), 0.9: (80, 90, 70, 110)}, "not reproduced"),
])
def test_claim_verdict_follows_the_band_rule(loads, verdict):
    waits = {}
    for x, los in loads.items():
        waits.update(two_segments(x, 100.0, los))
    claim = fig1_band_claim(cube_of(waits), 5.0)
    assert claim.verdict.value == verdict
    assert claim.criterion == S.BAND_RULE and claim.figure == "fig1_sensitivity"


def test_simulate_segment_runs_every_variant_on_the_same_jobs(tmp_path):
    raw = tmp_path / "raw.swf.gz"
    raw.write_bytes(gzip.compress(synthetic_swf(420, 128, seed=3)))
    swf = tmp_path / "t.swf"
    write_swf(clean(read_swf(raw), 128)[0], swf)   # as prepare_trace leaves it
    kw = dict(machine_procs=128, first_job=100, n_jobs=200, load=0.8,
              variants=S.variants(SPEC), simulation={"overrun": "kill", "tau": 10.0})
    recs = S.simulate_segment(swf, **kw)
    assert [r["policy"] for r in recs] == list(S.variants(SPEC))
    assert {r["jobs"] for r in recs} == {200}
    assert all(r["offered_load"] == pytest.approx(0.8, rel=1e-3) for r in recs)
    assert recs == S.simulate_segment(swf, **kw)          # deterministic
    cube = S.build_sensitivity_cube(
        [{"segment": "100-299", "load": 0.8, "records": recs},
         {"segment": "20-99", "load": 0.8, "records": recs}], {"study": "kumar"})
    # Segments in log order, variants in run order.
    assert list(cube["segment"].values) == ["20-99", "100-299"]
    assert list(cube["policy"].values) == list(S.variants(SPEC))


def test_improvement_when_easy_does_not_wait():
    waits = {("0-9", 0.5, "easy"): 0.0, ("0-9", 0.5, "los_50_earliest"): 0.0,
             ("0-9", 0.5, "los_50_latest"): 30.0}
    imp = S.improvements(cube_of(waits)).sel(segment="0-9", load=0.5)
    assert imp.sel(policy="los_50_earliest") == 0.0
    assert imp.sel(policy="los_50_latest") == -np.inf
    # The -inf stays in the band: LOS worse under one reading, no difference
    # under the other.
    table = S.band_table(cube_of(waits), 5.0)
    assert table["status"].tolist() == [S.DEPENDS] and table["runs_in_band"].tolist() == [2]
    only_worse = {**waits, ("0-9", 0.5, "los_50_earliest"): 10.0}
    assert fig1_band_claim(cube_of(only_worse), 5.0).verdict.value == "contradicted"


def test_tables_show_the_bands_and_every_variant(tmp_path):
    waits = two_segments(0.5, 100.0, (80, 90, 70, 110))
    cube = cube_of(waits)
    cube["offered_load"] = cube["mean_wait"] * 0 + 0.5
    bands = S.write_tables(cube, tolerance=5.0, csv=tmp_path / "s.csv", md=tmp_path / "s.md",
                           scale="smoke")
    assert bands["status"].tolist() == [S.DEPENDS]
    md = (tmp_path / "s.md").read_text()
    assert "depends on the reading" in md and "Tolerance ± 5 %" in md
    csv = (tmp_path / "s.csv").read_text().splitlines()
    assert csv[0].startswith("segment,load,offered_load,easy_mean_wait_h,los_50_earliest")
    assert len(csv) == 1 + 2
