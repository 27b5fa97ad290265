"""Tests of simlib.cube: building, provenance, netCDF round trip, determinism, diff."""
import hashlib
import math
import os

import numpy as np
import pytest

from simlib import __version__
from simlib import cube as C


def baseline_records():
    """Records of a 2 traces x 3 policies x 3 loads sweep, one combination missing."""
    recs = []
    for t, trace in enumerate(["SDSC-SP2", "CTC-SP2"]):
        for p, policy in enumerate(["fcfs", "easy", "conservative"]):
            for k, load in enumerate([0.9, 0.5, 0.7]):
                recs.append({
                    "trace": trace, "policy": policy, "load": load,
                    "mean_wait": 100.0 * t + 10.0 * p + k,
                    "makespan": 1000.0 + k,
                })
    return recs[:-1]  # CTC-SP2 / conservative / 0.7 missing


DIMS = ["trace", "policy", "load"]
METRICS = ["mean_wait", "makespan"]


def make_cube(records=None, **attrs):
    recs = baseline_records() if records is None else records
    return C.build_cube(recs, DIMS, METRICS, attrs=C.provenance({"grid": [1, 2]}) | attrs)


# ----------------------------------------------------------------- build
def test_build_cube_layout_and_values():
    ds = make_cube(study="baseline")
    assert ds["mean_wait"].dims == ("trace", "policy", "load")
    assert ds["trace"].values.tolist() == ["CTC-SP2", "SDSC-SP2"]
    assert ds["policy"].values.tolist() == ["conservative", "easy", "fcfs"]
    assert ds["load"].values.tolist() == [0.5, 0.7, 0.9]
    # SDSC-SP2 (t=0), easy (p=1), load 0.5 (l=1) -> 10 + 1
    assert ds["mean_wait"].sel(trace="SDSC-SP2", policy="easy", load=0.5).item() == 11.0
    assert ds["mean_wait"].sel(trace="CTC-SP2", policy="fcfs", load=0.9).item() == 100.0
    assert math.isnan(ds["mean_wait"].sel(trace="CTC-SP2", policy="conservative", load=0.7).item())
    assert int(ds["mean_wait"].isnull().sum()) == 1
    assert ds.attrs["study"] == "baseline"


def test_every_variable_has_units_long_name_description():
    ds = make_cube()
    for v in ds.data_vars.values():
        assert set(v.attrs) >= {"units", "long_name", "description"}
    assert ds["mean_wait"].attrs["units"] == "s"
    assert ds["load"].attrs["units"] == "1"


def test_build_cube_record_order_does_not_matter():
    a = make_cube()
    b = make_cube(list(reversed(baseline_records())))
    assert a.identical(b)


def test_build_cube_none_is_nan_and_numpy_scalars_accepted():
    ds = C.build_cube(
        [{"seed": np.int64(1), "makespan": None}, {"seed": 0, "makespan": np.float32(2.5)}],
        ["seed"], ["makespan"],
    )
    assert ds["seed"].values.tolist() == [0, 1]
    assert ds["makespan"].values[0] == 2.5 and math.isnan(ds["makespan"].values[1])


def test_build_cube_errors():
    with pytest.raises(ValueError, match="record 0 lacks 'load'"):
        C.build_cube([{"trace": "x", "policy": "y", "mean_wait": 1, "makespan": 1}], DIMS, METRICS)
    dup = baseline_records()[:1] * 2
    with pytest.raises(ValueError, match="same coordinates"):
        C.build_cube(dup, DIMS, METRICS)
    with pytest.raises(ValueError, match="no units"):
        C.build_cube([{"load": 1, "bogus": 1}], ["load"], ["bogus"])
    with pytest.raises(TypeError, match="attribute 'cfg'"):
        C.build_cube([{"load": 1, "makespan": 1}], ["load"], ["makespan"], attrs={"cfg": {"a": 1}})


def test_build_cube_metric_info_for_new_metrics():
    ds = C.build_cube([{"load": 1, "groups": 3}], ["load"], ["groups"],
                      metric_info={"groups": ("1", "groups formed", "number of coscheduling groups")})
    assert ds["groups"].attrs == {"units": "1", "long_name": "groups formed",
                                  "description": "number of coscheduling groups"}


def test_build_cube_coord_info_adds_to_the_dimension_attributes():
    ds = C.build_cube([{"load": 1, "seed": 0, "makespan": 3.0}], ["load", "seed"], ["makespan"],
                      coord_info={"seed": {"description": "run index"}, "other": {"x": "y"}})
    assert ds["seed"].attrs == {"long_name": "random seed index", "description": "run index"}
    assert ds["load"].attrs == C.DIM_ATTRS["load"]


# ----------------------------------------------------------------- provenance
def test_config_sha256_canonical():
    h = C.config_sha256({"b": 1, "a": [1, 2.5, "x"]})
    assert h == C.config_sha256({"a": (1, 2.5, "x"), "b": np.int64(1)})
    assert h != C.config_sha256({"b": 2, "a": [1, 2.5, "x"]})
    # Canonical form: sorted keys, no spaces.
    assert h == hashlib.sha256(b'{"a":[1,2.5,"x"],"b":1}').hexdigest()


def test_provenance_keys_and_no_timestamps():
    p = C.provenance({"x": 1})
    assert set(p) == {"simlib_version", "git_commit", "config_sha256", "created_by"}
    assert p["simlib_version"] == __version__
    assert p == C.provenance({"x": 1})


def test_study_attrs_hold_the_provenance_and_the_subtree():
    a = C.study_attrs("demo", {"b": [1], "a": 2}, scale="smoke", study_note="n")
    assert a["study"] == "demo" and a["config_subtree"] == '{"a": 2, "b": [1]}'
    assert {k: a[k] for k in C.provenance({})} == C.provenance({"a": 2, "b": [1]})
    assert (a["scale"], a["study_note"]) == ("smoke", "n")


def _fake_git(tmp_path, head, refs=None, packed=None):
    g = tmp_path / "repo" / ".git"
    g.mkdir(parents=True)
    (g / "HEAD").write_text(head + "\n")
    for ref, sha in (refs or {}).items():
        (g / ref).parent.mkdir(parents=True, exist_ok=True)
        (g / ref).write_text(sha + "\n")
    if packed:
        (g / "packed-refs").write_text("# pack-refs with: peeled\n" + packed)
    sub = tmp_path / "repo" / "simlib"
    sub.mkdir()
    return sub


def test_git_commit_from_loose_ref(tmp_path, monkeypatch):
    monkeypatch.delenv("SIMLIB_GIT_COMMIT", raising=False)
    sub = _fake_git(tmp_path, "ref: refs/heads/main", refs={"refs/heads/main": "a" * 40})
    assert C.git_commit(sub) == "a" * 40


def test_git_commit_from_packed_refs_and_detached(tmp_path, monkeypatch):
    monkeypatch.delenv("SIMLIB_GIT_COMMIT", raising=False)
    sub = _fake_git(tmp_path, "ref: refs/heads/dev", packed=f"{'b' * 40} refs/heads/dev\n")
    assert C.git_commit(sub) == "b" * 40
    det = _fake_git(tmp_path / "d", "c" * 40)
    assert C.git_commit(det) == "c" * 40


def test_git_commit_unknown_and_env_override(tmp_path, monkeypatch):
    monkeypatch.delenv("SIMLIB_GIT_COMMIT", raising=False)
    assert C.git_commit(tmp_path) == "unknown"  # no .git above a pytest tmp dir
    sub = _fake_git(tmp_path, "ref: refs/heads/none")
    assert C.git_commit(sub) == "unknown"
    monkeypatch.setenv("SIMLIB_GIT_COMMIT", "deadbeef")
    assert C.git_commit(sub) == "deadbeef"


# ----------------------------------------------------------------- I/O
def test_write_read_round_trip(tmp_path):
    ds = make_cube(study="baseline")
    path = C.write_cube(ds, tmp_path / "sub" / "cube.nc")
    back = C.read_cube(path)
    assert back.identical(ds)
    assert back["mean_wait"].attrs["units"] == "s"
    assert back.attrs["config_sha256"] == C.config_sha256({"grid": [1, 2]})
    assert os.listdir(tmp_path / "sub") == ["cube.nc"]  # no temporary left behind


def test_write_cube_tells_the_log(tmp_path, caplog):
    import logging
    with caplog.at_level(logging.INFO, logger="cube-test"):
        C.write_cube(make_cube(), tmp_path / "c.nc", log=logging.getLogger("cube-test"))
    assert f"cube {tmp_path / 'c.nc'}: dims" in caplog.text


def test_two_builds_give_identical_bytes(tmp_path):
    a = C.write_cube(make_cube(), tmp_path / "a.nc")
    b = C.write_cube(make_cube(list(reversed(baseline_records()))), tmp_path / "b.nc")
    assert a.read_bytes() == b.read_bytes()


def test_read_cube_errors(tmp_path):
    with pytest.raises(C.CubeReadError, match="no such file"):
        C.read_cube(tmp_path / "missing.nc")
    bad = tmp_path / "bad.nc"
    bad.write_text("not netcdf\n")
    with pytest.raises(C.CubeReadError, match=r"bad\.nc: not a readable netCDF cube"):
        C.read_cube(bad)
    with pytest.raises(C.CubeReadError, match="directory"):
        C.read_cube(tmp_path)


# ----------------------------------------------------------------- diff
def test_diff_equal_and_nan_equals_nan():
    assert C.diff_cubes(make_cube(), make_cube()) == []


def test_diff_ignores_provenance_attrs():
    a = make_cube()
    b = make_cube()
    b.attrs["git_commit"] = "0" * 40
    assert C.diff_cubes(a, b) == []
    assert C.diff_cubes(a, b, check_attrs=True) == []


def test_diff_value_change_reports_variable_and_coordinates():
    a = make_cube()
    b = a.copy(deep=True)
    b["mean_wait"].loc[dict(trace="SDSC-SP2", policy="easy", load=0.7)] += 0.5
    diffs = C.diff_cubes(a, b)
    assert diffs == [C.Difference("value", "mean_wait",
                                  {"trace": "SDSC-SP2", "policy": "easy", "load": 0.7}, 12.0, 12.5)]
    assert C.diff_cubes(a, b, atol=0.5) == []
    assert C.diff_cubes(a, b, rtol=0.05) == []  # 0.5 <= 0.05 * 12.5
    assert len(C.diff_cubes(a, b, rtol=0.03)) == 1
    table = C.format_differences(diffs)
    assert "mean_wait" in table and "trace=SDSC-SP2, policy=easy, load=0.7" in table
    assert "12.5" in table


def test_diff_nan_versus_number():
    a = make_cube()
    b = a.copy(deep=True)
    b["makespan"].loc[dict(trace="CTC-SP2", policy="conservative", load=0.7)] = 5.0
    (d,) = C.diff_cubes(a, b, atol=1e9)
    assert d.kind == "value" and math.isnan(d.a) and d.b == 5.0


def test_diff_structure_changes():
    a = make_cube()
    b = a.drop_vars("makespan").sel(load=[0.5, 0.9])
    kinds = [(d.kind, d.name) for d in C.diff_cubes(a, b)]
    assert kinds == [("dim", "load"), ("coord", "load"), ("variable", "makespan")]
    coord = C.diff_cubes(a, b)[1]
    assert "only in A: [0.7]" in coord.detail


def test_diff_compares_shared_cells_when_coords_differ():
    a = make_cube()
    b = a.sel(load=[0.5, 0.9]).copy(deep=True)
    b["mean_wait"].loc[dict(trace="CTC-SP2", policy="fcfs", load=0.5)] = -1.0
    values = [d for d in C.diff_cubes(a, b) if d.kind == "value"]
    assert [(d.coords, d.a, d.b) for d in values] == [
        ({"trace": "CTC-SP2", "policy": "fcfs", "load": 0.5}, 101.0, -1.0)
    ]


def test_diff_check_attrs_units():
    a = make_cube()
    b = a.copy(deep=True)
    b["mean_wait"].attrs["units"] = "h"
    assert C.diff_cubes(a, b) == []
    (d,) = C.diff_cubes(a, b, check_attrs=True)
    assert (d.kind, d.name, d.a, d.b) == ("attr", "mean_wait:units", "s", "h")


def test_format_differences_truncates():
    diffs = [C.Difference("value", "v", {"seed": i}, float(i), float(i + 1)) for i in range(5)]
    text = C.format_differences(diffs, max_rows=2)
    assert text.splitlines()[0] == "5 differences (5 values in 1 variable: v)"
    assert "... and 3 more" in text
    assert C.format_differences([]) == "no differences"


# ----------------------------------------------------------------- compare (issue 37)
def test_a_1e12_relative_change_is_shown_with_the_digits_that_tell_it_apart():
    a = make_cube()
    b = a.copy(deep=True)
    cell = dict(trace="CTC-SP2", policy="easy", load=0.5)
    a["mean_wait"].loc[cell] = 16461.25333
    b["mean_wait"].loc[cell] = 16461.25333 * (1 + 1e-12)
    (d,) = C.diff_cubes(a, b)
    row = C.format_differences([d]).splitlines()[-1].split()
    shown_a, shown_b, rel = row[-4], row[-3], row[-1]
    assert shown_a != shown_b and float(shown_a) == 16461.25333
    # B's digits are the fewest that tell it from A: nearer to B than to A.
    assert abs(float(shown_b) - d.b) < abs(float(shown_b) - d.a)
    assert float(rel) == pytest.approx(1e-12, rel=1e-3)


def test_summary_per_variable_counts_and_maxima():
    a = make_cube()
    b = a.copy(deep=True)
    b["mean_wait"] += 1.0  # every cell (the missing one stays NaN), as in the "+1 shift"
    b["makespan"].loc[dict(trace="SDSC-SP2", policy="fcfs", load=0.9)] *= 1.5
    comp = C.compare_cubes(a, b)
    wait, span = comp.variables["mean_wait"], comp.variables["makespan"]
    finite = np.isfinite(a["mean_wait"].values)
    assert (wait.cells, wait.differing, wait.max_abs) == (18, 17, 1.0)
    assert wait.max_rel == pytest.approx(float(np.max(1.0 / (a["mean_wait"].values[finite] + 1.0))))
    assert (span.cells, span.differing) == (18, 1)
    assert span.max_rel == pytest.approx(1 / 3)
    assert not comp.equal and comp.only_in == {}
    text = C.format_comparison(comp, max_rows=3)
    summary = text.splitlines()[:4]
    assert summary[2].split()[:4] == ["makespan", "compared", "18", "1"]
    assert summary[3].split()[:5] == ["mean_wait", "compared", "18", "17", "1"]
    assert "... and 15 more" in text


def test_extra_policy_compares_the_shared_ones_and_lists_the_extra():
    a = make_cube()
    extra = [dict(r, policy="easy_small") for r in baseline_records() if r["policy"] == "easy"]
    b = make_cube(baseline_records() + extra)
    b["mean_wait"].loc[dict(trace="CTC-SP2", policy="fcfs", load=0.5)] += 2.0
    comp = C.compare_cubes(a, b)
    assert comp.only_in == {"policy": {"A": [], "B": ["easy_small"]}}
    assert comp.variables["mean_wait"].cells == 18 and comp.variables["mean_wait"].differing == 1
    assert [d.kind for d in comp.differences] == ["dim", "coord", "value"]
    assert "policy: only in B: easy_small" in C.format_comparison(comp)


def test_per_variable_tolerance_applies_to_that_variable_only():
    a = make_cube()
    b = a.copy(deep=True)
    b["mean_wait"] *= 1 + 1e-10
    b["makespan"] *= 1 + 1e-10
    comp = C.compare_cubes(a, b, var_rtol={"mean_wait": 1e-9})
    assert comp.variables["mean_wait"].differing == 0 and comp.variables["mean_wait"].rtol == 1e-9
    assert comp.variables["makespan"].differing > 0 and comp.variables["makespan"].rtol == 0
    assert C.diff_cubes(a, b, rtol=1e-9, var_rtol={"makespan": 0.0})[0].name == "makespan"
    assert C.diff_cubes(a, b, var_atol={"mean_wait": 1e-3, "makespan": 1e-3}) == []
    with pytest.raises(ValueError, match="neither cube has: mean_wiat"):
        C.compare_cubes(a, b, var_rtol={"mean_wiat": 1e-9})
    with pytest.raises(ValueError, match="non-negative"):
        C.compare_cubes(a, b, var_atol={"mean_wait": -1.0})


def test_comparison_to_dict_is_strict_json():
    import json
    a = make_cube()
    b = a.copy(deep=True)
    b["makespan"].loc[dict(trace="CTC-SP2", policy="conservative", load=0.7)] = 5.0  # was NaN
    doc = json.loads(json.dumps(C.compare_cubes(a, b, check_attrs=True).to_dict(), allow_nan=False))
    assert doc["equal"] is False and doc["attrs"] == [] and doc["structure"] == []
    (cell,) = doc["cells"]
    assert cell == {"variable": "makespan", "a": None, "b": 5.0, "abs": None, "rel": None,
                    "coords": {"trace": "CTC-SP2", "policy": "conservative", "load": 0.7}}
    assert doc["variables"]["makespan"]["differing"] == 1


# ----------------------------------------------------------------- sparse cubes (issue 37)
def test_ran_says_which_combinations_were_run_and_why(tmp_path):
    recs = [r for r in baseline_records() if not (r["trace"] == "SDSC-SP2" and r["policy"] == "fcfs")]
    ds = C.build_cube(recs, DIMS, METRICS, ran_dims=["trace", "policy"], ran_reason="fcfs skips SDSC")
    assert ds["ran"].dims == ("trace", "policy") and ds["ran"].dtype == bool
    # CTC-SP2/conservative lacks one load only: it was run, so True.
    assert ds["ran"].sel(trace="SDSC-SP2").values.tolist() == [True, True, False]
    assert ds["ran"].sel(trace="CTC-SP2").values.all()
    assert ds["ran"].attrs["description"].endswith(": fcfs skips SDSC")
    assert {"units", "long_name"} <= set(ds["ran"].attrs)
    assert ds.attrs["share_of_cells_run"] == len(recs) / 18
    back = C.read_cube(C.write_cube(ds, tmp_path / "ran.nc"))
    assert back["ran"].dtype == bool and C.diff_cubes(ds, back, check_attrs=True) == []
    assert "ran" not in make_cube() and "share_of_cells_run" not in make_cube().attrs
    with pytest.raises(ValueError, match="ran_dims"):
        C.build_cube(recs, DIMS, METRICS, ran_dims=["trace", "seed"])
