"""Studies: each reproduced paper (and the baseline) as one :class:`Study`.

A study reads its config sub-tree, checks it, and declares the steps the
pipeline runs (:mod:`simlib.studies.base`); the Snakemake rules are
generated from them. Studies register themselves here by config key:

========== ============================================ ==========================
key        what                                         module
========== ============================================ ==========================
baseline   FCFS / EASY / conservative on real traces    :mod:`.baseline`
kumar      paper K, Section V and every K artifact      :mod:`.kumar.study`
kumar_fig1 paper K's Fig. 1 trace sweep (EASY vs LOS)   :mod:`.kumar.fig1`
utrera     paper U: FCFS-malleable vs EASY (every part) :mod:`.utrera`
dutot      paper D: contiguity and locality, SimGrid    :mod:`.dutot`
zeng       paper Z: Scojo-PECT on multi-core nodes      :mod:`.zeng`
========== ============================================ ==========================
"""
from .base import (
                   STUDY_CLASSES,
                   Artifact,
                   Files,
                   Step,
                   StepContext,
                   Study,
                   enabled_studies,
                   load_study,
                   register_study,
)
from .baseline import Baseline
from .dutot import Dutot
from .kumar.fig1 import KumarFig1
from .kumar.study import Kumar
from .trace_sweep import TraceSweep
from .utrera import Utrera
from .zeng import Zeng

__all__ = ["STUDY_CLASSES", "Artifact", "Baseline", "Dutot", "Files", "Kumar", "KumarFig1", "Step",
           "StepContext", "Study", "TraceSweep", "Utrera", "Zeng", "enabled_studies", "load_study",
           "register_study"]
