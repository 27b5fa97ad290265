"""Paper U (Utrera et al., Euro-Par 2012): FCFS-malleable vs EASY backfilling.

The study ``utrera`` (grid ``config/grids/utrera.yaml``, schema
``utrera.schema.json``; published numbers in ``config/published/utrera.yaml``)
rebuilds every table and figure of the paper into ``paper_figures/utrera/``.
Its parts, each one cube:

========= ============================================== ===========================
part      what                                           cube dims
========= ============================================== ===========================
fig2      the toy example, simulated (Gantt charts)      policy
table1    Lublin workloads of 150 jobs in 2 h per load   fit, policy, load, seed
          (the main fit and its alternatives)
traces    three PWA trace portions, EASY vs FCFS-mall.,  trace, policy, seed
          other candidate orders and time-model readings
long_util Sect. 5.1: SDSC, long jobs' CPU utilization    policy, long_util, seed
          (on its own portion, by default the 10,000
          jobs holding the most long jobs)
whole_    Table 2's "Jobs" read as whole workloads       trace, policy, seed
workloads (EASY, FCFS-malleable; ``whole_workloads``,
          by default at full scale only)
========= ============================================== ===========================

The class :class:`.study.Utrera` reads and checks the grid and declares the
steps; each step runs a function of the package's modules (:mod:`.workloads`,
:mod:`.runs`, :mod:`.cubes`, :mod:`.figures`, :mod:`.claims`, :mod:`.readme`),
imported only by the steps that use it (so editing a figure reruns no
simulation, and editing the study class reruns no step: this package module,
which every step imports, holds only the names below).

Every other reading of the time model (named ``readings`` and every
combination of ``reading_factors``) runs as policy ``fcfs_malleable:<name>``
on the traces (one job per reading), and on Table 1's main-fit workloads,
Sect. 5.1's points and Fig. 2's example as one more value of the
simulation step's ``policy`` (``runs`` for Fig. 2) wildcard,
:data:`READINGS`: one job per point runs every reading, with the main runs'
workloads and seeds (the README's reading x claim matrix).

Seeds run inside one job per point, so the DAG stays small.
fcfs_malleable's OV overhead is drawn from the seed index; EASY on a fixed
workload draws nothing and is simulated once.
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
