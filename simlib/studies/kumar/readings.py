"""Paper K under other readings: the load sweeps re-run with the generator or ECC changed.

The grid's ``readings`` (each described there) re-run some load sweeps on
the same loads and seed streams, so each comparison with the load sweep is
paired. :func:`reading_view` puts a reading's runs in place of the load
sweep's for the workloads it re-ran, so that every table and claim rule of
the main reading applies unchanged; :func:`write_readings` writes
``readings.md`` / ``readings.csv`` (the reading x claim matrix, Tables IV–VII
side by side, Tables I–II with the solved β_arr, n̄, dedicated jobs'
timeliness and where the commands landed).
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
from .plan import PAPER_NAMES, READING_SEP, KumarPlan

__all__ = ["MAIN", "reading_view", "claims_matrix", "tables_side_by_side",
           "parameter_tables", "beta_arr_frame", "timeliness_frame", "write_readings"]

#: Column name of the main reading (the load sweep as configured).
MAIN = "main"


def reading_view(load_cube, readings_cube, reading: str):
    """The load cube with ``reading``'s runs (of the readings cube, dims ``(reading,
    workload, policy, load, seed)``) in place of the workloads it re-ran; attribute
    ``reading`` names it.
    """
    view = load_cube.copy(deep=True)
    rc = readings_cube.sel(reading=reading)
    for w in rc["workload"].values:
        # Variable ran (which policies ran) is no measure: it is True whether or not
        # the reading re-ran this workload, and its policies replace the view's below.
        sub = rc.sel(workload=w).drop_vars("ran", errors="ignore")
        measured = [v for v in sub.data_vars if bool(np.isfinite(sub[v].values).any())]
        if not measured or w not in view["workload"].values:
            continue
        if "ran" in view.data_vars and "ran" in rc.data_vars:
            view["ran"].loc[{"workload": w}] = rc["ran"].sel(workload=w).reindex(
                policy=view["policy"], fill_value=False).transpose(
                *[d for d in view["ran"].dims if d != "workload"]).values
        sub = sub.reindex(policy=view["policy"], load=view["load"], seed=view["seed"])
        for var in view.data_vars:
            if var in sub.data_vars:
                view[var].loc[{"workload": w}] = sub[var].transpose(
                    *[d for d in view[var].dims if d != "workload"]).values
    view.attrs["reading"] = reading
    return view


def _readings_of(plan: KumarPlan, readings_cube) -> list[str]:
    return [r for r in plan.readings if r in readings_cube["reading"].values]


def claims_matrix(load_cube, readings_cube, published: Mapping, plan: KumarPlan) -> pd.DataFrame:
    """Every claim the load sweeps test (columns ``claim``, ``source``), its verdict under
    the main reading (:data:`MAIN`) and each other, and the numbers behind each
    (``ours_<reading>``).

    The rules are :func:`.report.claims`'s, applied to :func:`reading_view`;
    a claim on workloads a reading did not re-run keeps the main verdict.
    """
    from .report import claims, long_runs_equivalent
    from .tables import tables_frame

    # The long-run claim has its own inputs (claims() always adds it): not a load-sweep claim.
    long_claim = long_runs_equivalent().claim

    def run(cube):
        got = claims(published=published, load_cube=cube, tables=tables_frame(cube, published),
                     plan=plan)
        return pd.DataFrame([c.as_dict() for c in got if c.claim != long_claim])

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
    generator extends it): Table I is lublin99's runtime model, Table II
    differs in ``aarr``, ``anum`` and ``bnum``, and lublin99's ``barr`` lies
    in the paper's range.

    Examples
    --------
    >>> t = parameter_tables().set_index("parameter")
    >>> t.loc["bnum", ["table", "paper", "ours"]].tolist()
    ['II', '0.9631', '0.9631']
    """
    from ...workload.lublin import TYPELESS
    ours, (lo, hi) = kgen.KumarParams(), kgen.BETA_ARR_RANGE
    rows = [{"table": table, "parameter": name, "paper": f"{paper:g}",
             "ours": f"{getattr(ours, name):g}", "lublin99": f"{getattr(TYPELESS, name):g}"}
            for table, values in (("I", kgen.TABLE_I), ("II", kgen.TABLE_II))
            for name, paper in values.items()]
    rows.append({"table": "II", "parameter": "barr", "paper": f"varies in [{lo:g}, {hi:g}]",
                 "ours": "solved per workload for the target Load (see β_arr below)",
                 "lublin99": f"{TYPELESS.barr:g}"})
    return pd.DataFrame(rows)


def _each_reading(load_cube, readings_cube, plan: KumarPlan, main: list[str]):
    """(reading, its cube, the workloads it re-ran): :data:`MAIN` first (on ``main``)."""
    yield MAIN, load_cube, main
    for r in _readings_of(plan, readings_cube):
        yield r, readings_cube.sel(reading=r), plan.readings[r]["workloads"]


def beta_arr_frame(load_cube, readings_cube, plan: KumarPlan) -> pd.DataFrame:
    """The β_arr the Load calibration solved for, per reading and workload, against Table II's range."""
    lo, hi = kgen.BETA_ARR_RANGE
    rows = []
    for reading, cube, workloads in _each_reading(load_cube, readings_cube, plan,
                                                  [str(w) for w in load_cube["workload"].values]):
        for w in workloads:
            # Every policy of a workload runs the same workloads: count them once.
            b = cube["beta_arr"].sel(workload=w, policy=plan.paper_load_sweeps[w][0]).values
            b = b[np.isfinite(b)]
            if b.size:
                rows.append({"reading": reading, "workload": w, "size_scale": plan.params(
                    w if reading == MAIN else f"{reading}{READING_SEP}{w}").size_scale,
                    "workloads": int(b.size), "min": float(b.min()), "max": float(b.max()),
                    "in_paper_range": float(np.mean((b >= lo) & (b <= hi)))})
    return pd.DataFrame(rows)


def timeliness_frame(load_cube, readings_cube, plan: KumarPlan) -> pd.DataFrame:
    """Per reading, workload and policy: n̄, dedicated jobs' timeliness, commands on running jobs.

    Means over every load and seed; NaN where a quantity does not apply.
    """
    def mean(cube, var, w, p, scale=1.0):
        v = cube[var].sel(workload=w, policy=p).values if var in cube else np.array([])
        v = v[np.isfinite(v)]
        return float(v.mean()) / scale if v.size else math.nan

    touched = sorted({w for r in plan.readings.values() for w in r["workloads"]},
                     key=list(plan.load_sweeps).index)
    return pd.DataFrame([
        {"reading": reading, "workload": w, "policy": PAPER_NAMES.get(p, p),
         "n_bar": mean(cube, "n_bar", w, p),
         "dedicated_on_time": mean(cube, "dedicated_on_time", w, p),
         "dedicated_mean_delay_h": mean(cube, "dedicated_mean_delay", w, p, 3600.0),
         "commands_on_running": mean(cube, "commands_on_running", w, p),
         "mean_wait_h": mean(cube, "mean_wait", w, p, 3600.0)}
        for reading, cube, workloads in _each_reading(load_cube, readings_cube, plan, touched)
        for w in workloads for p in plan.paper_load_sweeps[w]])


def _fmt(x, digits=1) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def _percent(x) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:.0f} %"


def write_readings(load_cube, readings_cube, published: Mapping, plan: KumarPlan, *,
                   md, csv, scale: str) -> pd.DataFrame:
    """``readings.md`` (every table below) and ``readings.csv`` (the claim matrix); returns the matrix."""
    readings = _readings_of(plan, readings_cube)
    matrix = claims_matrix(load_cube, readings_cube, published, plan)
    write_csv(matrix.assign(scale=scale), csv, index=False, lineterminator="\n")
    shown = matrix[["claim", "source", MAIN]].copy()
    for r in readings:
        shown[r] = [("=" if v == m else v) for v, m in zip(matrix[r], matrix[MAIN])]
    side = tables_side_by_side(load_cube, readings_cube, published, plan)
    side = side.assign(new=side["new"].map(lambda p: PAPER_NAMES.get(p, p)),
                       base=side["base"].map(lambda p: PAPER_NAMES.get(p, p)),
                       **{c: side[c].map(_fmt) for c in ["published", MAIN, *readings]})
    beta = beta_arr_frame(load_cube, readings_cube, plan)
    beta = beta.assign(min=beta["min"].map(lambda x: f"{x:.4f}"),
                       max=beta["max"].map(lambda x: f"{x:.4f}"),
                       in_paper_range=beta["in_paper_range"].map(_percent))
    timely = timeliness_frame(load_cube, readings_cube, plan)
    timely = timely.assign(**{c: timely[c].map(_fmt) for c in
                              ("n_bar", "dedicated_mean_delay_h", "mean_wait_h")},
                           **{c: timely[c].map(_percent) for c in
                              ("dedicated_on_time", "commands_on_running")})
    lo, hi = kgen.BETA_ARR_RANGE
    text = render(__package__, "readings.md.j2", scale=scale, seeds=plan.seeds,
                  changed=int(sum((matrix[r] != matrix[MAIN]).sum() for r in readings)),
                  readings={r: plan.readings[r] for r in readings}, lo=lo, hi=hi,
                  claims=markdown_table(shown, index=False),
                  tables=markdown_table(side[["table", "new", "base", "metric", "published",
                                              MAIN, *readings]], index=False),
                  parameters=markdown_table(parameter_tables(), index=False),
                  beta=markdown_table(beta, index=False), timely=markdown_table(timely, index=False))
    write_text(md, text, encoding="utf-8")
    return matrix
