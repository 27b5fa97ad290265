"""Validation figure of a Lublin–Feitelson workload against the model.

Three panels, each comparing what was generated with what the parameters
imply analytically (:mod:`simlib.workload.lublin.analytic`):

1. job sizes: observed fraction per size (serial and power-of-two sizes
   coloured) with the exact size distribution as markers;
2. runtime CDF per size class: empirical CDF against the analytic
   hyper-gamma CDF (truncated at ln runtime 12, floored to seconds), mixed
   over the sizes of the class with the observed size counts;
3. arrivals by half-hour of the day against the bucket weights (mixed over
   streams with the observed stream counts).

A footer names the streams and their main parameters, the seed, machine
size, number of jobs, arrival scale and the pipeline scale.  Rendering uses
a private Agg ``Figure`` (no pyplot state); PNG output is deterministic.
"""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlib.io import atomic_path
from simlib.workload.lublin import analytic
from simlib.workload.lublin.calibration import workload_from_params
from simlib.workload.lublin.clock import BUCKETS
from simlib.workload.lublin.params import LublinParams, _as_lublin_params, model_from_params
from simlib.workload.swf import Workload, read_swf

__all__ = ["plot_lublin_validation", "lublin_validation", "SIZE_CLASSES"]

#: Size classes of the runtime panel: (label, smallest, largest) processors.
SIZE_CLASSES = (("1 (serial)", 1, 1), ("2-4", 2, 4), ("5-16", 5, 16), ("17-64", 17, 64),
                ("65+", 65, 1 << 62))
_MIN_JOBS_PER_CLASS = 30


def _header_match(workload: Workload, pattern: str):
    rx = re.compile(pattern)
    for line in workload.header:
        m = rx.search(line)
        if m:
            return m
    return None


def _stream_jobs(workload: Workload, lp: LublinParams):
    """(stream, sizes, runtimes, submit) per stream of ``lp`` found in the queue field."""
    j = workload.jobs
    out = []
    for s in lp.streams:
        sub = j if len(lp.streams) == 1 else j[j["queue"] == s.queue]
        if len(sub):
            out.append((s, sub["requested_procs"].to_numpy(np.int64),
                        sub["run_time"].to_numpy(np.int64),
                        sub["submit_time"].to_numpy(float)))
    return out


def _size_panel(ax, data, machine_size):
    sizes = np.concatenate([d[1] for d in data])
    n = len(sizes)
    top = int(max(sizes.max(), machine_size))
    counts = np.bincount(sizes, minlength=top + 1)[1:] / n
    k = np.arange(1, top + 1)
    pow2 = (k & (k - 1)) == 0
    kinds = [("serial (1)", k == 1, "tab:red"), ("power of two", pow2 & (k > 1), "tab:blue"),
             ("other", ~pow2, "0.6")]
    # Other sizes tile the log2 axis (each owns [k - 1/2, k + 1/2]); serial and
    # power-of-two bars are a fixed 0.2 octave wide, drawn on top, so the
    # large powers of two stay visible.
    half = np.where(pow2, 0.1, np.log2((k + 0.5) / np.maximum(k - 0.5, 0.5)) / 2)
    left, right = k * 2.0 ** -half, k * 2.0 ** half
    for label, mask, color in kinds[::-1]:
        ax.bar(left[mask], counts[mask], width=(right - left)[mask], color=color,
               label=label, align="edge", linewidth=0)
    expected = np.zeros(top + 1)
    for s, sz, _, _ in data:
        pmf = analytic.size_pmf(s.params, top)
        expected[:len(pmf)] += len(sz) / n * pmf[:top + 1]
    nz = expected[1:] > 0
    ax.plot(k[nz], expected[1:][nz], "k.", markersize=4, label="model")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("job size (processors)")
    ax.set_ylabel("fraction of jobs")
    serial_obs = float(np.mean(sizes == 1))
    pow2_obs = float(np.mean((sizes >= 2) & ((sizes & (sizes - 1)) == 0)))
    serial_exp = sum(len(d[1]) / n * analytic.expected_serial_fraction(d[0].params) for d in data)
    pow2_exp = sum(len(d[1]) / n * analytic.expected_pow2_fraction(d[0].params) for d in data)
    ax.set_title(f"sizes: serial {serial_obs:.3f} (model {serial_exp:.3f}),\n"
                 f"power of two >= 2: {pow2_obs:.3f} (model {pow2_exp:.3f})", fontsize="small")
    handles, labels = ax.get_legend_handles_labels()
    order = [labels.index(x) for x in ("serial (1)", "power of two", "other", "model")
             if x in labels]
    ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize="x-small",
              loc="upper right")


def _runtime_panel(ax, data):
    colors = matplotlib.colormaps["tab10"]
    grid = np.unique(np.round(np.logspace(0, np.log10(analytic._R_MAX), 400)))
    for c, (label, lo, hi) in enumerate(SIZE_CLASSES):
        runs, model = [], np.zeros(len(grid))
        total = 0
        for s, sz, rt, _ in data:
            mask = (sz >= lo) & (sz <= hi)
            if not mask.any():
                continue
            runs.append(rt[mask])
            vals, cnt = np.unique(sz[mask], return_counts=True)
            for v, m in zip(vals, cnt):
                model += m * analytic.runtime_cdf(s.params, v, grid)
            total += int(mask.sum())
        if total < _MIN_JOBS_PER_CLASS:
            continue
        r = np.sort(np.concatenate(runs))
        ecdf = np.arange(1, len(r) + 1) / len(r)
        color = colors(c)
        ax.step(r, ecdf, where="post", color=color, linewidth=1.2,
                label=f"{label}: {total} jobs")
        ax.plot(grid, model / total, color=color, linestyle="--", linewidth=1.0)
    ax.set_xscale("log")
    ax.set_xlabel("runtime (s)")
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1)
    ax.set_title("runtime per size class: generated (solid)\n"
                 "vs hyper-gamma model (dashed)", fontsize="small")
    ax.legend(fontsize="x-small", loc="upper left")


def _arrival_panel(ax, data, start_hour):
    n = sum(len(d[3]) for d in data)
    buckets = np.concatenate([analytic.arrival_bucket(d[3], start_hour) for d in data])
    observed = np.bincount(buckets, minlength=BUCKETS) / n
    expected = np.zeros(BUCKETS)
    for s, _, _, t in data:
        expected += len(t) / n * analytic.expected_bucket_distribution(s.params)
    hours = np.arange(BUCKETS) / 2.0
    ax.bar(hours + 0.25, observed, width=0.5, color="tab:green", alpha=0.6, label="generated")
    ax.step(np.append(hours, 24.0), np.append(expected, expected[-1]), where="post",
            color="k", linewidth=1.2, label="bucket weights (model)")
    ax.set_xlim(0, 24)
    ax.set_xticks(range(0, 25, 3))
    ax.set_xlabel("time of day (h)")
    ax.set_ylabel("fraction of arrivals per half hour")
    ax.set_title("arrivals by time of day", fontsize="small")
    ax.legend(fontsize="x-small", loc="upper left")


def _params_text(lp: LublinParams) -> str:
    parts = []
    for s in lp.streams:
        p = s.params
        parts.append(f"{s.name} (queue {s.queue}): serial {p.serial_prob:g}, pow2 {p.pow2_prob:g}, "
                     f"U[{p.ulow:g},{p.umed:g},{p.uhi:g}] p={p.uprob:g}; "
                     f"G({p.a1:g},{p.b1:g})|G({p.a2:g},{p.b2:g}) p={p.pa:g}*size+{p.pb:g}; "
                     f"arr G({p.aarr:g}*{p.arar:g},{p.barr:g}), cycle G({p.anum:g},{p.bnum:g})")
    return "\n".join(parts)


def plot_lublin_validation(workload: Workload, params, out_png, *,
                           machine_size: int | None = None, start_hour: float | None = None,
                           seed_label: str | None = None,
                           scale_label: str | None = None) -> Path:
    """Draw the validation figure of a Lublin workload against its parameters.

    Parameters
    ----------
    workload : Workload
        Generated by :func:`simlib.workload.lublin.generate_lublin` (or
        :func:`~simlib.workload.lublin.calibrate_load`); the queue field
        tells the streams apart.
    params : LublinParams or config mapping
        The parameters it was generated with.
    out_png : path
        Output PNG (parent directories are created).
    machine_size : int, optional
        Default: the header's MaxProcs, else the largest job.
    start_hour : float, optional
        Hour of day at submit time 0; default: read from the header, else 0.
    seed_label, scale_label : str, optional
        Shown in the footer; the seed defaults to the header's seed note.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from simlib.workload.lublin import generate_lublin, LublinParams
    >>> w = generate_lublin(LublinParams.typed(), n_jobs=5000, seed=1)
    >>> plot_lublin_validation(w, LublinParams.typed(), "fig.png")   # doctest: +SKIP
    PosixPath('fig.png')
    """
    lp = _as_lublin_params(params)
    out = Path(out_png)
    if out.suffix.lower() != ".png":
        raise ValueError(f"{out}: the validation figure is written as .png")
    data = _stream_jobs(workload, lp)
    if not data:
        raise ValueError(f"{workload.path or '<workload>'}: no jobs of streams "
                         f"{[s.name for s in lp.streams]} (queue field)")
    if machine_size is None:
        m = _header_match(workload, r"^;\s*MaxProcs:\s*(\d+)")
        machine_size = int(m.group(1)) if m else int(max(d[1].max() for d in data))
    if start_hour is None:
        m = _header_match(workload, r"submit time 0 is ([0-9.eE+-]+) h after midnight")
        start_hour = float(m.group(1)) if m else 0.0
    if seed_label is None:
        m = _header_match(workload, r"^; Note: seed (.*)$")
        seed_label = m.group(1) if m else "unknown"
    m = _header_match(workload, r"arrival_scale ([0-9.eE+-]+)")
    scale_note = f"arrival_scale {float(m.group(1)):.6g}" if m else ""
    m = _header_match(workload, r"calibrated to offered load ([0-9.eE+-]+)")
    load_note = f"calibrated to offered load {m.group(1)}" if m else ""

    fig = Figure(figsize=(15, 5.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3)
    _size_panel(axes[0], data, machine_size)
    _runtime_panel(axes[1], data)
    _arrival_panel(axes[2], data, start_hour)
    n = sum(len(d[1]) for d in data)
    fig.suptitle(f"Lublin–Feitelson workload vs model: {n} jobs on {machine_size} processors")
    info = "; ".join(x for x in (f"seed {seed_label}", scale_note, load_note,
                                 f"start hour {start_hour:g}",
                                 f"scale: {scale_label}" if scale_label else "") if x)
    fig.text(0.005, 0.0, info + "\n" + _params_text(lp), fontsize=6.5, ha="left",
             va="bottom", color="0.3", family="monospace")
    # Reserve the bottom strip for the footer (constrained layout ignores fig.text).
    fig.get_layout_engine().set(rect=(0, 0.13, 1, 0.87))
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=150, metadata={"Software": None})
    return out


def lublin_validation(params, out_png, *, swf=None, log=None) -> Path:
    """The validation figure of one workload of a Lublin parameter set.

    What the pipeline's ``lublin_validation`` rule does: the model comes
    from the parameter mapping (:func:`simlib.workload.lublin.model_from_params`),
    the workload from ``swf`` (a file of the ``lublin_workload`` rule) or,
    without it, is generated from the same mapping
    (:func:`simlib.workload.lublin.workload_from_params`), so both rules
    read a parameter set the same way.

    Parameters
    ----------
    params : mapping
        A ``lublin.param_sets`` entry (with ``seed`` when ``swf`` is None);
        ``scale``, the pipeline scale, is printed on the figure.
    out_png : path
        Output PNG, written atomically.
    swf : path, optional
        The workload to draw.
    log : logging.Logger, optional
        Gets where the workload came from and the file written.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> lublin_validation({"model": {"model": "typed"}, "n_jobs": 3000, "seed": 1,
    ...                    "scale": "smoke"}, "fig.png")     # doctest: +SKIP
    PosixPath('fig.png')
    """
    lp, machine_size = model_from_params(params)
    if swf is not None:
        workload = read_swf(swf)
        if log is not None:
            log.info("read %d jobs from %s", len(workload.jobs), swf)
    else:
        workload, _ = workload_from_params(params)
        if log is not None:
            log.info("generated %d jobs", len(workload.jobs))
    out = plot_lublin_validation(workload, lp, out_png, machine_size=machine_size,
                                 scale_label=params.get("scale"))
    if log is not None:
        log.info("wrote %s", out)
    return out
