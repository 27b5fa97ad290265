"""First-come first-served: start jobs in submission order while they fit."""
from __future__ import annotations

from .base import QueuePolicy


class FCFS(QueuePolicy):
    """Strict FCFS; a job that does not fit blocks every job behind it."""

    def keeps_core_state(self) -> bool:
        return False  # counts of free processors only

    name = "fcfs"
    paper = "baseline: first-come first-served"
    description = "strict FCFS: a job that does not fit blocks every job behind it"

    def schedule(self, now, full):
        self.start_head_jobs()
