"""Paper K's 10,000-job scenarios against the 500-job load sweep (config ``long_runs``).

Sect. V: "We also ran simulations for a couple of scenarios with 10,000
jobs and found no significant difference in performance metrics from the
500 job runs." The long runs (cube ``results/kumar_long.<scale>.nc``) use
the load sweep's generator, loads, policies and C_s picks with
``long_runs.n_jobs`` jobs per run.

**Saturation.** A point is *saturated* when the achieved load (the run's
utilization, busy processors over the makespan) falls short of the offered
load by more than :data:`SATURATION_GAP`: the queue then grows for the
whole run, a 500-job run only sees the start of that growth, and the two
job counts are not comparable. Saturated points are marked, and left out of
the verdict.

Saturation is judged on the long runs, where months of arrivals make the
drain after the last arrival negligible unless the backlog grows; one
saturated policy marks the whole (workload, load) point. (With a few
hundred jobs the drain alone can exceed the gap: the rule is meant for
10,000-job runs.)

**Verdict rule** (:func:`long_rule`, applied by
:func:`simlib.studies.kumar.report.long_runs_equivalent`): for every
workload, policy pair (the one listed later in the config is the new one)
and unsaturated load, the paired improvement in mean wait per seed in both
sweeps, the two means compared with a Welch 95 % interval
(:func:`comparison_table`). "No significant difference" is only credited
when the runs could have shown one: a point is *equivalent* when the whole
interval lies within ``± margin`` points (two one-sided tests at 2.5 %
each), *different* when it excludes 0, else *inconclusive* (too few seeds).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...metrics import percent_improvement
from ...stats import welch_diff_ci
from .plan import names

__all__ = ["SATURATION_GAP", "long_rule", "saturation_table", "comparison_table",
           "write_long_tables"]

#: Offered minus achieved load above which a point counts as saturated.
SATURATION_GAP = 0.02


def long_rule(margin: float) -> str:
    """The verdict rule in words (``claims.yaml``), for a margin of ``margin`` points."""
    return names("claims.yaml")["long_runs"]["criterion"].format(margin=f"{margin:g}",
                                                                 gap=SATURATION_GAP)


def saturation_table(cube, label: str) -> pd.DataFrame:
    """Offered vs achieved load per (workload, policy, load), seed means, with the saturation mark."""
    rows = []
    for w in cube["workload"].values:
        for p in cube["policy"].values:
            off = cube["offered_load"].sel(workload=w, policy=p).mean("seed", skipna=True)
            ach = cube["utilization"].sel(workload=w, policy=p).mean("seed", skipna=True)
            for x in cube["load"].values:
                o, a = float(off.sel(load=x)), float(ach.sel(load=x))
                if not np.isfinite(o):
                    continue
                rows.append({"runs": label, "workload": str(w), "policy": str(p),
                             "load": float(x), "offered_load": o, "achieved_load": a,
                             "saturated": bool(o - a > SATURATION_GAP)})
    return pd.DataFrame(rows)


def _per_seed_improvement(cube, workload, new, base, load) -> np.ndarray:
    a, b = (cube["mean_wait"].sel(workload=workload, policy=p, load=load).values for p in (new, base))
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    with np.errstate(divide="ignore", invalid="ignore"):
        imp = percent_improvement(a, b)
    # Neither waits: no improvement; only the base does not: unbounded,
    # which no interval can hold (kept as NaN, so the point has no interval).
    return np.where((a == 0) & (b == 0), 0.0, imp)


def comparison_table(short, long, policies: Mapping[str, Sequence[str]],
                     margin: float = 10.0) -> pd.DataFrame:
    """Improvement in mean wait per (workload, pair, load): 500-job vs long runs, Welch interval.

    ``policies`` maps each long-run workload to its policies in config
    order; every pair is compared, the later policy as the new one (EASY,
    LOS, Delayed-LOS: LOS vs EASY, Delayed-LOS vs EASY, Delayed-LOS vs LOS).
    """
    sat = saturation_table(long, "long")
    saturated = {(r.workload, r.load) for r in sat.itertuples() if r.saturated}
    rows = []
    for w, run in policies.items():
        todo = [(run[j], run[i]) for i in range(len(run)) for j in range(i + 1, len(run))]
        for new, base in todo:
            for x in long["load"].values:
                if float(x) not in short["load"].values:
                    continue
                s = _per_seed_improvement(short, w, new, base, x)
                g = _per_seed_improvement(long, w, new, base, x)
                finite = np.isfinite(s).all() and np.isfinite(g).all()
                diff, lo, hi = welch_diff_ci(s, g) if finite else (np.nan,) * 3
                rows.append({"workload": w, "new": new, "base": base, "load": float(x),
                             "improvement_500": float(s.mean()) if s.size else np.nan,
                             "improvement_long": float(g.mean()) if g.size else np.nan,
                             "difference": diff, "ci_low": lo, "ci_high": hi,
                             "seeds_500": int(s.size), "seeds_long": int(g.size),
                             "saturated": (w, float(x)) in saturated})
    df = pd.DataFrame(rows)
    if len(df):
        # Float noise of two zero-variance samples is not a difference.
        eps = 1e-9
        df["point"] = np.select(
            [df["ci_low"].isna(), (df["ci_low"] >= -margin - eps) & (df["ci_high"] <= margin + eps),
             (df["ci_low"] > eps) | (df["ci_high"] < -eps)],
            ["no interval", "equivalent", "different"], "inconclusive")
    return df


def write_long_tables(short, long, long_runs: Mapping, *, md, csv, scale: str) -> pd.DataFrame:
    """``long_runs.md`` / ``.csv``: the comparison and offered vs achieved load of both sweeps.

    ``long_runs``: :attr:`.plan.KumarPlan.long_runs` (``workloads``, ``n_jobs``, ``margin``).
    """
    from ...io import write_csv, write_text
    from ...render import render
    n_jobs, margin = long_runs["n_jobs"], long_runs["margin"]
    table = comparison_table(short, long, long_runs["workloads"], margin)
    write_csv(table, csv, index=False, lineterminator="\n", float_format="%.6g")
    sat = pd.concat([saturation_table(short.sel(workload=list(long["workload"].values),
                                                policy=list(long["policy"].values)), "500 jobs"),
                     saturation_table(long, f"{n_jobs} jobs")], ignore_index=True)
    wide = sat.pivot_table(index=["workload", "policy", "load"], columns="runs",
                           values="achieved_load").reset_index()
    marks = sat[sat["runs"] != "500 jobs"].set_index(["workload", "policy", "load"])["saturated"]
    wide["saturated (long)"] = [bool(marks.get((r.workload, r.policy, r.load), False))
                                for r in wide.itertuples()]
    write_text(md, render(__package__, "long_runs.md.j2", n_jobs=n_jobs, scale=scale,
                          rule=long_rule(margin), loads=wide.to_markdown(index=False, floatfmt=".3f"),
                          table=table.to_markdown(index=False, floatfmt=".2f") if len(table)
                          else "(no runs)"))
    return table
