"""Tests of simlib.workload.batsim: Batsim JSON workloads read, checked, written, converted."""
from __future__ import annotations

import json

import numpy as np
import pytest

from helpers_errors import assert_names_where
from helpers_pipeline import synthetic_swf
from simlib.errors import TraceFormatError
from simlib.policies import make_policy
from simlib.runner import simulate
from simlib.workload.batsim import (
    BatsimWorkload,
    from_swf,
    is_batsim_workload,
    job_line,
    read_batsim,
    write_batsim,
)
from simlib.workload.prepare import clean
from simlib.workload.swf import read_swf, write_swf

SCHEDULE = ["job_id", "submission_time", "starting_time", "finish_time", "success"]


@pytest.fixture(scope="module")
def swf_trace(tmp_path_factory):
    """A cleaned 600-job synthetic log on 128 CPUs, as SWF."""
    d = tmp_path_factory.mktemp("batsim")
    raw = d / "raw.swf"
    raw.write_bytes(synthetic_swf(600, 128, seed=5))
    workload, _ = clean(read_swf(raw), 128)
    path = d / "clean.swf"
    write_swf(workload, path)
    return path


def _schedule(table) -> dict:
    return {name: np.asarray(table[name]) for name in SCHEDULE}


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_swf_to_batsim_json_and_back_simulates_the_same_schedule(swf_trace, tmp_path, policy):
    swf = read_swf(swf_trace)
    path = tmp_path / "w.json"
    write_batsim(from_swf(swf, nb_res=128), path)
    from_json = read_batsim(path).to_swf()
    a = simulate(swf, make_policy(policy), cpus=128).table
    b = simulate(from_json, make_policy(policy), cpus=128).table
    for name, values in _schedule(a).items():
        np.testing.assert_array_equal(values, _schedule(b)[name], err_msg=name)
    # Some jobs waited and some ran past nothing: the schedule is not trivial.
    assert (np.asarray(a["starting_time"]) > np.asarray(a["submission_time"])).sum() > 50


def test_from_swf_then_to_swf_keeps_every_field_the_simulator_reads(swf_trace):
    swf = read_swf(swf_trace)
    back = from_swf(swf, nb_res=128).to_swf()
    for name in ("job_id", "submit_time", "run_time", "requested_time"):
        np.testing.assert_array_equal(back.table[name], swf.table[name], err_msg=name)
    size = np.where(swf.table["requested_procs"] > 0, swf.table["requested_procs"],
                    swf.table["allocated_procs"])
    np.testing.assert_array_equal(back.table["requested_procs"], size)
    assert "; MaxProcs: 128" in back.header


def test_write_then_read_gives_the_workload_back(tmp_path):
    w = BatsimWorkload(
        nb_res=8, ids=[3, "x!7", 11], subtime=[0.0, 2.5, 2.5], walltime=[100.0, -1.0, 7.25],
        res=[2, 8, 4], profile=["d", "p", "h"],
        profiles={"d": {"type": "delay", "delay": 12.5},
                  "p": {"type": "parallel", "cpu": [1e9] * 8, "com": [0.0] * 64},
                  "h": {"type": "parallel_homogeneous", "cpu": 3e9, "com": 1e6}},
        extra={"workload": {"description": "made by hand"}, "jobs": {1: {"user": "ann"}}})
    path = write_batsim(w, tmp_path / "w.json")
    got = read_batsim(path)
    assert got.nb_res == 8 and got.ids == w.ids and got.profile == w.profile
    for name in ("subtime", "walltime", "res"):
        np.testing.assert_array_equal(getattr(got, name), getattr(w, name))
    assert got.profiles == w.profiles
    assert got.extra == w.extra
    # Writing what was read gives the same bytes.
    assert write_batsim(got, tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_batsim_own_example_shape_is_read(tmp_path):
    # The layout of Batsim's example workloads: integer ids, no walltime on one job.
    doc = {"nb_res": 2, "jobs": [{"id": 0, "subtime": 0, "walltime": 100, "res": 1,
                                  "profile": "delay10"},
                                 {"id": 1, "subtime": 3, "res": 2, "profile": "delay10"}],
           "profiles": {"delay10": {"type": "delay", "delay": 10}}}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc, indent=4))
    swf = read_batsim(path).to_swf()
    assert swf.table["requested_time"].tolist() == [100, -1]
    res = simulate(swf, make_policy("fcfs"), cpus=2).table
    # Job 1 needs both CPUs: it waits for job 0 (10 s), and its estimate is its runtime.
    assert res["starting_time"].tolist() == [0.0, 10.0]
    assert res["requested_time"].tolist() == [100.0, 10.0]


def test_fractional_times_stay_fractional(tmp_path):
    w = BatsimWorkload(nb_res=1, ids=[1, 2], subtime=[0.5, 0.75], walltime=[-1, -1], res=[1, 1],
                       profile=["d", "d"], profiles={"d": {"type": "delay", "delay": 20.2}})
    swf = read_batsim(write_batsim(w, tmp_path / "w.json")).to_swf()
    res = simulate(swf, make_policy("fcfs"), cpus=1).table
    assert res["starting_time"].tolist() == [0.5, 0.5 + 20.2]


def test_parallel_profiles_are_tasks_for_simgrid_not_runtimes(tmp_path):
    w = BatsimWorkload(nb_res=2, ids=[1, 2], subtime=[0, 0], walltime=[60, 60], res=[2, 2],
                       profile=["p", "h"],
                       profiles={"p": {"type": "parallel", "cpu": [1, 2], "com": [0, 5, 6, 0]},
                                 "h": {"type": "parallel_homogeneous", "cpu": 4, "com": 3}})
    assert w.parallel_task(0) == ([1.0, 2.0], [0.0, 5.0, 6.0, 0.0])
    assert w.parallel_task(1) == ([4.0, 4.0], [0.0, 3.0, 3.0, 0.0])
    path = write_batsim(w, tmp_path / "w.json")
    with pytest.raises(TraceFormatError, match=r"w\.json:4: field 'jobs\[0\]\.profile': "
                                               r"profile 'p' is of type 'parallel'.*SimGrid"):
        read_batsim(path).to_swf()


def test_ids_that_are_not_integers_cannot_become_swf(tmp_path):
    w = BatsimWorkload(nb_res=1, ids=["7", "w0!8"], subtime=[0, 1], walltime=[-1, -1],
                       res=[1, 1], profile=["d", "d"],
                       profiles={"d": {"type": "delay", "delay": 1}})
    path = write_batsim(w, tmp_path / "w.json")
    with pytest.raises(TraceFormatError, match=r"w\.json:5: field 'jobs\[1\]\.id': job id "
                                               r"'w0!8' is not an integer"):
        read_batsim(path).to_swf()
    assert job_line(path, 7) == 4


GOOD_JOB = '{"id": 1, "subtime": 0, "walltime": 10, "res": 1, "profile": "d"}'
GOOD_PROFILES = '{"d": {"type": "delay", "delay": 5}}'


def _doc(jobs: str = GOOD_JOB, profiles: str = GOOD_PROFILES, nb_res: str = "4") -> str:
    return (f'{{\n  "nb_res": {nb_res},\n  "jobs": [\n    {GOOD_JOB},\n    {jobs}\n  ],\n'
            f'  "profiles": {profiles}\n}}\n').replace(f"{GOOD_JOB},\n    {GOOD_JOB}",
                                                     GOOD_JOB)


@pytest.mark.parametrize("text, line, field, reason", [
    ('{"nb_res": 4, "jobs": [}', 1, None, "not valid JSON"),
    ('[1, 2]', 1, None, "is a JSON object, not a list"),
    ('{"jobs": [], "profiles": {}}', 1, "nb_res", "missing"),
    (_doc(nb_res="0"), 2, "nb_res", "must be a positive integer, not 0"),
    (_doc(nb_res='"4"'), 2, "nb_res", "must be a positive integer, not '4'"),
    (_doc(jobs='{"id": 2, "subtime": 0, "res": 1}'), 5, "jobs[1].profile", "missing"),
    (_doc(jobs='{"id": 2, "subtime": -3, "res": 1, "profile": "d"}'), 5, "jobs[1].subtime",
     "must be a number of seconds >= 0"),
    (_doc(jobs='{"id": 2, "subtime": "soon", "res": 1, "profile": "d"}'), 5,
     "jobs[1].subtime", "not 'soon'"),
    (_doc(jobs='{"id": 2, "subtime": 0, "walltime": 0, "res": 1, "profile": "d"}'), 5,
     "jobs[1].walltime", "> 0, or -1 for none, not 0"),
    (_doc(jobs='{"id": 2, "subtime": 0, "res": 1.5, "profile": "d"}'), 5, "jobs[1].res",
     "must be an integer >= 0, not 1.5"),
    (_doc(jobs='{"id": 1, "subtime": 0, "res": 1, "profile": "d"}'), 5, "jobs[1].id",
     "job id 1 is used twice (first by jobs[0])"),
    (_doc(jobs='{"id": [2], "subtime": 0, "res": 1, "profile": "d"}'), 5, "jobs[1].id",
     "must be a string or an integer"),
    (_doc(jobs='{"id": 2, "subtime": 0, "res": 1, "profile": "nope"}'), 5, "jobs[1].profile",
     "no profile named 'nope'"),
    (_doc(jobs='7'), 5, "jobs[1]", "a job is a JSON object, not a number"),
    (_doc(profiles='{"d": {"type": "smpi", "trace": "t"}}'), 6, "profiles.d.type",
     "profile type 'smpi' is not one simlib reads"),
    (_doc(profiles='{"d": {"type": "delay"}}'), 6, "profiles.d.delay", "missing"),
    (_doc(profiles='{"d": {"type": "delay", "delay": -1}}'), 6, "profiles.d.delay",
     "must be a number of seconds >= 0, not -1"),
    (_doc(jobs='{"id": 2, "subtime": 0, "res": 2, "profile": "p"}',
          profiles='{"d": {"type": "delay", "delay": 5}, "p": {"type": "parallel", '
                   '"cpu": [1, 1], "com": [0, 0, 0]}}'),
     7, "profiles.p.com", "has 3 numbers; a parallel task on 2 hosts needs 2x2 = 4"),
    (_doc(jobs='{"id": 2, "subtime": 0, "res": 3, "profile": "p"}',
          profiles='{"d": {"type": "delay", "delay": 5}, "p": {"type": "parallel", '
                   '"cpu": [1, 1], "com": [0, 0, 0, 0]}}'),
     5, "jobs[1].res", "asks for 3 resources but its profile 'p' is a parallel task on 2 hosts"),
    (_doc(profiles='{"d": {"type": "parallel_homogeneous", "cpu": "x", "com": 1}}'), 6,
     "profiles.d.cpu", "must be a number >= 0"),
])
def test_a_malformed_workload_names_file_line_field_and_reason(tmp_path, text, line, field,
                                                               reason):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert_names_where(read_batsim, path, line, field, reason)


def test_an_unused_profile_of_another_type_is_not_an_error(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(_doc(profiles='{"d": {"type": "delay", "delay": 5}, '
                                  '"s": {"type": "sequence", "seq": ["d"]}}'))
    assert len(read_batsim(path)) == 1


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(TraceFormatError, match=r"nope\.json: cannot read the file"):
        read_batsim(tmp_path / "nope.json")


def test_the_suffix_says_which_format():
    assert is_batsim_workload("a/b/W.JSON") and not is_batsim_workload("w.swf.gz")


@pytest.mark.parametrize("row, message", [
    ([7, 3, -1, 30, -1, -1, -1, -1, 60] + [-1] * 9, "job 7 (row 0) has no size"),
    ([7, 3, -1, 30, 9, -1, -1, 9, 60] + [-1] * 9, "job 7 (row 0) asks for more than the 4 "
                                                   "resources"),
])
def test_a_job_batsim_cannot_run_is_not_written(row, message):
    import pandas as pd

    from simlib.workload.swf import SWF_FIELDS, Workload

    with pytest.raises(TraceFormatError) as info:
        from_swf(Workload(pd.DataFrame([row], columns=SWF_FIELDS)), nb_res=4)
    assert message in str(info.value)


def test_a_time_json_cannot_hold_is_refused(tmp_path):
    w = BatsimWorkload(nb_res=1, ids=[1], subtime=[float("nan")], walltime=[-1], res=[1],
                       profile=["d"], profiles={"d": {"type": "delay", "delay": 1}})
    with pytest.raises(ValueError, match="subtime nan is not a finite number"):
        write_batsim(w, tmp_path / "w.json")
    assert not (tmp_path / "w.json").exists()
