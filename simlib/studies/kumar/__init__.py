"""Paper K (Kumar, Shae, Jamjoom) as a study: the experiments of Section V and Fig. 1.

D. Kumar, Z.-Y. Shae, H. Jamjoom, "Scheduling Batch and Heterogeneous Jobs
with Runtime Elasticity in a Parallel Processing Environment". Two studies
(``config/grids/kumar.yaml``):

* ``kumar_fig1`` (:class:`.fig1.KumarFig1`): Fig. 1, EASY vs LOS on the
  SDSC log, a trace sweep (:mod:`simlib.studies.trace_sweep`);
* ``kumar`` (:class:`.study.Kumar`): Section V on CWF workloads of
  :mod:`simlib.studies.kumar.generator` (M = 320 processors in units of 32,
  N_J = 500 jobs per run), in two sweeps:

  - the **C_s sweep** (purpose ``cs``, Figs. 5–6): Delayed-LOS at every
    C_s of the grid against EASY and LOS (which do not depend on C_s), at
    Load 0.9, for every P_S of the load sweeps;
  - the **load sweeps** (purpose ``load``, Figs. 7–11, Tables IV–VII): each
    workload variant under its three policies, Load 0.5 … 1.0;

  and draws every figure and table of the paper, Fig. 1's included, into
  ``paper_figures/kumar/``.

The C_s given to Delayed-LOS, Hybrid-LOS and their -E variants in the load
sweeps is **picked by the pipeline** from the C_s sweep, per P_S, as the
paper did ("we first empirically obtain the optimal value of C_s for a
given value of P_S which is then used for Delayed-LOS and hence
Hybrid-LOS"): :func:`.cubes.pick_cs` (default: the C_s with the smallest
mean wait, averaged over seeds).

Seeds
-----
The paper ran one simulation per point; we run ``seeds`` per point and
show 95 % Student-t confidence bands over them. A run's workload comes
from ``SeedSequence([base_seed, purpose, seed])``, and every policy runs
on the same workloads, so every comparison between policies is paired.
The same seed also draws the same random numbers for every variant and
load (the generator's common random numbers): variants differing only in
P_D, P_E or P_R get identical jobs and arrivals, P_S only moves jobs
between the two size stages, and the load rescales the arrivals. The C_s sweep uses its own
seeds (purpose 0), disjoint from the load sweeps' (purpose 1): the C_s is
tuned on workloads the load sweeps never see, so the picked C_s does not
flatter Delayed-LOS at Load 0.9 by construction.

Metrics are those of the paper: mean utilization, mean wait and its
slowdown ``(mean wait + mean runtime) / mean runtime``
(:func:`simlib.metrics.kumar_slowdown`), plus the usual ones.

Modules, by what they do (each step runs a function of one of them, whose
import closure is the step's code; the words are templates):

========================= ======================================================
:mod:`.plan`              the grid of one scale (validated by ``kumar.schema.json``),
                          the artifact list
:mod:`.study`             the ``kumar`` study: its checks, steps and artifacts
:mod:`.published`         the paper's printed numbers (config/published/kumar.yaml)
:mod:`.generator`         the CWF workload generator; :mod:`.workloads` its sets
:mod:`.runs`              simulation chunks and the Fig. 2 example
:mod:`.cubes`             the sweeps' cubes and the C_s pick
:mod:`.figures`           which figure is drawn from what (Figs. 1, 2, 5–11);
                          :mod:`.plots` draws them
:mod:`.tables`            Tables III–VII, n̄, dedicated jobs: frames and files
:mod:`.report`            claims and verdicts (the ``kumar_tables`` step)
:mod:`.readme`            ``paper_figures/kumar/README.md``
:mod:`.fig1`              the ``kumar_fig1`` trace sweep; :mod:`.fig1_sensitivity`
                          Fig. 1 beyond one subset
:mod:`.long_runs`         the 10,000-job runs; :mod:`.readings` the other readings
``templates/``            the words: Markdown templates, ``names.yaml`` (names and
                          titles), ``claims.yaml`` (the claims' words)
========================= ======================================================

This package imports nothing on purpose: its ``__init__`` is a code input
of every step of both studies (:mod:`simlib.codedeps`).
"""
