"""Paper U's tables from its cubes, in long format (one row per point and metric), read by
the figure steps (:mod:`.figures`) and the claims (:mod:`.claims`).

Confidence intervals: mean over seeds ± half-width of the two-sided 95 %
Student-t interval (:func:`simlib.stats.mean_ci`). EASY does not depend on
the OV seed: on real traces it is simulated once and that value stands for
every seed (half-width 0).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from simlib.metrics import percent_improvement
from simlib.stats import mean_ci  # noqa: F401  (re-exported)

from . import EASY, MALLEABLE

__all__ = ["mean_ci", "pick", "trunc2", "TABLE1_METRICS", "table1_frame", "table2_frame",
           "long_frame", "gains_frame", "orders_frame"]


def pick(df: pd.DataFrame, **sel) -> pd.Series:
    """The one row of a long table whose columns equal ``sel`` (KeyError unless one)."""
    m = np.ones(len(df), bool)
    for k, v in sel.items():
        m &= (df[k] == v).to_numpy()
    rows = df[m]
    if len(rows) != 1:
        raise KeyError(f"expected one row for {sel}, found {len(rows)}")
    return rows.iloc[0]


def trunc2(x: float) -> float:
    """``x`` truncated to two decimals, as the paper prints Fig. 2's numbers."""
    return math.floor(x * 100 + 1e-9) / 100


def _long(cube, metrics, keys, level=0.95) -> pd.DataFrame:
    """One row per point of ``keys`` and metric: ``mean``, ``ci95`` and ``n`` over seeds."""
    rows = []
    for m in metrics:
        da = cube[m].transpose(*keys, "seed")
        for idx in np.ndindex(*da.shape[:-1]):
            mean, half = mean_ci(da.values[idx], level)[:2]
            rows.append({**{k: da[k].values[i].item() for k, i in zip(keys, idx)}, "metric": m,
                         "mean": float(mean), "ci95": float(half),
                         "n": int(np.isfinite(da.values[idx]).sum())})
    return pd.DataFrame(rows)


#: Table 1's metrics: the paper's three, then the bounded slowdown (not in the paper).
TABLE1_METRICS = ("mean_wait", "mean_response", "utrera_slowdown", "mean_bounded_slowdown")


def table1_frame(cube, published: Mapping | None = None, level: float = 0.95) -> pd.DataFrame:
    """Table 1 long format: one row per (fit, load, policy, metric).

    Columns ``[fit,] load, policy, metric, mean, ci95, n`` (ours, over
    seeds; ``fit`` when the cube has that dimension, in the cube's order),
    ``gain, gain_ci95, gain_n`` (the policy's percent gain over EASY paired by
    seed, :func:`_with_gains`; NaN on EASY's rows) and,
    with ``published``, ``paper_S``, ``paper_R`` and ``rel_diff_S`` (ours / S -
    1; NaN for the bounded slowdown, which the paper does not give).
    """
    metrics = [m for m in TABLE1_METRICS if m in cube]
    keys = (["fit"] if "fit" in cube.dims else []) + ["load", "policy"]
    df = _long(cube, metrics, keys, level)
    df = _with_gains(df, cube, keys, level)
    if published is not None:
        vals = {float(k): v for k, v in published["table1"]["values"].items()}
        printed = [vals.get(round(float(r.load), 6), {}).get(r.policy, {}).get(r.metric, (np.nan,) * 2)
                   for r in df.itertuples()]
        df["paper_S"], df["paper_R"] = [float(x[0]) for x in printed], [float(x[1]) for x in printed]
        df["rel_diff_S"] = df["mean"] / df["paper_S"] - 1.0
    order = {m: i for i, m in enumerate(metrics)}
    fits = {f: i for i, f in enumerate(dict.fromkeys(df["fit"]))} if "fit" in df else {}
    return df.sort_values((["fit"] if fits else []) + ["metric", "load", "policy"],
                          key=lambda s: s.map(order) if s.name == "metric" else
                          s.map(fits) if s.name == "fit" else s,
                          kind="mergesort").reset_index(drop=True)


def _with_gains(df: pd.DataFrame, cube, keys, level: float) -> pd.DataFrame:
    """``df`` with each policy's percent gain over EASY on the same workload, seed by seed:
    ``gain`` (mean of 100 (EASY - policy) / EASY over seeds), ``gain_ci95``, ``gain_n``
    (NaN on EASY's rows and without EASY). The seeds are the independent units (one
    workload each), and the policies of one seed share its jobs: a paired comparison.
    """
    gains, halves, ns = [], [], []
    has_easy = "policy" in cube.dims and EASY in cube["policy"].values
    for r in df.itertuples(index=False):
        row = r._asdict()
        if not has_easy or row["policy"] == EASY:
            gains.append(np.nan), halves.append(np.nan), ns.append(0)
            continue
        sel = {k: row[k] for k in keys if k != "policy"}
        da = cube[row["metric"]].sel(sel)
        b = da.sel(policy=EASY).values.astype(float)
        g = percent_improvement(da.sel(policy=row["policy"]).values.astype(float), b)
        mean, half, n = mean_ci(g, level)
        gains.append(float(mean)), halves.append(float(half)), ns.append(int(n))
    return df.assign(gain=gains, gain_ci95=halves, gain_n=ns)


def _or_nan(x):
    return float("nan") if x is None else x


def table2_frame(infos: Mapping[str, Mapping], traces: pd.DataFrame | None = None,
                 published: Mapping | None = None) -> pd.DataFrame:
    """Table 2: one row per trace, ours (portion simulated) beside the paper's.

    ``infos``: trace -> the record of step ``utrera_prepare_trace``
    (``machine_procs``, ``first_job``, ``jobs``, ``portion``: the portion's
    characteristics with the demand ratios under the log's schedule);
    ``traces``: :func:`long_frame`, for the demand ratio of our EASY
    schedule; ``published`` adds ``paper_*`` columns.

    Examples
    --------
    >>> info = {"machine_procs": 4, "first_job": 0, "jobs": 2, "portion": {
    ...     "cpu_util_mean": 0.5, "long_cpu_util_mean": float("nan"), "long_jobs": 0,
    ...     "req_cpus_ratio": 0.25, "offered_load": 0.7, "demand_ratio_log": 1.5,
    ...     "queue_demand_ratio_log": 0.5}}
    >>> float(table2_frame({"T": info}).loc["T", "demand_ratio_log"])
    1.5
    """
    rows = {}
    for trace, info in infos.items():
        part, first = info["portion"], int(info["first_job"])
        row = {
            "cpus": int(info["machine_procs"]), "jobs": int(info["jobs"]),
            "portion": f"{first}-{first + int(info['jobs']) - 1}",
            "cpu_util": part["cpu_util_mean"], "long_cpu_util": part["long_cpu_util_mean"],
            "long_jobs": part["long_jobs"],
            # None (JSON null): the log has no wait times, hence no schedule.
            "demand_ratio_log": _or_nan(part["demand_ratio_log"]),
            "queue_demand_ratio_log": _or_nan(part["queue_demand_ratio_log"]),
            "mean_size_ratio": part["req_cpus_ratio"], "offered_load": part["offered_load"],
        }
        if traces is not None:
            for m in ("demand_ratio", "queue_demand_ratio"):
                sel = traces[(traces["trace"] == trace) & (traces["policy"] == EASY)
                             & (traces["metric"] == m)]
                row[f"{m}_easy"] = float(sel["mean"].iloc[0]) if len(sel) else float("nan")
        if published is not None:
            pub = published["table2"]["values"].get(trace, {})
            for k in ("cpus", "jobs", "cpu_util", "long_cpu_util", "req_cpus_ratio"):
                row[f"paper_{k}"] = pub.get(k, float("nan"))
        rows[trace] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("trace")


def long_frame(cube, by: str = "trace", level: float = 0.95) -> pd.DataFrame:
    """A cube of the traces (``by`` "trace") or of Sect. 5.1 (``by`` "long_util") in long
    format: ``<by>, policy, metric, mean, ci95, n``.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"trace": "T", "policy": "easy", "seed": s, "mean_wait": 2.0}
    ...                 for s in (0, 1)], ["trace", "policy", "seed"], ["mean_wait"])
    >>> r = long_frame(c).iloc[0]
    >>> float(r["mean"]), float(r["ci95"]), int(r["n"])
    (2.0, 0.0, 2)
    """
    return _long(cube, [str(v) for v in cube.data_vars], [by, "policy"], level)


def gains_frame(cube, metrics=("utrera_slowdown", "mean_response"), *, base: str = EASY,
                new: str = MALLEABLE, level: float = 0.95) -> pd.DataFrame:
    """Percent gain of ``new`` over ``base`` per trace, and over the traces.

    ``gain = 100 (base - new) / base`` per seed (positive: ``new`` is
    better), then mean ± CI over seeds; column ``policy`` is ``new``. Row
    ``trace = "mean of traces"`` averages the per-trace gains seed by seed
    (each trace weighs the same); row ``"pooled"`` is the gain of the metric
    averaged over the traces' runs (traces weighted by their metric's size).
    """
    rows = []
    for m in metrics:
        b = cube[m].sel(policy=base).transpose("trace", "seed").values
        n_ = cube[m].sel(policy=new).transpose("trace", "seed").values
        g = percent_improvement(n_, b)
        for t, values in [*zip([str(t) for t in cube["trace"].values], g),
                          ("mean of traces", np.nanmean(g, axis=0)),
                          ("pooled", percent_improvement(np.nanmean(n_, axis=0),
                                                         np.nanmean(b, axis=0)))]:
            mean, half, n = mean_ci(values, level)
            rows.append({"policy": new, "trace": t, "metric": m, "mean": mean, "ci95": half, "n": n})
    return pd.DataFrame(rows)


def orders_frame(cube, orders: Mapping[str, str], metrics=("utrera_slowdown", "mean_response"),
                 level: float = 0.95) -> pd.DataFrame:
    """Candidate-order ablation: ``trace, order, metric, mean, ci95, n, rank, diff_vs_best, p_vs_best``.

    ``orders`` maps an order name to its policy label in the cube; ``rank``
    is 1 for the order with the smallest mean on that trace and metric. The
    orders share their OV draws seed by seed, so each is compared with the
    best by a paired t-test over seeds: ``diff_vs_best`` is the mean paired
    difference, ``p_vs_best`` its two-sided p-value (NaN for the best itself
    or with fewer than two seeds; 1 when the differences are all 0).

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"trace": "T", "policy": p, "seed": s, "mean_response": v * (1 + 0.1 * s) + s}
    ...                 for p, v in (("a", 2.0), ("b", 1.0)) for s in range(3)],
    ...                ["trace", "policy", "seed"], ["mean_response"])
    >>> f = orders_frame(c, {"oldest": "a", "shortest": "b"}, ["mean_response"])
    >>> f["rank"].tolist(), f["diff_vs_best"].round(6).tolist(), bool(f["p_vs_best"][0] < 0.01)
    ([2, 1], [1.1, 0.0], True)
    """
    from scipy.stats import ttest_rel
    labels = {v: k for k, v in orders.items()}
    sub = cube.sel(policy=list(orders.values()))
    df = _long(sub, list(metrics), ["trace", "policy"], level)
    df.insert(1, "order", df["policy"].map(labels))
    df["rank"] = df.groupby(["trace", "metric"])["mean"].rank(method="min").astype(int)
    diffs, ps = [], []
    for _, r in df.iterrows():
        best = df[(df["trace"] == r["trace"]) & (df["metric"] == r["metric"])].sort_values("mean").iloc[0]
        a = sub[r["metric"]].sel(trace=r["trace"], policy=r["policy"]).values.astype(float)
        b = sub[r["metric"]].sel(trace=r["trace"], policy=best["policy"]).values.astype(float)
        ok = np.isfinite(a) & np.isfinite(b)
        d = a[ok] - b[ok]
        diffs.append(float(d.mean()) if d.size else float("nan"))
        if r["policy"] == best["policy"] or d.size < 2:
            ps.append(float("nan"))
        elif np.ptp(d) == 0:   # identical differences: significant unless all 0
            ps.append(1.0 if d[0] == 0 else 0.0)
        else:
            ps.append(float(ttest_rel(a[ok], b[ok]).pvalue))
    df["diff_vs_best"], df["p_vs_best"] = diffs, ps
    return df.drop(columns="policy")
