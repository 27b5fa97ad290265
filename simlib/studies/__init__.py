"""Studies: each reproduced paper (and the baseline) as one :class:`Study`.

A study reads its config sub-tree, checks it, and declares the steps the
pipeline runs (:mod:`simlib.studies.base`); the Snakemake rules are
generated from them. Studies register themselves by config key when imported; the
built-in ones are imported when first loaded (``BUILTIN_STUDIES``):

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
                   BUILTIN_STUDIES,
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

#: The study classes by name, imported on first use (module ``__getattr__``):
#: ``import simlib.studies`` stays cheap for a pipeline job, which loads one.
_CLASSES = {"Baseline": ".baseline", "Dutot": ".dutot", "KumarFig1": ".kumar.fig1",
            "Kumar": ".kumar.study", "TraceSweep": ".trace_sweep", "Utrera": ".utrera",
            "Zeng": ".zeng"}


def __getattr__(name):
    if name in _CLASSES:
        import importlib
        return getattr(importlib.import_module(_CLASSES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BUILTIN_STUDIES", "STUDY_CLASSES", "Artifact", "Baseline", "Dutot", "Files", "Kumar",
           "KumarFig1", "Step", "StepContext", "Study", "TraceSweep", "Utrera", "Zeng",
           "enabled_studies", "load_study", "register_study"]
