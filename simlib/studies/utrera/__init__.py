"""Paper U (Utrera et al., Euro-Par 2012): FCFS-malleable vs EASY backfilling.

The study ``utrera`` (grid ``config/grids/utrera.yaml``, schema
``utrera.schema.json``; published numbers in ``config/published/utrera.yaml``)
rebuilds every table and figure of the paper into ``paper_figures/utrera/``,
one cube per part (:data:`PARTS`, and :data:`WHOLE` at the scales that ask
for it). :class:`.study.Utrera` reads and checks the grid and declares the
steps; each step runs a function of the package's modules, imported only by
the steps that use it (so editing a figure reruns no simulation, and editing
the study class reruns no step: this module, which every step imports,
holds only the names below). Every other reading of the time model runs as
policy ``fcfs_malleable:<name>`` (README, interpretation 3); seeds run
inside one job per point.
"""
from __future__ import annotations

__all__ = ["EASY", "MALLEABLE", "READINGS", "PARTS", "WHOLE", "OUT"]

#: The study's figures and tables.
OUT = "paper_figures/utrera"
#: The paper's parts, one cube each, in index order.
PARTS = ("fig2", "table1", "traces", "long_util")
#: The optional part: Table 2's "Jobs" column read as whole workloads (its cube
#: and ``whole_workloads.md`` only at the scales of ``whole_workloads.scales``).
WHOLE = "whole_workloads"
#: The two policies compared everywhere.
EASY, MALLEABLE = "easy", "fcfs_malleable"
#: The value of a simulation step's ``policy`` wildcard that runs fcfs_malleable
#: under every other reading of the time model (one summary, a label per reading).
READINGS = "readings"
