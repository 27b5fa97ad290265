"""SJF-EASY: EASY backfilling over a shortest-job-first queue.

The queue is ordered by requested time (shortest first, ties in submission
order); the head of that order gets EASY's reservation, and backfilling
scans the rest in that order. Only :meth:`EASY.order_key
<simlib.policies.easy.EASY.order_key>` changes, so runs keep EASY's
compiled loop.

Run it (from the repository's top directory)::

    simlib simulate TRACE.swf --policy-module examples/policies/sjf_easy.py --policy sjf_easy

Examples
--------
>>> from simlib.engine.job import Job
>>> SJFEasy().order_key(Job(0, 1, 0.0, 4, 600.0, 500.0))
600.0
>>> SJFEasy.compiled_problem() is None
True
"""
from simlib.policies import register
from simlib.policies.easy import EASY


@register
class SJFEasy(EASY):
    """EASY with the queue in shortest-requested-time-first order."""

    name = "sjf_easy"
    paper = "example: docs/writing_a_policy.md"
    description = "EASY backfilling over a shortest-job-first queue (by requested time)"

    def order_key(self, job):
        # The estimate, not the runtime: a scheduler does not know the runtime.
        return job.requested_time
