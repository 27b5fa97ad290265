"""EASY-small: EASY backfilling that backfills only jobs of at most ``max_cpus`` CPUs.

Wider jobs start only when they reach the head of the (FCFS) queue. Only
:meth:`EASY.backfill_candidate
<simlib.policies.easy.EASY.backfill_candidate>` changes, so runs keep
EASY's compiled loop.

Run it (from the repository's top directory)::

    simlib simulate TRACE.swf --policy-module examples/policies/easy_small.py \\
        --policy easy_small --param max_cpus=8

Examples
--------
>>> from simlib.engine.job import Job
>>> policy = EasySmall(max_cpus=8)
>>> policy.backfill_candidate(Job(0, 1, 0.0, 8, 60.0, 60.0))
True
>>> policy.backfill_candidate(Job(1, 2, 0.0, 9, 60.0, 60.0))
False
>>> EasySmall(max_cpus=0)
Traceback (most recent call last):
...
simlib.errors.ConfigError: easy_small: max_cpus must be an integer > 0, not 0
"""
from simlib.errors import ConfigError
from simlib.policies import register
from simlib.policies.easy import EASY


@register
class EasySmall(EASY):
    """EASY whose backfilling takes only jobs of at most ``max_cpus`` CPUs."""

    name = "easy_small"
    paper = "example: docs/writing_a_policy.md"
    description = "EASY backfilling of small jobs only (at most max_cpus CPUs)"
    # The type (an integer) is checked by Policy.check_param_types.
    defaults = {"max_cpus": 16}

    def __init__(self, **params):
        super().__init__(**params)
        # Ranges are the policy's own check; a clear ConfigError, not a crash later.
        if self.params["max_cpus"] <= 0:
            raise ConfigError(f"{self.name}: max_cpus must be an integer > 0, "
                              f"not {self.params['max_cpus']!r}")
        self.max_cpus = self.params["max_cpus"]

    def backfill_candidate(self, job):
        return job.procs <= self.max_cpus
