"""Studies: each reproduced paper (and the baseline) as one :class:`Study`.

A study reads its config sub-tree, checks it, and declares the steps the
pipeline runs (:mod:`simlib.studies.base`); the Snakemake rules are
generated from them. The one registry of studies is the config's
``registry`` mapping (study key -> ``module:Class``), to which each grid
file adds its own studies; a study is imported when first loaded:

========== ============================================ ==================================
key        what                                         class (``config/grids/*.yaml``)
========== ============================================ ==================================
baseline   FCFS / EASY / conservative on real traces    :class:`.baseline.Baseline`
kumar      paper K, Section V and every K artifact      :class:`.kumar.study.Kumar`
kumar_fig1 paper K's Fig. 1 trace sweep (EASY vs LOS)   :class:`.kumar.fig1.KumarFig1`
utrera     paper U: FCFS-malleable vs EASY (every part) :class:`.utrera.study.Utrera`
dutot      paper D: contiguity and locality, SimGrid    :class:`.dutot.Dutot`
zeng       paper Z: Scojo-PECT on multi-core nodes      :class:`.zeng.Zeng`
========== ============================================ ==================================
"""
from .base import (
                   Artifact,
                   Files,
                   Step,
                   StepContext,
                   Study,
                   check_registry,
                   load_study,
                   registry,
                   selected_keys,
                   selected_studies,
                   study_class,
)

#: The study classes by name, imported on first use (module ``__getattr__``):
#: ``import simlib.studies`` stays cheap for a pipeline job, which loads one.
_CLASSES = {"Baseline": ".baseline", "Dutot": ".dutot", "KumarFig1": ".kumar.fig1",
            "Kumar": ".kumar.study", "TraceSweep": ".trace_sweep", "Utrera": ".utrera.study",
            "Zeng": ".zeng"}


def __getattr__(name):
    if name in _CLASSES:
        import importlib
        return getattr(importlib.import_module(_CLASSES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Artifact", "Baseline", "Dutot", "Files", "Kumar", "KumarFig1", "Step", "StepContext",
           "Study", "TraceSweep", "Utrera", "Zeng", "check_registry", "load_study", "registry",
           "selected_keys", "selected_studies", "study_class"]
