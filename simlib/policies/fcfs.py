"""First-come first-served: start jobs in submission order while they fit."""
from __future__ import annotations

from .base import QueuePolicy


class FCFS(QueuePolicy):
    """Strict FCFS; a job that does not fit blocks every job behind it."""

    name = "fcfs"

    def schedule(self, now, full):
        self.start_head_jobs()
