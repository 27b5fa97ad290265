"""Studies: each reproduced paper (and the baseline) as one :class:`Study`.

A study reads its config sub-tree, checks it, and declares the steps the
pipeline runs (:mod:`simlib.studies.base`); the Snakemake rules are
generated from them. Studies register themselves here by config key:

========== ============================================ ==========================
key        what                                         module
========== ============================================ ==========================
baseline   FCFS / EASY / conservative on real traces    :mod:`.baseline`
kumar_fig1 paper K's Fig. 1 trace sweep (EASY vs LOS)   :mod:`.trace_sweep`
utrera     paper U: FCFS-malleable vs EASY (every part) :mod:`.utrera`
========== ============================================ ==========================
"""
from .base import (STUDY_CLASSES, Artifact, Files, Step, StepContext, Study, enabled_studies,
                   load_study, register_study)
from .baseline import Baseline
from .trace_sweep import TraceSweep
from .utrera import Utrera


class KumarFig1(TraceSweep):
    """Paper K's Fig. 1: EASY vs LOS on the SDSC log over offered loads."""

    key = "kumar_fig1"
    section = "K"
    title = "Paper K — Kumar et al."

    def artifacts(self):
        return [Artifact("K", self.cube_path(),
                         "Cube (netCDF): Fig. 1 trace sweep, dims (policy, trace, load)")]


register_study(KumarFig1)

__all__ = ["STUDY_CLASSES", "Artifact", "Baseline", "Files", "Step", "StepContext", "Study",
           "TraceSweep", "Utrera", "enabled_studies", "load_study", "register_study"]
