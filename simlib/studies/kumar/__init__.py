"""Paper K (Kumar, Shae, Jamjoom) as a study: the experiments of Section V and Fig. 1.

D. Kumar, Z.-Y. Shae, H. Jamjoom, "Scheduling Batch and Heterogeneous Jobs
with Runtime Elasticity in a Parallel Processing Environment". Two studies
(``config/grids/kumar.yaml``): ``kumar_fig1`` (:class:`.fig1.KumarFig1`),
Fig. 1's trace sweep, EASY vs LOS on the SDSC log; ``kumar``
(:class:`.study.Kumar`), Section V on the CWF workloads of :mod:`.generator`
(M = 320 processors in units of 32, 500 jobs per run) in two sweeps, the
**C_s sweep** (Figs. 5–6: Delayed-LOS at every C_s against EASY and LOS, at
Load 0.9) and the **load sweeps** (Figs. 7–11, Tables IV–VII), drawing every
figure and table of the paper into ``paper_figures/kumar/``.

The C_s of Delayed-LOS, Hybrid-LOS and their -E variants in the load sweeps
is **picked by the pipeline** from the C_s sweep, per P_S, as the paper did
("we first empirically obtain the optimal value of C_s for a given value of
P_S"): :func:`.cubes.pick_cs`. The C_s sweep runs on seeds of its own, so
the pick is tuned on workloads the load sweeps never see. The paper ran one
simulation per point; we run ``seeds`` per point, every policy on the same
workloads (paired comparisons; the common random numbers of the generator
are in ``generator.md``). Metrics are the paper's: mean utilization, mean
wait and the slowdown of means (:func:`simlib.metrics.kumar_slowdown`).

Modules: :mod:`.plan` (the grid of one scale, the artifact list),
:mod:`.study` (the checks and steps), :mod:`.published` (the paper's
numbers), :mod:`.generator` and :mod:`.workloads` (the workloads),
:mod:`.runs` (simulations), :mod:`.cubes` (cubes, the C_s pick),
:mod:`.figures` and :mod:`.plots` (figures), :mod:`.tables`, :mod:`.report`
(claims), :mod:`.readme`, :mod:`.fig1` and :mod:`.fig1_sensitivity`
(Fig. 1), :mod:`.long_runs` and :mod:`.readings` (the 10,000-job runs, the
other readings); the words are ``templates/``.

This package imports nothing on purpose: its ``__init__`` is a code input
of every step of both studies (:mod:`simlib.codedeps`).
"""
