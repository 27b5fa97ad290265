"""Hybrid-LOS (paper K, Algorithms 2 and 3): Delayed-LOS with dedicated jobs.

Batch jobs are scheduled as by Delayed-LOS, on the dedicated-job plan of
:mod:`simlib.policies.dedicated` (dedicated queue sorted by requested start,
freeze end time and capacity of each dedicated start, due dedicated jobs
moved ahead of the batch queue with ``scount = C_s``):

* no dedicated job waiting for its start (``W^d = ∅``, line 3): exactly
  Delayed-LOS (line 4);
* head fits, ``scount < C_s`` (lines 5–22): the DP over the window, head
  included, under the dedicated freeze points (Reservation_DP with
  ``frec_d``); ``scount`` grows if the head is not chosen;
* head fits, ``scount >= C_s`` (lines 35–37): start it;
* head does not fit: it is reserved (as in Delayed-LOS) and the DP runs
  under both its freeze point and the dedicated ones; while ``W^d ≠ ∅``
  this also counts as a skip (lines 22 and 30 increment ``scount`` whenever
  the head is not in ``S_f``).

Two readings differ from the printed Algorithm 2, which (a) activates a
head with ``scount >= C_s`` without checking that it fits, and (b) gives a
non-fitting head no reservation while dedicated jobs wait: here the head
starts when it fits and is reserved otherwise, as in Delayed-LOS, so the
three heterogeneous policies differ only in their batch core (EASY, LOS,
Delayed-LOS) and the comparison of Figs. 9–10 isolates it.
"""
from __future__ import annotations

from .dedicated import DedicatedMixin
from .delayed_los import DelayedLOS


class HybridLOS(DedicatedMixin, DelayedLOS):
    """Hybrid-LOS: Delayed-LOS for batch jobs around dedicated jobs."""

    name = "hybrid_los"
    paper = "kumar: Kumar, Shae & Jamjoom, Hybrid-LOS (Algorithms 2-3)"
    description = "Delayed-LOS for batch jobs around dedicated jobs' requested starts"

    def head_reserved(self, head, chosen) -> None:
        if self.waiting_dedicated(self.sim.now):
            self.head_skipped(head)
