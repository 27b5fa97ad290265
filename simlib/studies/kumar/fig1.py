"""Paper K's Fig. 1 sweep: EASY vs LOS on the SDSC log over offered loads (study ``kumar_fig1``).

A :class:`~simlib.studies.trace_sweep.TraceSweep` (config
``studies.kumar_fig1``): the same machinery, and the same rescaled
workloads, as the baseline study. Its cube is drawn and judged by the
``kumar`` study (:class:`.study.Kumar`: Fig. 1 and its claim), which
presents every result of the paper.

Kept apart from :mod:`.study` on purpose: the sweep's steps depend on this
module's imports only, so editing paper K's generator or report reruns no
trace simulation.
"""
from __future__ import annotations

from ..base import Artifact
from ..trace_sweep import TraceSweep

__all__ = ["KumarFig1"]


class KumarFig1(TraceSweep):
    """Paper K's Fig. 1: EASY vs LOS on the SDSC log over offered loads."""

    key = "kumar_fig1"
    section = "kumar"
    title = "Kumar et al. (kumar): Delayed-LOS, Hybrid-LOS"

    def artifacts(self) -> list[Artifact]:
        return [Artifact("kumar", self.cube_path(),
                         "Cube (netCDF): Fig. 1 trace sweep, dims (policy, trace, load)")]
