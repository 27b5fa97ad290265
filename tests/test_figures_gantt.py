"""Tests of simlib.figures.gantt: interval parsing, CPU runs, the Gantt chart of a schedule."""
import pandas as pd
import pytest

from simlib.figures.common import new_figure
from simlib.figures.gantt import (MAX_LABELS, core_runs, draw_jobs, gantt_figure,
                                  parse_intervals, plot_gantt)
from simlib.runner import intervals, simulate
from simlib.workload.swf import SWF_FIELDS, Workload


def _jobs(n, cpus=4):
    return pd.DataFrame({
        "job_id": [str(i + 1) for i in range(n)],
        "starting_time": [10.0 * i for i in range(n)],
        "execution_time": [10.0] * n,
        "allocated_resources": [f"0-{cpus - 1}"] * n,
    })


@pytest.mark.parametrize("ids", [[0], [0, 1, 2, 5], [3, 7, 8, 9, 12], list(range(64))])
def test_parse_intervals_inverts_the_runner_writer(ids):
    assert parse_intervals(intervals(ids)) == ids


def test_parse_intervals_of_a_job_that_never_ran():
    assert parse_intervals("") == [] and parse_intervals(None) == []


def test_core_runs():
    assert core_runs([9, 1, 2, 3, 7, 8]) == [(1, 3), (7, 3)]
    assert core_runs([4]) == [(4, 1)]
    assert core_runs([4, 5, 8, 9]) == [(4, 2), (8, 2)]
    assert core_runs([]) == []


def test_draw_jobs_one_rectangle_per_cpu_run_and_labels():
    ax = new_figure(4, 3).subplots()
    jobs = pd.DataFrame({"job_id": ["a", "b"], "starting_time": [0.0, 5.0],
                         "execution_time": [5.0, 5.0], "allocated_resources": ["0-1 3", "2"]})
    assert draw_jobs(ax, jobs, label=lambda r: r.job_id) == 3
    (coll,) = ax.collections
    paths = coll.get_paths()
    assert [tuple(p.vertices.min(axis=0)) for p in paths] == [(0.0, 0.0), (0.0, 3.0), (5.0, 2.0)]
    # The label sits on the job's largest run.
    assert [(t.get_text(), t.get_position()) for t in ax.texts] == [("a", (2.5, 1.0)),
                                                                     ("b", (7.5, 2.5))]


def test_gantt_figure_caps_the_jobs_and_says_so():
    fig = gantt_figure(_jobs(10), 4, max_jobs=3)
    ax = fig.axes[0]
    assert len(ax.collections[0].get_paths()) == 3
    assert "first 3 of 10 jobs" in ax.get_xlabel()
    assert ax.get_ylim() == (0.0, 4.0)


def test_gantt_figure_labels_only_small_schedules():
    assert len(gantt_figure(_jobs(3), 4).axes[0].texts) == 3
    assert len(gantt_figure(_jobs(MAX_LABELS + 1), 4).axes[0].texts) == 0


def test_plot_gantt_of_a_simulated_schedule(tmp_path):
    rows = [[i + 1, i, -1, 5 + i % 4, 1 + i % 3, -1, -1, 1 + i % 3, 10, -1, 1, 1, 1, 1, 1, 1, -1, -1]
            for i in range(12)]
    res = simulate(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), "easy", cpus=3)
    a = plot_gantt(res.jobs, tmp_path / "g.png", cpus=3, title="toy")
    b = plot_gantt(res.jobs, tmp_path / "h.png", cpus=3, title="toy")
    assert a.read_bytes()[:4] == b"\x89PNG"
    assert a.read_bytes() == b.read_bytes()   # deterministic output
    assert plot_gantt(res.jobs, tmp_path / "g.svg", cpus=3).read_text().startswith("<?xml")
