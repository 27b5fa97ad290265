"""Tests of simlib.studies.utrera.metrics: what one paper-U run measures."""
import numpy as np
import pandas as pd
import pytest

from simlib.runner import simulate
from simlib.studies.utrera.metrics import (RUN_METRICS, busiest_window, demand_ratios,
                                           log_demand_ratios, run_metrics, waiting_cpus)
from simlib.studies.utrera.transforms import toy_workload

FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]
MALLEABLE = {"ov_max": 0.0}


def test_demand_ratios_hand_computed():
    # Two 4-CPU jobs on 4 CPUs: the second waits 2 s then runs 2 s. Span 4 s;
    # requested CPU-seconds in the system 4*2 + 4*4 = 24 -> 1.5; waiting 4*2 -> 0.5.
    assert demand_ratios([0, 0], [0, 2], [2, 2], [4, 4], cpus=4) == (1.5, 0.5)
    # Jobs with a missing wait (-1) are left out.
    assert demand_ratios([0, 0], [0, -1], [2, 2], [4, 4], cpus=4) == (1.0, 0.0)
    assert all(np.isnan(demand_ratios([], [], [], [], cpus=4)))


def test_log_demand_ratios_reads_the_logs_schedule():
    w = toy_workload([(0, 2, 10), (5, 2, 10)])
    w.jobs["wait_time"] = [0, 5]
    # Span 0..20; requested CPU-s 2*10 + 2*15 = 50 over 2 CPUs x 20 s.
    assert log_demand_ratios(w, 2) == (1.25, 0.25)


@pytest.mark.parametrize("policy, expected", [
    ("fcfs", (14 / 3, 3.5, 0.3)),
    ("easy", (13 / 3, 19 / 6, 0.3)),
    ("fcfs_malleable", (11 / 3, 2.5, 0.0)),
])
def test_run_metrics_fig2(policy, expected):
    params = MALLEABLE if policy == "fcfs_malleable" else {}
    m = run_metrics(simulate(toy_workload(FIG2), policy, cpus=10, policy_params=params))
    assert set(m) == set(RUN_METRICS)
    assert (m["mean_response"], m["utrera_slowdown"], m["utrera_fragmentation"]) == \
        pytest.approx(expected, abs=1e-12)
    assert m["jobs"] == 6 and m["jobs_killed"] == 0
    assert m["mean_execution_expanded"] == pytest.approx(9 / 6)


def test_run_metrics_malleable_mpl_and_slowdown_denominator():
    m = run_metrics(simulate(toy_workload(FIG2), "fcfs_malleable", cpus=10, policy_params=MALLEABLE))
    # Processes per CPU: 14 on [0,1), 20 on [1,5), 8 on [5,6) over 10 CPUs and 6 units.
    assert m["utrera_mean_mpl"] == pytest.approx((14 + 4 * 20 + 8) / 60)
    # Formula 1 divides by the expanded time: J1 ran 4 units for 2 of work.
    assert m["mean_execution"] == pytest.approx((4 + 1 + 1 + 4 + 4 + 2) / 6)


def test_run_metrics_needs_a_timeline():
    res = simulate(toy_workload(FIG2), "easy", cpus=10, record_timeline=False)
    with pytest.raises(ValueError, match="timeline"):
        run_metrics(res)


def test_waiting_cpus_steps():
    jobs = pd.DataFrame({"submission_time": [0.0, 1.0, 1.0], "starting_time": [0.0, 3.0, 1.0],
                         "requested_number_of_resources": [4, 2, 8]})
    assert waiting_cpus(jobs, [0.0, 0.5, 1.0, 2.9, 3.0]).tolist() == [0, 0, 2, 2, 0]


def test_busiest_window_picks_the_largest_mean_queue():
    tl = pd.DataFrame({"time": [0.0, 10.0, 20.0, 30.0, 40.0, 100.0],
                       "queued_jobs": [1, 0, 4, 4, 0, 0],
                       "busy_cpus": [0] * 6, "processes": [0] * 6})
    assert busiest_window(tl, 20.0) == 20.0
    assert busiest_window(tl, 1000.0) == 0.0  # run shorter than the window
