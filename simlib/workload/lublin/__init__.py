"""The Lublin & Feitelson (2003) workload model of rigid parallel jobs.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", JPDC 63(11), 2003.  This is our
own implementation of the model as its reference implementation (lublin99)
defines it; issue 3 of the project states the facts it is built from.

The model, per job type (a *stream*)
------------------------------------
**Size** (processors).  Draw ``u ~ U(0,1)``.  ``u <= serial_prob``: 1.
Otherwise draw ``par`` (log2 of the size) from the two-stage uniform: with
probability ``uprob`` from ``U(ulow, umed)``, else from ``U(umed, uhi)``; if
``u <= serial_prob + pow2_prob`` round ``par`` to the nearest integer (so
``pow2_prob`` is a fraction of *all* jobs).  Size = ``round(2**par)``, capped
at ``round(2**uhi)`` as lublin99 does.  Rounding is half-up
(``floor(x + 0.5)``), as in the C code.

**Runtime** (seconds).  ``p = clip(pa*size + pb, 0, 1)``; the hyper-gamma
draws ``g ~ Gamma(a1, b1)`` with probability ``p``, else ``Gamma(a2, b2)``;
the whole hyper-gamma draw (component choice included) is repeated while
``g > 12``; runtime = ``floor(exp(g))``.  ``g`` is ln(runtime) before the
floor; :func:`log_runtime_cdf` is its CDF, :func:`runtime_cdf` the CDF of the
integer runtime.

**Arrivals**.  The day is 48 half-hour buckets.  Bucket weights:
``w[(i-1) mod 48] = F(i+0.5) - F(i-0.5)`` for ``i = 11..58``, ``F`` the
``Gamma(anum, bnum)`` CDF, normalised to mean 1 (:func:`bucket_weights`).
Each inter-arrival draws ``g ~ Gamma(aarr*arar, barr)`` (redrawn while
``g > 13``) and pays ``exp(g)/1800`` "points"; a bucket of weight ``w`` costs
``w`` points and lasts 1800 s, and the remainder advances time within the
bucket in proportion to its weight, carrying over between jobs.  Walking the
buckets this way is exactly the inverse of the cumulative weight function
``W(t)``: the k-th arrival is at ``W^-1(W(t0) + sum of the first k point
draws)``.  We evaluate that inverse vectorised (a cumulative sum and one
interpolation) instead of looping bucket by bucket; the times are the same
as the sequential walk's.  The first job arrives one inter-arrival after the
start (as in lublin99).  Because the weights have mean 1, the long-run mean
inter-arrival time is ``E[exp(g) | g <= 13]`` seconds.

With job types (``LublinParams.typed()``), the batch and interactive streams
run side by side and the earlier next arrival wins (ties: the stream listed
first, or the interactive one with the lublin99 clock of :mod:`.clock`).
``LublinParams.typeless()`` is the single whole-sample stream.

The package
-----------
One module per concern; their public names are all importable from here
(``from simlib.workload.lublin import generate_lublin``):

* :mod:`.params`: the parameters of a job type (:class:`JobTypeParams`,
  lublin99's defaults :data:`BATCH`, :data:`INTERACTIVE`, :data:`TYPELESS`),
  a workload's streams (:class:`LublinParams`, also from a config mapping)
  and the model of a parameter mapping (:func:`model_from_params`);
* :mod:`.model`: drawing jobs (sizes, runtimes, inter-arrival points) from
  seeded, prefix-stable streams and merging the streams into a workload
  (:func:`generate_lublin`);
* :mod:`.clock`: the daily cycle and the arrival clocks that turn the
  points into submit times, exact or the archive's C program's
  whole-second clock (``arrival_clock="lublin99"``), and what that clock
  changes (:func:`expected_clock_drift`, :func:`submit_gap_cdf`);
* :mod:`.analytic`: what the parameters imply (size pmf, runtime CDF and
  moments, hour-of-day profile, mean inter-arrival, offered load), which
  the validation figure (:mod:`simlib.figures.workloads`) and the tests
  compare generated workloads with;
* :mod:`.calibration`: offered load, load calibration
  (:func:`calibrate_load`) and the workload of a parameter mapping
  (:func:`workload_from_params`, the pipeline's ``lublin_workload`` rule).

Choices and interpretations (documented deviations)
---------------------------------------------------
* Times are kept as exact reals and floored to whole seconds only when the
  SWF is written; lublin99 truncates every increment instead, which drifts
  (``arrival_clock="lublin99"`` reproduces it).
* ``arrival_scale`` multiplies every inter-arrival *point* draw (default 1):
  it changes the arrival rate while keeping the daily cycle.  Load
  calibration (:func:`calibrate_load`) solves for it.
* ``start_hour`` (default 0 = midnight) may be fractional.
* SWF queue field (15) = job type: :data:`QUEUE_INTERACTIVE` = 0 (the SWF
  convention for interactive jobs), :data:`QUEUE_BATCH` = 1,
  :data:`QUEUE_TYPELESS` = -1 (the typeless model has no type: "missing").
* SWF fields written: job id, submit time, run time, allocated and requested
  processors (both = size), status 1; everything else ``-1``.  Requested
  time is left ``-1``: user estimates are a separate step
  (:mod:`simlib.workload.estimates`).
* Machine size: ``uhi`` is log2 of the largest job a stream makes.  A
  stream whose largest job exceeds ``machine_size`` is an error;
  :meth:`LublinParams.for_machine` shifts ``uhi``/``umed`` for another
  machine size.
"""
from simlib.workload.lublin.analytic import (
    arrival_bucket,
    cycle_deviation,
    expected_bucket_distribution,
    expected_hour_of_day,
    expected_mean_interarrival,
    expected_mean_log_runtime,
    expected_offered_load,
    expected_pow2_fraction,
    expected_runtime,
    expected_serial_fraction,
    hyper_gamma_p,
    interarrival_moments,
    log_runtime_cdf,
    log_runtime_moments,
    runtime_cdf,
    size_pmf,
)
from simlib.workload.lublin.calibration import (
    ESTIMATES_SPAWN_KEY,
    calibrate_load,
    offered_load,
    workload_from_params,
)
from simlib.workload.lublin.clock import (
    ARRIVAL_CLOCKS,
    BUCKETS,
    SECONDS_PER_BUCKET,
    arrival_times,
    bucket_weights,
    expected_clock_drift,
    interarrival_cdf,
    submit_gap_cdf,
)
from simlib.workload.lublin.model import generate_lublin
from simlib.workload.lublin.params import (
    ARRIVAL_LOG_LIMIT,
    BATCH,
    INTERACTIVE,
    QUEUE_BATCH,
    QUEUE_INTERACTIVE,
    QUEUE_TYPELESS,
    REFERENCE_MACHINE_SIZE,
    RUNTIME_LOG_LIMIT,
    TYPELESS,
    JobTypeParams,
    LublinParams,
    Stream,
    model_from_params,
)

__all__ = [
    "QUEUE_INTERACTIVE", "QUEUE_BATCH", "QUEUE_TYPELESS",
    "RUNTIME_LOG_LIMIT", "ARRIVAL_LOG_LIMIT", "BUCKETS", "SECONDS_PER_BUCKET",
    "REFERENCE_MACHINE_SIZE", "ARRIVAL_CLOCKS",
    "JobTypeParams", "Stream", "LublinParams", "BATCH", "INTERACTIVE", "TYPELESS",
    "bucket_weights", "expected_bucket_distribution", "expected_hour_of_day",
    "interarrival_moments", "expected_mean_interarrival", "cycle_deviation",
    "interarrival_cdf", "expected_clock_drift", "submit_gap_cdf",
    "size_pmf", "expected_serial_fraction", "expected_pow2_fraction",
    "hyper_gamma_p", "log_runtime_cdf", "runtime_cdf", "log_runtime_moments",
    "expected_mean_log_runtime", "expected_runtime", "expected_offered_load",
    "generate_lublin", "calibrate_load", "offered_load", "arrival_bucket", "arrival_times",
    "ESTIMATES_SPAWN_KEY", "model_from_params", "workload_from_params",
]
