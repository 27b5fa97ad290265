"""Paper K's Fig. 1 beyond one subset: trace segment x LOS lookahead x LOS tie rule.

Fig. 1 of paper K says that on the SDSC log "clearly LOS outperforms EASY"
in mean wait at every offered load. The figure's run (``kumar_fig1``)
simulates one subset of the log with LOS as the papers describe it
(lookahead 50). Two things the papers leave open change the answer below
saturation: which part of the log is simulated, and which of several
equally good packings LOS's dynamic program starts (its tie rule,
:mod:`simlib.policies.los`). This sweep (config
``studies.kumar.fig1_sensitivity``) runs EASY and LOS on several segments
of the cleaned log, each rescaled to every load by multiplying its
inter-arrival times (the papers' method), with LOS at every lookahead x tie
rule; one pipeline job per (segment, load) runs every variant on the same
jobs.

**Verdict rule** (:data:`BAND_RULE`, applied by
:func:`simlib.studies.kumar.report.fig1_band_claim`): the *band* is LOS's
improvement over EASY in mean wait, ``100 (W_EASY - W_LOS) / W_EASY``, at
a load, over segments x tie rules at the papers' lookahead (50); each load
gets a status from where the band lies against ``± tolerance``
(:func:`band_table`). Longer lookaheads are reported beside, not judged
(the papers fix 50).
"""
from __future__ import annotations

import functools
import logging
import time
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from ...engine.simulator import gc_paused
from ...errors import ConfigError
from ...io import read_yaml

__all__ = ["DIMS", "PAPER_LOOKAHEAD", "segment_name", "segments", "variants", "check_spec",
           "simulate_segment", "build_sensitivity_cube", "improvements", "band_table",
           "BAND_RULE", "write_tables", "segment_step"]
_LOG = logging.getLogger(__name__)

#: Dimensions of the sensitivity cube.
DIMS = ["segment", "load", "policy"]
#: The lookahead of both LOS papers, the one the verdict judges.
PAPER_LOOKAHEAD = 50
#: Statuses of a load's band (:func:`band_table`).
BETTER, WORSE, NONE, DEPENDS = "LOS better", "LOS worse", "no difference", "depends on the reading"


def segment_name(first_job: int, n_jobs: int | None) -> str:
    """Name of a segment of the cleaned log: 0-based positions of its first and last job.

    Examples
    --------
    >>> segment_name(20000, 20000), segment_name(40000, None)
    ('20000-39999', '40000-end')
    """
    return f"{first_job}-{'end' if n_jobs is None else first_job + n_jobs - 1}"


def segments(spec: Mapping, scale: str) -> dict[str, tuple[int, int | None]]:
    """The segments of a scale: name -> (first job, number of jobs or None for the rest)."""
    segs = [(int(a), None if n is None else int(n)) for a, n in spec["segments"][scale]]
    return {segment_name(a, n): (a, n) for a, n in segs}


def variants(spec: Mapping) -> dict[str, tuple[str, dict]]:
    """Policy variants run on every segment: name -> (registered policy, parameters).

    EASY, then LOS at every lookahead x tie rule.
    """
    out = {"easy": ("easy", {})}
    for look in spec["lookaheads"]:
        for tie in spec["ties"]:
            out[f"los_{look}_{tie}"] = ("los", {"lookahead": look, "tie": tie})
    return out


def check_spec(spec: Mapping, where: str) -> None:
    """Reject what the schema cannot say: overlapping segments, bad LOS parameters."""
    from ...policies.los import LOS
    for scale in spec["segments"]:
        segs = sorted(segments(spec, scale).items(), key=lambda item: item[1][0])
        for (name0, (a0, n0)), (name1, (a1, _)) in zip(segs, segs[1:]):
            if n0 is None or a1 < a0 + n0:
                raise ConfigError(f"{where}.segments.{scale}: segments {name0} and {name1} overlap")
    for name, (_, params) in variants(spec).items():
        if name != "easy":
            try:
                LOS(**params)
            except ConfigError as err:
                raise ConfigError(f"{where}: {err}") from None


def simulate_segment(trace_swf, *, machine_procs: int, first_job: int, n_jobs: int | None,
                     load: float, variants: Mapping[str, tuple[str, dict]], simulation: Mapping,
                     log=_LOG) -> list[dict]:
    """Every variant on one segment of a prepared trace rescaled to ``load``; one record each.

    Records hold the :func:`simlib.metrics.summarize` metrics, the jobs
    simulated and the offered load reached (``offered_load``).
    """
    from ...metrics import summarize
    from ...runner import simulate
    from ...workload.prepare import offered_load, rescale_to_load, subset
    seg = subset(_read_trace(trace_swf), first_job=first_job, n_jobs=n_jobs)
    scaled, factor = rescale_to_load(seg, machine_procs, load, round_to_seconds=True)
    reached = offered_load(scaled, machine_procs)
    log.info("segment %s: %d jobs, load %.4f (factor %.4f)", segment_name(first_job, n_jobs),
             len(scaled.jobs), reached, factor)
    out = []
    # runner.simulate closes its simulator (no reference cycle left), so the
    # collector can stay paused over the set: see Simulator.close.
    with gc_paused():
        for name, (policy, params) in variants.items():
            t0 = time.perf_counter()
            res = simulate(scaled, policy, cpus=machine_procs, policy_params=params,
                           overrun=simulation["overrun"], record_timeline=False)
            log.info("%s: %.2f s", name, time.perf_counter() - t0)
            out.append({"policy": name, **summarize(res.jobs, machine_procs, tau=simulation["tau"]),
                        "jobs": len(res.jobs), "offered_load": reached})
    return out


def _read_trace(path):
    """The prepared trace at ``path``, read once per process while the file is
    unchanged (a batch of segments reads the same whole log)."""
    st = Path(path).stat()
    return _read_trace_version(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=1)
def _read_trace_version(path: str, mtime_ns: int, size: int):
    from ...workload.swf import read_swf
    return read_swf(path)


def build_sensitivity_cube(summaries: Sequence[Mapping], attrs: Mapping) -> xr.Dataset:
    """The cube ``(segment, load, policy)`` from the per-(segment, load) summaries."""
    from ...cube import build_cube
    records = [{"segment": s["segment"], "load": float(s["load"]), **r}
               for s in summaries for r in s["records"]]
    metrics = [k for k in records[0] if k not in DIMS]
    info = {"jobs": ("1", "jobs simulated", "jobs in the segment"),
            "offered_load": ("1", "offered load reached",
                             "sum of size x runtime / (CPUs x submit span) after rescaling")}
    cube = build_cube(records, DIMS, metrics, attrs=dict(attrs), metric_info=info)
    # Segments in log order, variants in run order (build_cube sorts names).
    segs = sorted({r["segment"] for r in records}, key=lambda s: int(s.split("-")[0]))
    pols = list(dict.fromkeys(r["policy"] for r in records))
    return cube.sel(segment=segs, policy=pols)


def improvements(cube: xr.Dataset) -> xr.DataArray:
    """Improvement of each LOS variant over EASY in mean wait, % (positive: LOS waits less)."""
    w = cube["mean_wait"]
    easy = w.sel(policy="easy")
    los = w.sel(policy=[p for p in w["policy"].values if p != "easy"])
    with np.errstate(divide="ignore", invalid="ignore"):
        imp = 100.0 * (easy - los) / easy
    # Nobody waits under EASY: 0 % when LOS does not wait either, and
    # -inf (LOS worse, whatever the tolerance) when it does.
    return imp.where(~((easy == 0) & (los == 0)), 0.0)


def band_table(cube: xr.Dataset, tolerance: float) -> pd.DataFrame:
    """Per load: the band of LOS's improvement over segments x tie rules (lookahead 50) and its status."""
    imp = improvements(cube)
    paper = imp.sel(policy=[p for p in imp["policy"].values
                            if str(p).startswith(f"los_{PAPER_LOOKAHEAD}_")])
    rows = []
    for load in imp["load"].values:
        band = paper.sel(load=load).values.ravel()
        band = band[~np.isnan(band)]      # -inf (EASY waits 0, LOS not) stays: LOS worse
        lo, hi = (float(band.min()), float(band.max())) if band.size else (np.nan, np.nan)
        if not band.size:
            status = "n/a"
        elif lo > tolerance:
            status = BETTER
        elif hi < -tolerance:
            status = WORSE
        elif lo >= -tolerance and hi <= tolerance:
            status = NONE
        else:
            status = DEPENDS
        rows.append({"load": float(load), "band_low": lo, "band_high": hi, "status": status,
                     "runs_in_band": int(band.size)})
    return pd.DataFrame(rows)


#: The verdict's rule (:func:`.report.fig1_band_claim` applies it): ``claims.yaml``'s, read
#: here without the plan's imports (this module is the segment simulations' code).
BAND_RULE = read_yaml(Path(__file__).resolve().parent / "templates" / "claims.yaml")[
    "fig1_sensitivity"]["criterion"]


def write_tables(cube: xr.Dataset, *, tolerance: float, csv, md, scale: str) -> pd.DataFrame:
    """``fig1_sensitivity.csv`` (every variant) and ``.md`` (bands, then every variant)."""
    from ...io import write_csv, write_text
    from ...render import render
    imp = improvements(cube)
    rows = []
    for seg in imp["segment"].values:
        for load in imp["load"].values:
            easy = cube.sel(segment=seg, load=load, policy="easy")
            row = {"segment": str(seg), "load": float(load), "offered_load": float(easy["offered_load"]),
                   "easy_mean_wait_h": float(easy["mean_wait"]) / 3600}
            for p in imp["policy"].values:
                row[f"{p}_improvement_pct"] = float(imp.sel(segment=seg, load=load, policy=p))
            rows.append(row)
    full = pd.DataFrame(rows)
    write_csv(full, csv, index=False, lineterminator="\n", float_format="%.6g")
    bands = band_table(cube, tolerance)
    show = full.copy()
    show.columns = [c.replace("_improvement_pct", " %").replace("_", " ") for c in show.columns]
    # Loads as typed (0.85 must not print as 0.8 under the 1-decimal format):
    # one format per column, since tabulate reparses numeric strings.
    text = render(__package__, "fig1_sensitivity.md.j2", scale=scale, lookahead=PAPER_LOOKAHEAD,
                  rule=BAND_RULE, tolerance=tolerance,
                  bands=bands.to_markdown(index=False, floatfmt=["g", ".1f", ".1f", "", "g"]),
                  variants=show.to_markdown(index=False, floatfmt=["", "g", ".3f", ".2f"]
                                            + [".1f"] * (show.shape[1] - 4)))
    write_text(md, text)
    return bands


def segment_step(ctx) -> None:
    """The ``kumar_fig1_segment`` step: every variant on one (segment, load) (:func:`simulate_segment`)."""
    from ...io import write_json
    p = ctx.params
    records = simulate_segment(ctx.input.swf, machine_procs=p["machine_procs"],
                               first_job=p["first_job"], n_jobs=p["n_jobs"], load=p["load"],
                               variants=p["variants"], simulation=p["simulation"], log=ctx.log)
    write_json({"trace": p["trace"], "segment": ctx.wildcards["segment"], "load": p["load"],
                "records": records}, ctx.output.summary)
