import numpy as np
import pandas as pd
import pytest

from simlib.errors import ConfigError
from simlib.figures.gantt import parse_intervals
from simlib.policies import POLICIES
from simlib.runner import (BATSIM_COLUMNS, TIMELINE_COLUMNS, UnusableJobError, intervals, simulate,
                           timeline_frame, write_jobs_csv)
from simlib.workload.swf import SWF_FIELDS, Workload


def _workload(rows):
    """rows: (job_id, submit, runtime, procs, requested_time, avg_cpu_time)."""
    full = []
    for jid, sub, run, procs, req, cpu in rows:
        full.append([jid, sub, -1, run, procs, cpu, -1, procs, req, -1, 1, 1, 1, 1, 1, 1, -1, -1])
    return Workload(pd.DataFrame(full, columns=SWF_FIELDS), path="t.swf")


def test_batsim_columns_and_values():
    wl = _workload([(7, 0, 10, 4, 20, -1), (8, 5, 30, 2, 20, -1)])
    res = simulate(wl, "easy", cpus=4, workload_name="w")
    df = res.jobs
    assert tuple(df.columns) == BATSIM_COLUMNS
    assert df["job_id"].tolist() == ["7", "8"]
    assert df["starting_time"].tolist() == [0.0, 10.0]
    # Job 8 runs past its 20 s request: killed at its walltime.
    assert df["finish_time"].tolist() == [10.0, 30.0]
    assert df["final_state"].tolist() == ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"]
    assert df["success"].tolist() == [1, 0]
    assert df["waiting_time"].tolist() == [0.0, 5.0]
    assert df["stretch"].tolist() == [1.0, 25.0 / 20.0]
    assert df["allocated_resources"].tolist() == ["0-3", "0-1"]
    assert res.platform_cpus == 4 and res.policy == "easy"
    assert list(res.timeline.columns) == ["time", "busy_cpus", "queued_jobs", "processes"]


def test_missing_request_falls_back_to_runtime_and_submit_order_is_used():
    wl = _workload([(2, 5, 10, 1, -1, -1), (1, 0, 10, 1, -1, -1)])
    df = simulate(wl, "fcfs", cpus=1).jobs
    assert df["job_id"].tolist() == ["1", "2"]
    assert df["requested_time"].tolist() == [10.0, 10.0]


def test_unusable_job_names_the_source():
    wl = _workload([(3, 0, 10, -1, 10, -1)])
    wl.jobs["allocated_procs"] = -1
    with pytest.raises(ConfigError, match=r"t.swf: job 3 \(row 0\): field 'requested_procs': "
                                          r"no usable size"):
        simulate(wl, "fcfs", cpus=1)


def test_unusable_job_error_carries_the_row_and_field():
    wl = _workload([(1, 0, 10, 1, 10, 1), (2, 1, -1, 1, 10, 1), (3, 2, -1, 1, 10, 1)])
    with pytest.raises(UnusableJobError) as info:
        simulate(wl, "fcfs", cpus=2)
    assert (info.value.row, info.value.job_id, info.value.field) == (1, 2, "run_time")
    assert "(2 jobs have such problems)" in str(info.value)


def test_write_jobs_csv_is_batsim_csv(tmp_path):
    res = simulate(_workload([(7, 0, 10, 4, 20, -1), (8, 5, 30, 2, 20, -1)]), "easy", cpus=4,
                   workload_name="w")
    write_jobs_csv(res.jobs, tmp_path / "jobs.csv")
    lines = (tmp_path / "jobs.csv").read_text().splitlines()
    assert lines[0].split(",") == list(BATSIM_COLUMNS)
    assert "finish_time" in BATSIM_COLUMNS   # Batsim's name (not finishing_time)
    back = pd.read_csv(tmp_path / "jobs.csv", dtype={"job_id": str})
    pd.testing.assert_frame_equal(back.drop(columns="metadata"), res.jobs.drop(columns="metadata"))
    assert [p.name for p in tmp_path.iterdir()] == ["jobs.csv"]   # no temporary file left


def test_write_jobs_csv_gzip_gives_the_same_bytes_every_time(tmp_path):
    import gzip
    res = simulate(_workload([(7, 0, 10, 4, 20, -1), (8, 5, 30, 2, 20, -1)]), "easy", cpus=4)
    write_jobs_csv(res.jobs, tmp_path / "a.csv.gz")
    first = (tmp_path / "a.csv.gz").read_bytes()
    write_jobs_csv(res.table, tmp_path / "a.csv.gz")
    assert (tmp_path / "a.csv.gz").read_bytes() == first
    assert first[4:8] == b"\0\0\0\0"  # gzip's MTIME field
    write_jobs_csv(res.jobs, tmp_path / "a.csv")
    assert gzip.decompress(first) == (tmp_path / "a.csv").read_bytes()


def test_write_jobs_csv_leaves_nothing_on_failure(tmp_path, monkeypatch):
    res = simulate(_workload([(7, 0, 10, 4, 20, -1)]), "fcfs", cpus=4)

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(type(res.jobs), "to_csv", broken)
    monkeypatch.setattr("simlib.io.csv_text", broken)  # the fast path, before pandas
    with pytest.raises(OSError, match="disk full"):
        write_jobs_csv(res.jobs, tmp_path / "jobs.csv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_evalys_reads_our_jobs_csv_and_draws_its_gantt_chart(tmp_path):
    """The compatibility the README claims: evalys' JobSet loads jobs.csv as Batsim's."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from evalys.jobset import JobSet

    # Job 4 gets CPU 1 (freed by job 2) and CPU 3, around job 3: "1 3".
    rows = [(1, 0, 30, 1, 30, -1), (2, 0, 5, 1, 5, -1), (3, 0, 30, 1, 30, -1),
            (4, 6, 10, 2, 10, -1), (5, 7, 12, 4, 12, -1)]
    res = simulate(_workload(rows), "easy", cpus=4, workload_name="toy")
    assert res.jobs["allocated_resources"].tolist()[3] == "1 3"   # a split allocation
    path = tmp_path / "jobs.csv"
    write_jobs_csv(res.jobs, path)
    js = JobSet.from_csv(str(path))
    df = js.df.set_index("jobID")
    assert list(df.index) == ["1", "2", "3", "4", "5"]
    assert js.MaxProcs == 4
    for _, ours in res.jobs.iterrows():
        theirs = df.loc[ours["job_id"]]
        assert set(theirs["allocated_resources"]) == set(parse_intervals(ours["allocated_resources"]))
        assert theirs["proc_alloc"] == ours["requested_number_of_resources"]
        assert theirs["finish_time"] == ours["finish_time"]
        assert theirs["starting_time"] == ours["starting_time"]
    fig, ax = plt.subplots()
    try:
        from evalys.visu.legacy import plot_gantt

        plot_gantt(js, ax=ax)
        assert len(ax.patches) >= len(rows) + 1   # one rectangle per CPU run (job 4: two)
        fig.savefig(tmp_path / "gantt.png")
    finally:
        plt.close(fig)
    assert (tmp_path / "gantt.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_intervals():
    assert intervals([5, 0, 1, 2, 7, 8]) == "0-2 5 7-8"
    assert intervals([]) == ""


@pytest.mark.parametrize("seed", range(5))
def test_intervals_of_many_allocations_as_one_by_one(seed, kernel_path):
    # Paired: runner._intervals_of (compiled kernel, or numpy: one text)
    # against intervals() per allocation, with empty allocations, single
    # cores, blocks, lists in and out of order and the highest core id.
    import random

    from simlib.runner import _intervals_of

    rng = random.Random(seed)
    span = rng.choice([1, 2, 10, 128, 1152])
    allocs = [rng.sample(range(span), rng.randint(0, min(span, 40))) for _ in range(300)]
    allocs += [sorted(a) for a in allocs[:100]]
    allocs.append(list(range(span)))
    assert _intervals_of(allocs) == [intervals(a) for a in allocs]


def test_write_jobs_csv_fast_path_matches_pandas(tmp_path):
    """The hand-made CSV text is the text pandas writes (floats, NaN stretch, killed jobs)."""
    rows = [(1, 0, 30, 1, 20, -1), (2, 0, 0, 1, 5, -1), (3, 1, 7, 3, 30, -1)]
    res = simulate(_workload(rows), "easy", cpus=4, workload_name="w 1")
    path = tmp_path / "jobs.csv"
    write_jobs_csv(res.jobs, path)
    assert path.read_text() == res.jobs.to_csv(index=False, lineterminator="\n")
    # Cells the csv module would quote: pandas writes the table.
    res.jobs["workload_name"] = "a,b"
    write_jobs_csv(res.jobs, path)
    assert path.read_text() == res.jobs.to_csv(index=False, lineterminator="\n")




@pytest.mark.parametrize("policy", [p for p in POLICIES if p not in ("scojo_pect", "glomarc_ts")])
def test_a_run_leaves_no_reference_cycle(policy):
    # Papers K and U run many simulations with the collector paused
    # (gc_paused around the set): a run must be freed by reference counting
    # alone, or the set would hold every run's jobs until its end.
    import gc

    wl = _workload([(i, i * 3, 10 + i % 7, 1 + i % 4, 20, -1) for i in range(40)])
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        res = simulate(wl, policy, cpus=4)
        assert len(res.jobs) == 40
        del res
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_result_table_and_frames_agree_and_write_the_same_csv(tmp_path):
    # SimResult keeps numpy columns and the simulator's rows; its DataFrames
    # are built on first use: the same values, and the same jobs.csv bytes
    # from either.
    rows = [[i + 1, 3 * i, -1, 10 + (7 * i) % 50, 1 + i % 4, -1, -1, 1 + i % 4,
             80, -1, 1, 1, 1, 1, 1, 1, -1, -1] for i in range(30)]
    res = simulate(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), "fcfs_malleable", cpus=8)
    table, frame = res.table, res.jobs
    assert table.columns == tuple(frame.columns) == BATSIM_COLUMNS and len(table) == 30
    for name in BATSIM_COLUMNS:
        assert table[name].tolist() == frame[name].tolist(), name
    assert list(res.timeline.columns) == ["time", "busy_cpus", "queued_jobs", "processes"]
    assert len(res.timeline) > 1 and res.timeline is res.timeline  # built once
    write_jobs_csv(table, tmp_path / "a.csv")
    write_jobs_csv(frame, tmp_path / "b.csv")
    frame.to_csv(tmp_path / "c.csv", index=False, lineterminator="\n")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes() \
        == (tmp_path / "c.csv").read_bytes()


def test_timeline_frame_reads_the_rows_as_they_are():
    rows = [(0.0, 3, 1, 3), (2.5, 0, 0, 0), (1e9 + 0.25, 2 ** 40, 7, 9)]
    expected = pd.DataFrame(rows, columns=list(TIMELINE_COLUMNS)).astype(
        {"busy_cpus": np.int64, "queued_jobs": np.int64, "processes": np.int64})
    pd.testing.assert_frame_equal(timeline_frame(rows), expected, check_exact=True)
    with pytest.raises(ValueError, match="4 cells each"):
        timeline_frame([(0.0, 1, 2)])
    with pytest.raises(ValueError, match="4 cells each"):  # as many cells, other rows
        timeline_frame([(0.0, 1, 2), (1.0, 1, 2, 3, 4)])


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "los"])
def test_a_run_that_keeps_no_job_objects_gives_the_same_table(monkeypatch, policy):
    # keep_jobs=False makes the table as the Job objects go (TABLE_CHUNK at a
    # time, here 7 of 60 jobs); job_columns in place of the workload, as
    # simlib simulate passes it. EASY takes its columnar path either way.
    import simlib.runner as runner
    rng = np.random.default_rng(3)
    rows = [[i + 1, int(t), -1, int(r), int(p), -1, -1, int(p), int(2 * r)] + [-1] * 9
            for i, (t, r, p) in enumerate(zip(np.cumsum(rng.integers(0, 30, 60)),
                                              rng.integers(1, 300, 60), rng.integers(1, 9, 60)))]
    wl = Workload(pd.DataFrame(rows, columns=SWF_FIELDS))
    kept = simulate(wl, policy, cpus=8)
    monkeypatch.setattr(runner, "TABLE_CHUNK", 7)
    lean = simulate(runner.job_columns(wl, cpus=8), policy, cpus=8, keep_jobs=False)
    pd.testing.assert_frame_equal(kept.jobs, lean.jobs)
    assert len(kept.engine_jobs) == 60
    assert lean.engine_jobs is None or policy == "easy"   # EASY's are made only if read
