"""Tests of simlib.allocations: a simulation recording every job's CPU set over time."""
import doctest

import numpy as np

from simlib import allocations
from simlib.allocations import simulate_with_allocations
from simlib.studies.utrera.transforms import toy_workload

#: Paper U's Fig. 2 example: (submit, size, runtime) on 10 CPUs.
FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]
MALLEABLE = {"ov_max": 0.0}


def test_doctests():
    assert doctest.testmod(allocations).failed == 0


def test_allocations_of_fig2_malleable():
    res, seg = simulate_with_allocations(toy_workload(FIG2), "fcfs_malleable", cpus=10,
                                         policy_params=MALLEABLE)
    rows = {(r.job_id, r.start, r.end): (r.cpus, r.mpl) for r in seg.itertuples()}
    assert rows == {(1, 0.0, 4.0): (4, 2.0), (2, 0.0, 1.0): (4, 1.0), (3, 0.0, 1.0): (2, 1.0),
                    (4, 1.0, 5.0): (4, 2.0), (5, 1.0, 5.0): (2, 2.0), (6, 4.0, 6.0): (4, 2.0)}
    # Segments agree with the job table and never over-allocate a CPU.
    jobs = res.jobs.set_index("job_id")
    for jid, grp in seg.groupby("job_id"):
        assert grp["start"].min() == jobs.loc[str(jid), "starting_time"]
        assert grp["end"].max() == jobs.loc[str(jid), "finish_time"]
    for t in np.arange(0.25, 6, 0.5):
        live = seg[(seg["start"] <= t) & (seg["end"] > t)]
        ids = [c for ids in live["cpu_ids"] for c in ids]
        assert len(ids) == len(set(ids)) <= 10


def test_allocations_record_shrink_and_expand():
    res, seg = simulate_with_allocations(toy_workload([(0, 4, 2), (1, 2, 1)]), "fcfs_malleable",
                                         cpus=4, policy_params=MALLEABLE)
    j1 = seg[seg["job_id"] == 1]
    assert j1["cpus"].tolist() == [4, 2, 4]
    assert j1["end"].iloc[-1] == res.jobs["finish_time"].iloc[0] == 2.5
