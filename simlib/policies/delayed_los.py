"""Delayed-LOS (paper K, Algorithm 1).

LOS starts the head job as soon as it fits, which paper K argues is too
aggressive (its Fig. 2: on 10 free processors with jobs of 7, 4 and 6
waiting, starting the 7 uses 7 processors where 4 + 6 would use 10).
Delayed-LOS keeps a *skip count* ``scount`` on the head job:

* head fits, ``scount < C_s``: Basic_DP over the first ``lookahead`` jobs,
  head included (lines 6–11); if the head is not chosen its ``scount``
  grows by one;
* head fits, ``scount >= C_s``: start it at once, as LOS would (lines 3–5);
* head does not fit: reserve it and run Reservation_DP, as LOS (12–20).

A *scheduling cycle* is one policy round (one event time at which the
policy runs with processors free); ``scount`` is counted per job and only
while the job is the head. After a forced start the new head is examined
in the same round (as LOS does), so the processors left are not wasted
until the next event. With ``cs=0`` Delayed-LOS is LOS; with ``cs=None``
(C_s = infinity) a head is never forced: every start goes through Basic_DP.

``forced_starts`` counts the heads started because their skip count had
reached C_s (every head start when ``cs=0``); ``max_skips`` is the largest
skip count any job reached. A run whose ``max_skips`` stays below C_s had
no forced start and is the same run as with C_s = infinity.
"""
from __future__ import annotations

from ..errors import ConfigError
from .los import LOS


class DelayedLOS(LOS):
    """LOS that may skip a fitting head job up to ``cs`` times (C_s).

    ``scount`` maps job index to its skip count (jobs that were skipped).
    """

    name = "delayed_los"
    paper = "kumar: Kumar, Shae & Jamjoom, Delayed-LOS (Algorithm 1)"
    description = "LOS that may skip a fitting head job up to cs times for a better packing"
    defaults = {**LOS.defaults, "cs": 7}

    @classmethod
    def check_param_types(cls, params) -> None:
        # cs=None (C_s = infinity) is checked in __init__; the int default would refuse it.
        super().check_param_types({k: v for k, v in params.items()
                                   if not (k == "cs" and v is None)})

    def __init__(self, **params):
        super().__init__(**params)
        cs = self.params["cs"]
        if cs is not None and (not isinstance(cs, int) or isinstance(cs, bool) or cs < 0):
            raise ConfigError(f"{self.name}: cs (C_s) must be an integer >= 0 or None "
                              f"(infinity), not {cs!r}")
        self.cs = cs
        self.scount: dict[int, int] = {}
        self.forced_starts = 0
        self.max_skips = 0

    def head_must_start(self, head) -> bool:
        # Called only for a head that fits; True starts it at once.
        forced = self.cs is not None and self.scount.get(head.idx, 0) >= self.cs
        self.forced_starts += forced
        return forced

    def head_skipped(self, head) -> None:
        n = self.scount[head.idx] = self.scount.get(head.idx, 0) + 1
        self.max_skips = max(self.max_skips, n)
