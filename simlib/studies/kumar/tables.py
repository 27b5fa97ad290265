"""Paper K's tables: Tables III–VII, n̄ per workload, dedicated jobs' timeliness, forced starts.

From the study's cubes (:mod:`.cubes`), the workload sets' ``index.json``
(:mod:`.workloads`) and the published numbers (:mod:`.published`); what
each column means is said beside it (``templates/``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...io import write_csv, write_text
from ...markdown import markdown_table
from ...metrics import percent_improvement
from ...policies import POLICIES
from ...render import render
from ...stats import mean_ci
from . import generator as kgen
from .plan import HIGHER_IS_BETTER, PAPER_NAMES, TABLE_WORKLOADS, cs_label

__all__ = ["paired_improvement", "tables_frame", "improvements_by_load", "n_bar_frame", "size_scale_fit",
           "algorithms_frame", "dedicated_frame", "forced_starts_frame", "write_table",
           "write_tables"]

_TABLE_METRICS = ("utilization", "mean_wait", "kumar_slowdown")


def _improvement(cube, workload, new, base, metric, sweep):
    """% improvement of ``new`` over ``base`` per (sweep point, seed), paired."""
    a, b = (cube[metric].sel(workload=workload, policy=p).transpose(sweep, "seed").values
            for p in (new, base))
    return percent_improvement(a, b, higher_is_better=HIGHER_IS_BETTER.get(metric, False))


def paired_improvement(cube, workload: str, new: str, base: str, metric: str,
                       sweep: str = "load", level: float = 0.95) -> dict:
    """Improvement of ``new`` over ``base`` across a sweep, four ways.

    Returns
    -------
    dict
        ``max_of_mean`` (the paper's "maximum % improvement", taken on the
        seed-averaged curves) and ``at`` (where); ``per_seed_max`` (the
        paper's procedure on each seed alone: one run per point, max over
        the sweep) as ``per_seed_max_median``, ``_p5``, ``_p95``;
        ``mean`` and ``ci`` (mean over the sweep of the per-seed paired
        improvement, Student-t over seeds); ``n`` seeds.
    """
    imp = _improvement(cube, workload, new, base, metric, sweep)
    a, b = (cube[metric].sel(workload=workload, policy=p).mean("seed", skipna=True).values
            for p in (new, base))
    curve = percent_improvement(a, b, higher_is_better=HIGHER_IS_BETTER.get(metric, False))
    ok = np.isfinite(curve)
    best = int(np.nanargmax(np.where(ok, curve, -np.inf))) if ok.any() else 0
    with np.errstate(all="ignore"):
        per_seed_max = np.nanmax(np.where(np.isfinite(imp), imp, -np.inf), axis=0)
        per_seed_max = per_seed_max[np.isfinite(per_seed_max)]
        per_seed_mean = np.nanmean(imp, axis=0)
    m, h, n = mean_ci(per_seed_mean, level)
    q = np.percentile(per_seed_max, [50, 5, 95]) if per_seed_max.size else [math.nan] * 3
    return {"max_of_mean": float(curve[best]) if ok.any() else math.nan,
            "at": float(cube[sweep].values[best]), "per_seed_max_median": float(q[0]),
            "per_seed_max_p5": float(q[1]), "per_seed_max_p95": float(q[2]),
            "mean": m, "ci": h, "n": n, "curve": curve}


def _table_pairs(published: Mapping):
    """Every number of Tables IV–VII: (table, its workload, published table, base, metric)."""
    for table, workload in TABLE_WORKLOADS.items():
        t = published["tables"][table]
        for base in t["values"]:
            for m in _TABLE_METRICS:
                yield table, workload, t, base, m


def _range_verdict(pub, lo, hi) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "not testable"
    if lo <= pub <= hi:
        return "within our range"
    return "published above our range" if pub > hi else "published below our range"


def tables_frame(cube, published: Mapping, level: float = 0.95) -> pd.DataFrame:
    """Tables IV–VII: published maximum % improvements beside ours.

    One row per (table, base policy, metric): ``published``, ``ours_max``
    and ``ours_at`` (``max_of_mean`` of :func:`paired_improvement`),
    ``paper_procedure_median`` / ``_p5`` / ``_p95`` (its ``per_seed_max``),
    ``mean_improvement`` ± ``ci``, and ``verdict``: whether the published
    value lies within the 5–95 % range of the paper's procedure under our model.
    """
    rows = []
    for table, workload, t, base, m in _table_pairs(published):
        r = paired_improvement(cube, workload, t["new"], base, m, level=level)
        pub = float(t["values"][base][m])
        rows.append({
            "table": table, "figure": t.get("figure", ""), "workload": workload,
            "new": t["new"], "base": base, "metric": m, "published": pub,
            "ours_max": r["max_of_mean"], "ours_at": r["at"],
            "paper_procedure_median": r["per_seed_max_median"],
            "paper_procedure_p5": r["per_seed_max_p5"], "paper_procedure_p95": r["per_seed_max_p95"],
            "mean_improvement": r["mean"], "ci": r["ci"], "seeds": r["n"],
            "verdict": _range_verdict(pub, r["per_seed_max_p5"], r["per_seed_max_p95"])})
    return pd.DataFrame(rows)


def improvements_by_load(cube, published: Mapping, level: float = 0.95) -> pd.DataFrame:
    """Paired % improvement per load (mean ± CI over seeds) for every pair of Tables IV–VII."""
    rows = []
    for table, workload, t, base, m in _table_pairs(published):
        imp = _improvement(cube, workload, t["new"], base, m, "load")
        for k, load in enumerate(cube["load"].values):
            mean, h, n = mean_ci(imp[k], level)
            rows.append({"table": table, "workload": workload, "new": t["new"], "base": base,
                         "metric": m, "load": float(load), "mean_improvement": mean, "ci": h,
                         "seeds": n})
    return pd.DataFrame(rows)


def n_bar_frame(indices: Mapping[str, Mapping], published: Mapping | None = None,
                level: float = 0.95) -> pd.DataFrame:
    """n̄ per workload variant (mean over seeds ± CI) beside its expectation and the paper's.

    ``indices`` maps a workload name to the ``index.json`` document of its
    set (:func:`.workloads.generate_set`). ``expected_linear`` / ``expected_log2``
    are E[n̄] under both size scales; ``published_z`` is the published
    value's distance from our expectation in standard errors of a 500-job n̄.
    """
    pub = {(float(e["p_s"]), float(e["p_d"])): (float(e["n_bar"]), e.get("figure", ""))
           for e in (published or {}).get("n_bar", {}).get("values", [])}
    rows = []
    for w, doc in indices.items():
        params = kgen.KumarParams.from_config(doc["params"])
        # n̄ depends on the seed only (sizes are the same at every load).
        per_seed = {}
        for e in doc["entries"]:
            per_seed.setdefault(int(e["seed"]), float(e["n_bar"]))
        m, h, n = mean_ci(list(per_seed.values()), level)
        p, fig = pub.get((params.p_s, params.p_d), (math.nan, ""))
        se, expected = float(doc["n_bar_se"]), float(doc["expected_n_bar"])
        rows.append({
            "workload": w, "p_s": params.p_s, "p_d": params.p_d, "size_scale": params.size_scale,
            "n_bar": m, "ci": h, "seeds": n, "expected": expected,
            "expected_linear": kgen.expected_mean_job_size(params.replace(size_scale="linear")),
            "expected_log2": kgen.expected_mean_job_size(params.replace(size_scale="log2")),
            "se_500": se, "published": p, "published_figure": fig,
            "published_z": (p - expected) / se if se > 0 else math.nan})
    return pd.DataFrame(rows)


def size_scale_fit(published: Mapping, params: kgen.KumarParams, n_jobs: int) -> dict:
    """How the printed n̄ values fit each size scale: per scale (``linear``, ``log2``), ``z``
    (each printed value's distance from that scale's E[n̄], in standard errors of an
    ``n_jobs``-job n̄), ``z_min`` / ``z_max`` and ``p`` (joint: chi-square of the sum of z²
    with one degree of freedom per printed value). ``params``: the other generator fields.

    Examples
    --------
    >>> pub = {"n_bar": {"values": [{"p_s": 0.5, "p_d": 0.0, "n_bar": 133.4}]}}
    >>> fit = size_scale_fit(pub, kgen.KumarParams(), 500)
    >>> round(fit["log2"]["p"], 2), fit["linear"]["z_max"] < -2
    (1.0, True)
    """
    from scipy.stats import chi2
    values = (published or {}).get("n_bar", {}).get("values", [])
    out = {}
    for scale in ("linear", "log2"):
        zs = []
        for e in values:
            p = params.replace(p_s=float(e["p_s"]), p_d=float(e["p_d"]), size_scale=scale)
            zs.append((float(e["n_bar"]) - kgen.expected_mean_job_size(p))
                      / kgen.mean_job_size_se(p, n_jobs))
        out[scale] = {"z": zs, "z_min": min(zs, default=math.nan),
                      "z_max": max(zs, default=math.nan),
                      "p": float(chi2.sf(sum(z * z for z in zs), len(zs))) if zs else math.nan}
    return out


def algorithms_frame(published: Mapping | None = None) -> pd.DataFrame:
    """Table III from the policy registry, with the published row beside each."""
    pub = (published or {}).get("table3", {}).get("values", {})
    rows = []
    for name in PAPER_NAMES:
        if name not in POLICIES or name in ("fcfs", "conservative"):
            continue
        cls, p = POLICIES[name], pub.get(name)
        row = (PAPER_NAMES[name], "Heterogeneous" if getattr(cls, "heterogeneous", False) else "Batch",
               "Yes" if getattr(cls, "elastic", False) else "No")
        rows.append({
            "algorithm": row[0], "registry_name": name, "workload": row[1], "ecc_processor": row[2],
            "class": f"{cls.__module__}.{cls.__name__}",
            "parameters": ", ".join(f"{k}={v!r}" for k, v in cls.defaults.items()
                                    if k not in cls.simulator_switches) or "-",
            "published": "" if p is None else f"{p[0]} / {p[1]} / {p[2]}",
            "matches_published": "" if p is None else ("yes" if tuple(p[:3]) == row else "NO")})
    return pd.DataFrame(rows)


def dedicated_frame(cube) -> pd.DataFrame:
    """Timeliness of dedicated jobs per (workload, policy), averaged over loads and seeds."""
    rows = []
    for w in cube["workload"].values:
        for p in cube["policy"].values:
            one = cube.sel(workload=w, policy=p)
            jobs = one["dedicated_jobs"].values
            if np.isfinite(jobs).any() and np.nansum(jobs) != 0:
                rows.append({"workload": str(w), "policy": PAPER_NAMES.get(str(p), str(p)),
                             "on_time": float(np.nanmean(one["dedicated_on_time"].values)),
                             "mean_delay_h": float(np.nanmean(one["dedicated_mean_delay"].values))
                             / 3600})
    return pd.DataFrame(rows, columns=["workload", "policy", "on_time", "mean_delay_h"])


def forced_starts_frame(cs_cube, swept: str = "delayed_los") -> pd.DataFrame:
    """Per C_s-sweep workload and C_s: how often the skip limit acted (forced head starts per
    run, mean and maximum over seeds; the largest skip count; the runs forcing any start),
    beside the mean wait (hours, ± 95 % CI). Where no run forced a start, the runs are those
    of C_s = infinity.

    Examples
    --------
    >>> from simlib.studies.kumar.cubes import build_kumar_cube
    >>> recs = [{"workload": "w", "policy": "delayed_los", "cs": c, "seed": s, "mean_wait": 3600.0,
    ...          "forced_starts": float(c == 1) * (s + 1), "max_skip_count": min(c, 3) + 0.0}
    ...         for c in (1, 5) for s in (0, 1)]
    >>> f = forced_starts_frame(build_kumar_cube(recs, "cs"))
    >>> f[["C_s", "forced_starts_per_run", "runs_with_forced_starts"]].values.tolist()
    [['1', 1.5, 2], ['5', 0.0, 0]]
    """
    rows = []
    for w in cs_cube["workload"].values.tolist():
        sub = cs_cube.sel(workload=w, policy=swept)
        for c in sub["cs"].values.tolist():
            one = sub.sel(cs=c)
            forced = one["forced_starts"].values.astype(float)
            m, h, n = mean_ci(one["mean_wait"].values / 3600.0)
            rows.append({"workload": w, "C_s": cs_label(c), "mean_wait_h": m, "ci_h": h,
                         "forced_starts_per_run": float(np.nanmean(forced)),
                         "forced_starts_max": float(np.nanmax(forced)),
                         "largest_skip_count": float(np.nanmax(one["max_skip_count"].values)),
                         "runs_with_forced_starts": int(np.sum(forced > 0)), "runs": n})
    return pd.DataFrame(rows)


def write_table(frame: pd.DataFrame, csv, md=None, template: str | None = None,
                shown: pd.DataFrame | None = None, **context) -> pd.DataFrame:
    """``frame`` as CSV, and (``shown``, default ``frame``) as the Markdown table of
    ``template`` rendered with ``context``; returns ``frame``."""
    write_csv(frame, csv, index=False, lineterminator="\n")
    if md is not None:
        table = markdown_table(frame if shown is None else shown, index=False)
        write_text(md, render(__package__, template, table=table, **context), encoding="utf-8")
    return frame


def write_tables(load_cube, published: Mapping, indices: Mapping[str, Mapping], *, scale: str,
                 seeds: int, out: Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables IV–VII, the improvements per load and n̄ as the ``kumar_tables`` step's
    outputs ``out`` (``indices``: load-sweep workload -> its set's ``index.json``);
    returns (tables, n̄) with a leading ``scale`` column, as written."""
    tables = tables_frame(load_cube, published)
    tables.insert(0, "scale", scale)
    write_table(tables, out["tables_iv_vii_csv"], out["tables_iv_vii_md"], "tables_iv_vii.md.j2",
                tables.drop(columns=["scale", "workload", "figure", "seeds"]), scale=scale,
                seeds=seeds)
    by_load = improvements_by_load(load_cube, published)
    by_load.insert(0, "scale", scale)
    write_table(by_load, out["improvements_by_load_csv"])
    nbar = n_bar_frame(indices, published)
    nbar.insert(0, "scale", scale)
    write_table(nbar, out["n_bar_csv"], out["n_bar_md"], "n_bar.md.j2", nbar.drop(columns=["scale"]),
                scale=scale, source=published["n_bar"]["source"])
    return tables, nbar
