"""Paper K under other readings: the load sweeps re-run with the generator or ECC changed.

The grid's ``readings`` name re-runs of some load sweeps (same loads,
same seed streams, so each comparison with the load sweep is paired):

* the text's linear size model (``size_scale: linear``) instead of the
  log2 draw that fits the printed n̄ (Tables IV–VII and Tables I–II,
  with the β_arr the Load calibration solves for);
* dedicated jobs booked further ahead (``dedicated_delay_mean``), a lead
  time they can meet;
* elastic commands that meet their job running (``ecc_queued: defer``).

:func:`reading_view` puts a reading's runs in place of the load sweep's
for the workloads it re-ran, so that every figure, table and claim rule of
the main reading applies unchanged; :func:`write_readings` writes
``readings.md`` / ``readings.csv``: the claims under each reading (the
reading × claim matrix of paper K), Tables IV–VII side by side, Tables
I–II with the solved β_arr against the paper's range, n̄, dedicated
jobs' timeliness and where the commands landed.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...io import write_csv, write_text
from ...markdown import markdown_table
from ...render import render
from . import generator as kgen
from .plan import PAPER_NAMES, KumarPlan

__all__ = ["MAIN", "reading_view", "claims_matrix", "tables_side_by_side",
           "parameter_tables", "beta_arr_frame", "timeliness_frame", "write_readings"]

#: Column name of the main reading (the load sweep as configured).
MAIN = "main"


def reading_view(load_cube, readings_cube, reading: str):
    """The load cube with ``reading``'s runs in place of the workloads it re-ran.

    Parameters
    ----------
    load_cube : xarray.Dataset
        Dims ``(workload, policy, load, seed)``.
    readings_cube : xarray.Dataset
        Dims ``(reading, workload, policy, load, seed)``.
    reading : str

    Returns
    -------
    xarray.Dataset
        Shaped as ``load_cube``; attribute ``reading`` names the reading.

    Examples
    --------
    >>> import xarray as xr
    >>> load = xr.Dataset({"mean_wait": (("workload", "policy", "load", "seed"),
    ...                                  np.ones((2, 1, 1, 1)))},
    ...                   coords={"workload": ["a", "b"], "policy": ["easy"], "load": [0.9],
    ...                           "seed": [0]})
    >>> rc = load.sel(workload=["b"]).expand_dims(reading=["r"]) * 5
    >>> reading_view(load, rc, "r")["mean_wait"].values.ravel().tolist()
    [1.0, 5.0]
    """
    view = load_cube.copy(deep=True)
    rc = readings_cube.sel(reading=reading)
    for w in rc["workload"].values:
        sub = rc.sel(workload=w)
        ran = [v for v in sub.data_vars if bool(np.isfinite(sub[v].values).any())]
        if not ran or w not in view["workload"].values:
            continue
        sub = sub.reindex(policy=view["policy"], load=view["load"], seed=view["seed"])
        for var in view.data_vars:
            if var in sub.data_vars:
                view[var].loc[{"workload": w}] = sub[var].transpose(
                    *[d for d in view[var].dims if d != "workload"]).values
    view.attrs["reading"] = reading
    return view


def _readings_of(plan: KumarPlan, readings_cube) -> list[str]:
    return [r for r in plan.readings if r in readings_cube["reading"].values]


def _claim_frame(claims) -> pd.DataFrame:
    return pd.DataFrame([c.as_dict() for c in claims])


def claims_matrix(load_cube, readings_cube, published: Mapping, plan: KumarPlan) -> pd.DataFrame:
    """Every claim the load sweeps test, its verdict under the main reading and each other.

    The rules are :func:`.report.claims`'s, applied to :func:`reading_view`;
    a claim on workloads a reading did not re-run keeps the main verdict
    (marked ``=`` in :func:`write_readings`' table).

    Returns
    -------
    pandas.DataFrame
        Columns ``claim``, ``source``, :data:`MAIN`, one per reading, and
        ``ours_<reading>`` with the numbers behind each verdict.
    """
    from .report import claims, long_runs_equivalent
    from .tables import tables_frame

    # The long-run claim has its own inputs (claims() always adds it): not a load-sweep claim.
    long_claim = long_runs_equivalent().claim

    def run(cube):
        got = claims(published=published, load_cube=cube, tables=tables_frame(cube, published),
                     plan=plan)
        return _claim_frame([c for c in got if c.claim != long_claim])

    main = run(load_cube)
    out = main[["claim", "source"]].copy()
    out[MAIN] = main["verdict"]
    out[f"ours_{MAIN}"] = main["ours"]
    for r in _readings_of(plan, readings_cube):
        got = run(reading_view(load_cube, readings_cube, r)).set_index("claim")
        out[r] = out["claim"].map(got["verdict"])
        out[f"ours_{r}"] = out["claim"].map(got["ours"])
    return out


def tables_side_by_side(load_cube, readings_cube, published: Mapping,
                        plan: KumarPlan) -> pd.DataFrame:
    """Tables IV–VII's maximum % improvements: the paper's, ours, and ours under each reading.

    Only the readings that re-ran a table's workload get a column value.
    """
    from .tables import tables_frame
    main = tables_frame(load_cube, published)
    keys = ["table", "new", "base", "metric"]
    out = main[keys + ["workload", "published", "ours_max"]].rename(columns={"ours_max": MAIN})
    for r in _readings_of(plan, readings_cube):
        got = tables_frame(reading_view(load_cube, readings_cube, r), published)
        ran = set(plan.readings[r]["workloads"])
        col = got.set_index(keys)["ours_max"]
        out[r] = [col.get(tuple(k), math.nan) if w in ran else math.nan
                  for k, w in zip(out[keys].itertuples(index=False), out["workload"])]
    return out


def parameter_tables() -> pd.DataFrame:
    """Tables I–II: every parameter of the runtime and arrival models, the paper's value and ours.

    Ours are :class:`.generator.KumarParams`' defaults, which the grid does
    not change; lublin99's typeless value is shown beside them (paper K's
    generator extends it).

    Examples
    --------
    >>> t = parameter_tables().set_index("parameter")
    >>> t.loc["bnum", ["table", "paper", "ours"]].tolist()
    ['II', '0.9631', '0.9631']
    """
    ours = kgen.KumarParams()
    lublin = kgen.table_ii_vs_lublin()
    rows = []
    for table, values in (("I", kgen.TABLE_I), ("II", kgen.TABLE_II)):
        for name, paper in values.items():
            rows.append({"table": table, "parameter": name, "paper": f"{paper:g}",
                         "ours": f"{getattr(ours, name):g}",
                         "lublin99": f"{lublin[name][1]:g}"})
    lo, hi = kgen.BETA_ARR_RANGE
    rows.append({"table": "II", "parameter": "barr", "paper": f"varies in [{lo:g}, {hi:g}]",
                 "ours": "solved per workload for the target Load (see β_arr below)",
                 "lublin99": f"{lublin['barr'][1]:g}"})
    return pd.DataFrame(rows)


def beta_arr_frame(load_cube, readings_cube, plan: KumarPlan) -> pd.DataFrame:
    """The β_arr the Load calibration solved for, per reading and workload, against Table II's range."""
    lo, hi = kgen.BETA_ARR_RANGE
    rows = []

    def add(reading, cube, workloads):
        for w in workloads:
            # Every policy of a workload runs the same workloads: count them once.
            b = cube["beta_arr"].sel(workload=w, policy=plan.load_sweeps[w][0]).values
            b = b[np.isfinite(b)]
            if not b.size:
                continue
            rows.append({"reading": reading, "workload": w, "size_scale": plan.params(
                w if reading == MAIN else f"{reading}@{w}").size_scale,
                "workloads": int(b.size), "min": float(b.min()), "max": float(b.max()),
                "in_paper_range": float(np.mean((b >= lo) & (b <= hi)))})

    add(MAIN, load_cube, [str(w) for w in load_cube["workload"].values])
    for r in _readings_of(plan, readings_cube):
        add(r, readings_cube.sel(reading=r), plan.readings[r]["workloads"])
    return pd.DataFrame(rows)


def timeliness_frame(load_cube, readings_cube, plan: KumarPlan) -> pd.DataFrame:
    """Per reading, workload and policy: n̄, dedicated jobs' timeliness, commands on running jobs.

    Means over every load and seed; NaN where a quantity does not apply.
    """
    rows = []

    def mean(cube, var, w, p):
        if var not in cube:
            return math.nan
        v = cube[var].sel(workload=w, policy=p).values
        v = v[np.isfinite(v)]
        return float(v.mean()) if v.size else math.nan

    def add(reading, cube, workloads):
        for w in workloads:
            for p in plan.load_sweeps[w]:
                rows.append({"reading": reading, "workload": w,
                             "policy": PAPER_NAMES.get(p, p),
                             "n_bar": mean(cube, "n_bar", w, p),
                             "dedicated_on_time": mean(cube, "dedicated_on_time", w, p),
                             "dedicated_mean_delay_h": mean(cube, "dedicated_mean_delay", w, p)
                             / 3600.0,
                             "commands_on_running": mean(cube, "commands_on_running", w, p),
                             "mean_wait_h": mean(cube, "mean_wait", w, p) / 3600.0})

    touched = sorted({w for r in plan.readings.values() for w in r["workloads"]},
                     key=list(plan.load_sweeps).index)
    add(MAIN, load_cube, touched)
    for r in _readings_of(plan, readings_cube):
        add(r, readings_cube.sel(reading=r), plan.readings[r]["workloads"])
    return pd.DataFrame(rows)


def _fmt(x, digits=1) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def write_readings(load_cube, readings_cube, published: Mapping, plan: KumarPlan, *,
                   md, csv, scale: str) -> pd.DataFrame:
    """``readings.md`` (every table below) and ``readings.csv`` (the claim matrix); returns the matrix."""
    readings = _readings_of(plan, readings_cube)
    matrix = claims_matrix(load_cube, readings_cube, published, plan)
    write_csv(matrix.assign(scale=scale), csv, index=False, lineterminator="\n")

    shown = matrix[["claim", "source", MAIN]].copy()
    for r in readings:
        shown[r] = [("=" if v == m else v) for v, m in zip(matrix[r], matrix[MAIN])]
    changed = int(sum((matrix[r] != matrix[MAIN]).sum() for r in readings))
    side = tables_side_by_side(load_cube, readings_cube, published, plan)
    side_show = side.assign(
        new=side["new"].map(lambda p: PAPER_NAMES.get(p, p)),
        base=side["base"].map(lambda p: PAPER_NAMES.get(p, p)))
    for c in [MAIN, *readings]:
        side_show[c] = side_show[c].map(_fmt)
    side_show["published"] = side_show["published"].map(_fmt)
    beta = beta_arr_frame(load_cube, readings_cube, plan)
    beta_show = beta.assign(min=beta["min"].map(lambda x: f"{x:.4f}"),
                            max=beta["max"].map(lambda x: f"{x:.4f}"),
                            in_paper_range=beta["in_paper_range"].map(lambda x: f"{100 * x:.0f} %"))
    timely = timeliness_frame(load_cube, readings_cube, plan)
    timely_show = timely.copy()
    for c, d in (("n_bar", 1), ("dedicated_mean_delay_h", 1), ("mean_wait_h", 1)):
        timely_show[c] = timely[c].map(lambda x, d=d: _fmt(x, d))
    for c in ("dedicated_on_time", "commands_on_running"):
        timely_show[c] = timely[c].map(lambda x: "–" if not math.isfinite(x) else f"{100 * x:.0f} %")
    lo, hi = kgen.BETA_ARR_RANGE
    text = render(__package__, "readings.md.j2", scale=scale, seeds=plan.seeds, changed=changed,
                  readings={r: plan.readings[r] for r in readings}, lo=lo, hi=hi,
                  claims=markdown_table(shown, index=False),
                  tables=markdown_table(side_show[["table", "new", "base", "metric", "published",
                                                   MAIN, *readings]], index=False),
                  parameters=markdown_table(parameter_tables(), index=False),
                  beta=markdown_table(beta_show, index=False),
                  timely=markdown_table(timely_show, index=False))
    write_text(md, text, encoding="utf-8")
    return matrix
