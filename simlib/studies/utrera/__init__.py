"""Paper U (Utrera et al., Euro-Par 2012): FCFS-malleable vs EASY backfilling.

The study ``utrera`` (grid ``config/grids/utrera.yaml``, schema
``utrera.schema.json``; published numbers in ``config/published/utrera.yaml``)
rebuilds every table and figure of the paper into ``paper_figures/utrera/``,
one cube per part (:data:`PARTS`, the cubes' titles in ``artifacts.yaml``):
Fig. 2's toy example, Table 1's Lublin workloads, the three trace portions
(Fig. 3, Tables 2-3, the candidate orders and the time-model readings),
Sect. 5.1's long jobs and, at the scales that ask for it, Table 2's "Jobs"
read as whole workloads (:data:`WHOLE`).

The class :class:`.study.Utrera` reads and checks the grid and declares the
steps; each step runs a function of the package's modules, imported only by
the steps that use it (so editing a figure reruns no simulation, and editing
the study class reruns no step: this module, which every step imports,
holds only the names below).

Every other reading of the time model (``readings`` and every combination
of ``reading_factors``) runs as policy ``fcfs_malleable:<name>``: on the
traces one job per reading, elsewhere as one more value (:data:`READINGS`)
of the simulation step's ``policy`` wildcard, with the main runs' workloads
and seeds (the README's reading x claim matrix). Seeds run inside one job
per point; EASY on a fixed workload draws nothing and is simulated once.
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
