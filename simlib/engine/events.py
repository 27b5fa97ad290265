"""The event queue: a binary heap whose key makes ties deterministic.

Key = ``(time, event_class, sequence)``. At one timestamp, events are
applied by class — job completions first, then resource/estimate changes,
then (outside the heap) submissions, then policy timers — and within a
class in the order they were scheduled. Job completions are not in the
simulator's heap: the execution model (:mod:`simlib.engine.execution`)
reports them, and the simulator applies them first; ``FINISH`` names
their place in that order. The sequence number is a global
counter, so equal (time, class) pairs never compare the payload and the
order never depends on object identity or hashing.
"""
from __future__ import annotations

import heapq
from typing import Any

#: A running job reaches the end of its work (or its walltime).
FINISH = 0
#: A change that affects running jobs (runtime/estimate command, rate change).
CHANGE = 1
#: Job submissions (kept outside the heap; this value orders them).
SUBMIT = 2
#: A wake-up requested by the policy (reservation start, time slice...).
TIMER = 3


class EventQueue:
    """Min-heap of ``(time, klass, seq, payload)`` tuples.

    Examples
    --------
    >>> q = EventQueue()
    >>> q.push(5.0, TIMER, "b"); q.push(5.0, FINISH, "a")
    >>> q.pop()[3], q.pop()[3]
    ('a', 'b')
    """

    __slots__ = ("_heap", "_seq")

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int, Any]] = []
        self._seq = 0

    def push(self, time: float, klass: int, payload: Any) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (time, klass, self._seq, payload))

    def pop(self) -> tuple[float, int, int, Any]:
        return heapq.heappop(self._heap)

    def peek_time(self) -> float:
        """Time of the next event, ``inf`` when empty."""
        return self._heap[0][0] if self._heap else float("inf")

    def __len__(self) -> int:
        return len(self._heap)
