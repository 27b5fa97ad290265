"""Paper D's jobs as parallel tasks (simlib.studies.dutot.tasks)."""
import pickle
from types import SimpleNamespace

import numpy as np
import pytest

from simlib.studies.dutot.tasks import parallel_task, task_function


@pytest.mark.parametrize("size", [1, 2, 5, 16])
def test_every_host_computes_and_every_pair_communicates_ret_times_the_factor(size):
    job = SimpleNamespace(procs=size, work=3600.0)
    flops, nbytes = parallel_task(job, f_comp=1e6, f_comm=2e7)
    assert flops == [3.6e9] * size
    matrix = np.array(nbytes).reshape(size, size)
    assert (matrix == 3600.0 * 2e7).all()  # S is all ones, diagonal included


@pytest.mark.parametrize("size", [1, 3, 16])
def test_without_self_communication_the_diagonal_is_zero(size):
    job = SimpleNamespace(procs=size, work=10.0)
    _, nbytes = parallel_task(job, f_comp=1.0, f_comm=5.0, self_communication=False)
    matrix = np.array(nbytes).reshape(size, size)
    assert (np.diag(matrix) == 0).all()
    off = ~np.eye(size, dtype=bool)
    assert (matrix[off] == 50.0).all()


def test_f_comm_zero_means_no_communication():
    _, nbytes = parallel_task(SimpleNamespace(procs=4, work=7.0), f_comp=1.0, f_comm=0.0)
    assert nbytes == [0.0] * 16


def test_task_function_binds_the_factors_and_survives_pickling():
    fn = task_function(f_comp=2, f_comm=3, self_communication=False)
    job = SimpleNamespace(procs=2, work=1.0)
    assert fn(job) == ([2.0, 2.0], [0.0, 3.0, 3.0, 0.0])
    # A module-level function with bound keywords: usable in a fork or a pickle.
    assert pickle.loads(pickle.dumps(fn))(job) == fn(job)
