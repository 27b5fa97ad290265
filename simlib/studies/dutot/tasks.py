"""Paper D's jobs as SimGrid parallel tasks (§5.1).

A job j of ``size_j`` hosts (``job.procs``) and trace runtime ``ret_j``
(``job.work``, s) computes ``ret_j * F_comp`` flop on each of its hosts and
sends ``ret_j * F_comm`` bytes from each of its hosts to each, itself
included (the paper's all-ones S matrix; ``self_communication=False`` zeroes
the diagonal): the README's interpretation choice 3 says why.
:func:`parallel_task` is the ``task`` function of
:func:`simlib.backends.simgrid.simulate_simgrid` (bytes row-major,
``bytes[r * size_j + c]`` from the job's r-th host to its c-th); bind its
factors with :func:`task_function` (a :func:`functools.partial` of a
module-level function: it runs in a forked SimGrid process).

Examples
--------
>>> from types import SimpleNamespace
>>> job = SimpleNamespace(procs=2, work=10.0)
>>> parallel_task(job, f_comp=1e6, f_comm=3.0)
([10000000.0, 10000000.0], [30.0, 30.0, 30.0, 30.0])
>>> parallel_task(job, f_comp=1e6, f_comm=3.0, self_communication=False)[1]
[0.0, 30.0, 30.0, 0.0]
>>> task_function(f_comp=2.0, f_comm=0.0)(SimpleNamespace(procs=1, work=3.0))
([6.0], [0.0])
"""
from __future__ import annotations

import functools

__all__ = ["parallel_task", "task_function"]


def parallel_task(job, *, f_comp: float, f_comm: float,
                  self_communication: bool = True) -> tuple[list[float], list[float]]:
    """Computation vector and communication matrix (row-major) of one job."""
    n, ret = int(job.procs), float(job.work)
    nbytes = [ret * float(f_comm)] * (n * n)
    if not self_communication:
        for r in range(n):
            nbytes[r * n + r] = 0.0
    return [ret * float(f_comp)] * n, nbytes


def task_function(*, f_comp: float, f_comm: float, self_communication: bool = True):
    """:func:`parallel_task` with its factors bound."""
    return functools.partial(parallel_task, f_comp=float(f_comp), f_comm=float(f_comm),
                             self_communication=bool(self_communication))
