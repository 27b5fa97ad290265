"""Tests of simlib.metrics on hand-computed examples.

Most expected values are worked out by hand in the comments; the paper-U
toy example (helpers_results) also checks them against the numbers printed
in Utrera et al., Sect. 3.1.
"""
import math

import numpy as np
import pandas as pd
import pytest

from simlib import metrics as M
from helpers_results import (
    CPUS,
    easy_jobs,
    easy_timeline,
    fcfs_jobs,
    fcfs_timeline,
    make_jobs,
    make_timeline,
    malleable_jobs,
    malleable_timeline,
)


# ----------------------------------------------------------------- generic
def test_wait_statistics_fcfs():
    j = fcfs_jobs()  # waits 0, 2, 2, 3, 5, 7
    assert M.mean_wait(j) == pytest.approx(19 / 6)
    assert M.wait_percentile(j, 50) == pytest.approx(2.5)
    # sorted waits, position 0.95 * 5 = 4.75 -> 5 + 0.75 * (7 - 5)
    assert M.wait_percentile(j, 95) == pytest.approx(6.5)
    assert M.max_wait(j) == 7.0
    assert M.wait_times(j).tolist() == [0, 2, 2, 3, 5, 7]


def test_mean_response_matches_paper_u_figure_2():
    # Paper U prints 4.66, 4.33 and 3.66 time units.
    assert M.mean_response(fcfs_jobs()) == pytest.approx(28 / 6)
    assert M.mean_response(easy_jobs()) == pytest.approx(26 / 6)
    assert M.mean_response(malleable_jobs()) == pytest.approx(22 / 6)
    assert round(M.mean_response(fcfs_jobs()), 2) == 4.67


def test_bounded_slowdown_tau():
    j = fcfs_jobs()
    # With tau = 10 every job's (w + e) / 10 <= 0.8, floored to 1.
    assert M.mean_bounded_slowdown(j) == 1.0
    # tau = 2: 2/2, 3/2, 3/2, 5/2, 7/2, 8/2 -> 1 + 1.5 + 1.5 + 2.5 + 3.5 + 4 = 14
    assert M.mean_bounded_slowdown(j, tau=2.0) == pytest.approx(14 / 6)
    assert M.bounded_slowdowns(j, tau=2.0).tolist() == [1.0, 1.5, 1.5, 2.5, 3.5, 4.0]
    with pytest.raises(ValueError):
        M.bounded_slowdowns(j, tau=0)


def test_bounded_slowdown_long_job():
    j = make_jobs([(1, 1, 0, 100, 200)])  # wait 100, exec 100 -> 2
    assert M.mean_bounded_slowdown(j) == 2.0


def test_utilization_and_makespan():
    j = fcfs_jobs()
    # sum size * exec = 16 + 4 + 2 + 16 + 8 + 8 = 54 over 10 CPUs * 8
    assert M.utilization(j, CPUS) == pytest.approx(54 / 80)
    assert M.makespan(j) == 8.0


def test_makespan_starts_at_first_submission():
    j = make_jobs([(1, 2, 100, 110, 120), (2, 2, 105, 120, 150)])
    assert M.makespan(j) == 50.0
    # 2 * 10 + 2 * 30 = 80 over 4 CPUs * 50 s
    assert M.utilization(j, 4) == pytest.approx(0.4)
    # Paper D's C_max is measured from the time origin instead.
    assert M.dutot_makespan(j) == 150.0
    assert M.dutot_makespan(j, origin=100.0) == 50.0


def test_timeline_utilization():
    assert M.timeline_utilization(fcfs_timeline(), CPUS) == pytest.approx(54 / 80)
    # Malleable: busy 10 for 5 s, 8 for 1 s over 6 s.
    assert M.timeline_utilization(malleable_timeline(), CPUS) == pytest.approx(58 / 60)
    # Clipped span: [2, 5] holds 6 * 1 + 8 * 2 = 22 busy-CPU seconds.
    assert M.timeline_utilization(fcfs_timeline(), CPUS, span=(2, 5)) == pytest.approx(22 / 30)


def test_summarize_keys_and_values():
    s = M.summarize(fcfs_jobs(), CPUS, tau=2.0)
    assert set(s) == {"mean_wait", "p50_wait", "p95_wait", "max_wait", "mean_response",
                      "mean_bounded_slowdown", "utilization", "makespan"}
    assert s["mean_bounded_slowdown"] == pytest.approx(14 / 6)
    assert s["utilization"] == pytest.approx(0.675)
    assert all(isinstance(v, float) for v in s.values())
    assert set(s) <= set(M.METRICS)


def test_empty_inputs_give_nan():
    j = pd.DataFrame(columns=fcfs_jobs().columns)
    s = M.summarize(j, CPUS)
    assert all(math.isnan(v) for v in s.values())
    assert math.isnan(M.kumar_slowdown(j))
    assert math.isnan(M.utrera_fragmentation(make_timeline([]), CPUS))


def test_missing_column_is_named():
    with pytest.raises(KeyError, match="waiting_time"):
        M.mean_wait(pd.DataFrame({"x": [1.0]}))


# ----------------------------------------------------------------- paper U
def test_utrera_slowdown_matches_paper_u_figure_2():
    # Paper U prints 3.5, 3.16 and 2.5.
    assert M.utrera_slowdown(fcfs_jobs()) == pytest.approx(3.5)
    assert M.utrera_slowdown(easy_jobs()) == pytest.approx(19 / 6)
    # Malleable: J1 (0+4)/2, J2 1, J3 1, J4 (1+4)/2, J5 (1+4)/2, J6 (5+1)/1.
    assert M.utrera_slowdown(malleable_jobs(), "exec_expanded") == pytest.approx(2.5)
    arr = malleable_jobs()["exec_expanded"].to_numpy()
    assert M.utrera_slowdown(malleable_jobs(), arr) == pytest.approx(2.5)
    # Dividing by the (shrunk) execution time instead gives another number:
    # 4/4 + 1 + 1 + 5/4 + 5/4 + 6/1 = 11.5.
    assert M.utrera_slowdown(malleable_jobs()) == pytest.approx(11.5 / 6)


def test_utrera_slowdown_bad_expanded_times():
    with pytest.raises(ValueError, match="one per job"):
        M.utrera_slowdown(fcfs_jobs(), [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        M.utrera_slowdown(fcfs_jobs(), np.zeros(6))


def test_utrera_fragmentation_matches_paper_u_figure_2():
    # Paper U prints 30 %, 30 % and 0 %.
    # FCFS: free 2*2 + 4*1 + 2*2 + 6*2 while the queue is non-empty = 24 / 80.
    assert M.utrera_fragmentation(fcfs_timeline(), CPUS) == pytest.approx(0.30)
    # EASY: 0 + 2 + 6 + 2*2 + 6*2 = 24 / 80.
    assert M.utrera_fragmentation(easy_timeline(), CPUS) == pytest.approx(0.30)
    assert M.utrera_fragmentation(malleable_timeline(), CPUS) == 0.0


def test_utrera_fragmentation_ignores_idle_with_empty_queue():
    tl = make_timeline([(0, 0, 0, 0), (10, 4, 1, 4), (20, 0, 0, 0)])
    # Only [10, 20) counts: 6 free CPUs * 10 s over 20 s * 10 CPUs.
    assert M.utrera_fragmentation(tl, 10) == pytest.approx(0.3)


def test_utrera_mean_mpl():
    # FCFS, rigid: processes = busy CPUs -> equals the utilization 54/80.
    assert M.utrera_mean_mpl(fcfs_timeline(), CPUS) == pytest.approx(0.675)
    # Malleable: (14*1 + 20*3 + 12*1 + 8*1) / (6 s * 10 CPUs)
    assert M.utrera_mean_mpl(malleable_timeline(), CPUS) == pytest.approx(94 / 60)


def test_timeline_must_be_sorted():
    with pytest.raises(ValueError, match="non-decreasing"):
        M.utrera_mean_mpl(make_timeline([(5, 1, 0, 1), (0, 0, 0, 0)]), 4)


# ----------------------------------------------------------------- paper K
def test_kumar_slowdown_is_ratio_of_means():
    j = fcfs_jobs()
    # (19/6 + 9/6) / (9/6) = 28/9, not the mean of per-job ratios (3.5).
    assert M.kumar_slowdown(j) == pytest.approx(28 / 9)
    j2 = make_jobs([(1, 1, 0, 10, 11), (2, 1, 0, 0, 9)])  # waits 10, 0; runtimes 1, 9
    assert M.kumar_slowdown(j2) == pytest.approx(2.0)


def test_percent_improvement():
    assert M.percent_improvement([80.0, 120.0], [100.0, 100.0]).tolist() == [20.0, -20.0]
    up = M.percent_improvement([0.85], [0.80], higher_is_better=True)
    assert up[0] == pytest.approx(6.25)


def test_max_percent_improvement_over_sweep():
    # Lower is better (wait): improvements 0, 20, 10 -> 20.
    assert M.max_percent_improvement([100, 80, 90], [100, 100, 100]) == pytest.approx(20.0)
    # Higher is better (utilization): 0, 3/82 -> 3.6585...
    assert M.max_percent_improvement([0.8, 0.85], [0.8, 0.82], higher_is_better=True) == pytest.approx(
        100 * 0.03 / 0.82
    )
    assert M.max_percent_improvement([np.nan, 50.0], [100.0, 100.0]) == pytest.approx(50.0)
    assert math.isnan(M.max_percent_improvement([np.nan], [1.0]))


# ----------------------------------------------------------------- paper Z
def test_zeng_bounded_relative_response_time():
    j = make_jobs([(1, 4, 0, 30, 60), (2, 1, 0, 0, 2), (3, 1, 10, 10, 40)])
    # job 1: R = 60, T = 30 -> 2; job 2: R = 2, T = max(2, 10) -> 0.2 -> 1;
    # job 3: R = 30, T = 30 -> 1.
    assert M.zeng_bounded_relative_response_times(j).tolist() == [2.0, 1.0, 1.0]
    assert M.zeng_bounded_relative_response_time(j) == pytest.approx(4 / 3)
    # Bound 60 s: job 1 -> 60 / 60 = 1.
    assert M.zeng_bounded_relative_response_time(j, bound=60.0) == 1.0
    # Pure runtime without time-slice suspension (here half the execution).
    pure = [15.0, 2.0, 15.0]
    assert M.zeng_bounded_relative_response_times(j, pure_runtime=pure).tolist() == [4.0, 1.0, 2.0]
    with pytest.raises(ValueError):
        M.zeng_bounded_relative_response_time(j, bound=0.0)


def test_zeng_high_load_core_utilization():
    # N_H = 2: phases [0, 5) with busy 8, 6, 8 -> (16 + 6 + 16) / (10 * 5)
    assert M.zeng_high_load_core_utilization(fcfs_timeline(), CPUS, n_high=2) == pytest.approx(0.76)
    # N_H = 12 (paper default): never reached.
    assert math.isnan(M.zeng_high_load_core_utilization(fcfs_timeline(), CPUS))


# ----------------------------------------------------------------- metadata
def test_metrics_registry_units():
    for name, (units, long_name, description) in M.METRICS.items():
        assert units in {"s", "1", "%"}, name
        assert long_name and description
    assert M.METRICS["mean_wait"][0] == "s"
    assert M.METRICS["utilization"][0] == "1"
    assert M.METRICS["makespan"][0] == "s"


# ---------------------------------------------------------------- paper Z
def test_zeng_high_load_phases_follow_formula_1():
    import simlib.metrics as m
    tl = pd.DataFrame({"time": [0.0, 1.0, 2.0, 3.0, 6.0, 8.0],
                       "queued_jobs": [12, 11, 12, 20, 12, 12],
                       "busy_cpus": [8, 8, 4, 8, 8, 8], "busy_nodes": [2, 2, 1, 2, 2, 2]})
    # [0, 1) high, [1, 2) not, then high to the end (a phase still open at the last row).
    assert m.zeng_high_load_phases(tl).tolist() == [[0.0, 1.0], [2.0, 8.0]]
    assert m.zeng_high_load_phases(tl, n_high=21).shape == (0, 2)
    # In the phases: 1 x 8 + 1 x 4 + 3 x 8 + 2 x 8 cores over 7 time units x 8 cores.
    assert m.zeng_high_load_core_utilization(tl, cores=8) == pytest.approx(52 / 56)
    assert m.zeng_high_load_utilization(tl, 2, column="busy_nodes") == pytest.approx(13 / 14)


def test_zeng_utilizations_span_first_submission_to_last_finish():
    import simlib.metrics as m
    tl = pd.DataFrame({"time": [2.0, 4.0], "busy_cpus": [4, 0], "busy_nodes": [1, 0]})
    jobs = pd.DataFrame({"submission_time": [0.0], "finish_time": [4.0]})
    assert m.zeng_core_utilization(tl, jobs, cores=4) == pytest.approx(0.5)
    assert m.zeng_node_utilization(tl, jobs, nodes=2) == pytest.approx(0.25)
