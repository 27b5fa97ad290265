"""Paper Z's run summaries: RR per class, utilizations, phases, drain, overhead."""
import math

import pandas as pd

from simlib.studies.zeng.runs import run
from simlib.studies.zeng.summaries import (drain_fraction, mean_queue_length, overhead_share,
                                           rr_by_class, summary)
from simlib.studies.zeng.workloads import generate


def test_rr_uses_the_bound_and_the_pure_runtime():
    j = pd.DataFrame({"submission_time": [0.0, 0.0, 0.0], "finish_time": [5.0, 1200.0, 4000.0],
                      "executed": [1.0, 600.0, 4000.0], "runtime": [1.0, 300.0, 2000.0],
                      "type": ["short", "medium", "long"]})
    assert rr_by_class(j, 10.0) == {"all": (0.5 * 0 + 1 + 2 + 1) / 3, "short": 1.0, "medium": 2.0,
                                     "long": 1.0}
    assert rr_by_class(j, 10.0, pure="runtime")["medium"] == 4.0


def test_queue_length_and_drain_by_hand():
    jobs = pd.DataFrame({"submission_time": [0.0, 10.0], "finish_time": [15.0, 20.0]})
    usage = pd.DataFrame({"time": [0.0, 10.0, 15.0], "queued_jobs": [2, 0, 1]})
    assert mean_queue_length(usage, jobs) == (2 * 10 + 0 * 5 + 1 * 5) / 20
    assert drain_fraction(jobs) == 1.0


def test_summary_of_a_run_is_flat_and_consistent():
    w = generate(9.83, 400, 2)
    res = run(w)
    s = summary(res, nodes=128, kind="multicore", bound=10.0, bounds=[10.0, 60.0], n_high=12)
    assert all(isinstance(v, float) for v in s.values())
    assert 0 < s["u_core"] <= s["u_node"] <= 1
    assert s["rr_all"] >= 1 and s["rr_b60_all"] <= s["rr_all"]
    assert math.isclose(s["makespan_days"] * 86400, s["makespan"])
    assert 0 < s["overhead_share"] < 6
    # The high-load utilizations are over the phases only.
    # This workload queues up: high-load phases exist, each with a utilization.
    assert s["high_phases"] > 0 and 0 < s["u_core_high"] <= 1
    assert s["u_node_high"] >= s["u_core_high"]


def test_overhead_share_by_hand():
    slices = pd.DataFrame({"start": [0.0, 100.0], "effective": [10.0, 110.0], "end": [100.0, 200.0]})
    assert overhead_share(slices, pd.DataFrame({"submission_time": [0.0], "finish_time": [200.0]})) == 10.0
