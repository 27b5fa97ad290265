"""Paper U (Utrera et al., FCFS-malleable): tables, published numbers, verdicts.

Used by the figure and README steps of the study (the run-level logic is
in :mod:`simlib.studies.utrera.metrics` and
:mod:`simlib.studies.utrera.runs`):

* :func:`load_published` -- the paper's printed numbers
  (``config/published/utrera.yaml``), checked;
* table builders from the study's cubes (:func:`table1_frame`,
  :func:`table2_frame`, :func:`traces_frame`, :func:`gains_frame`,
  :func:`long_util_frame`, :func:`orders_frame`);
* :func:`claims` -- the verdict on every claim of the paper our runs can
  test, by mechanical rules stated beside each verdict.

Confidence intervals
--------------------
Mean over seeds ± half-width of the two-sided 95 % Student-t interval
(:func:`mean_ci`). EASY does not depend on the OV seed: on real traces it is
simulated once and that value stands for every seed (half-width 0).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np
import pandas as pd

from simlib.errors import ConfigError
from simlib.metrics import percent_improvement
from simlib.published import published_number, read_published
from simlib.stats import mean_ci  # noqa: F401  (re-exported)
from . import EASY, MALLEABLE

__all__ = [
    "mean_ci", "load_published", "table1_frame", "table2_frame", "traces_frame",
    "gains_frame", "long_util_frame", "orders_frame", "claims",
]


# --------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------
# mean_ci lives in simlib.stats (shared by the studies).
# --------------------------------------------------------------------------
# published numbers
# --------------------------------------------------------------------------
_PUBLISHED_BLOCKS = ("fig2", "table1", "table2", "table3", "fragmentation", "headline",
                     "fig3", "long_util", "orders")


def load_published(path) -> dict:
    """Read ``config/published/utrera.yaml`` and check its structure.

    Raises
    ------
    ConfigError
        Naming the file and the key that is missing or malformed.

    Examples
    --------
    >>> pub = load_published("config/published/utrera.yaml")   # doctest: +SKIP
    >>> pub["table3"]["values"]["SDSC-SP2"]["fcfs_malleable"]   # doctest: +SKIP
    1.47
    """
    data = read_published(path, _PUBLISHED_BLOCKS)
    num = partial(published_number, path)

    for pol, vals in data["fig2"].get("values", {}).items():
        for m in ("mean_response", "utrera_slowdown", "utrera_fragmentation"):
            num(vals.get(m), f"fig2.values.{pol}.{m}")
    t1 = data["table1"].get("values")
    if not isinstance(t1, dict) or not t1:
        raise ConfigError(f"{path}: table1.values missing")
    for load, pols in t1.items():
        num(load, f"table1.values key {load!r}")
        for pol in (EASY, MALLEABLE):
            for m in ("mean_wait", "mean_response", "utrera_slowdown"):
                pair = (pols or {}).get(pol, {}).get(m)
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ConfigError(f"{path}: table1.values.{load}.{pol}.{m} must be [S, R]")
                for x in pair:
                    num(x, f"table1.values.{load}.{pol}.{m}")
    for trace, vals in data["table2"].get("values", {}).items():
        for m in ("cpus", "cpu_util", "long_cpu_util", "req_cpus_ratio"):
            num((vals or {}).get(m), f"table2.values.{trace}.{m}")
    for trace, vals in data["table3"].get("values", {}).items():
        for pol in (EASY, MALLEABLE):
            num((vals or {}).get(pol), f"table3.values.{trace}.{pol}")
    for m in ("utrera_slowdown", "mean_response"):
        num(data["headline"].get("values", {}).get(m), f"headline.values.{m}")
    num(data["long_util"].get("threshold"), "long_util.threshold")
    return data


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------
def _seed_stats(da, level=0.95):
    """Mean and CI half-width over the ``seed`` dim of a DataArray, as arrays."""
    vals = np.moveaxis(da.values, da.dims.index("seed"), -1)
    flat = vals.reshape(-1, vals.shape[-1])
    stats = np.array([mean_ci(row, level)[:2] for row in flat]).reshape(*vals.shape[:-1], 2)
    return stats[..., 0], stats[..., 1]


def _long(cube, metrics, keys, level=0.95) -> pd.DataFrame:
    rows = []
    for m in metrics:
        da = cube[m].transpose(*keys, "seed")
        mean, half = _seed_stats(da, level)
        n = np.isfinite(da.values).sum(axis=-1)
        for idx in np.ndindex(*mean.shape):
            rec = {k: da[k].values[i].item() for k, i in zip(keys, idx)}
            rec.update(metric=m, mean=float(mean[idx]), ci95=float(half[idx]), n=int(n[idx]))
            rows.append(rec)
    return pd.DataFrame(rows)


def table1_frame(cube, published: Mapping | None = None, level: float = 0.95) -> pd.DataFrame:
    """Table 1 long format: one row per (load, policy, metric).

    Columns ``load, policy, metric, mean, ci95, n`` (ours, over seeds) and,
    with ``published``, ``paper_S``, ``paper_R`` and ``rel_diff_S`` (ours
    / S - 1).

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"policy": p, "load": 0.3, "seed": s, "mean_wait": 1.0 + s}
    ...                 for p in ("easy", "fcfs_malleable") for s in (0, 1)],
    ...                ["policy", "load", "seed"], ["mean_wait"])
    >>> table1_frame(c)[["policy", "mean"]].values.tolist()
    [['easy', 1.5], ['fcfs_malleable', 1.5]]
    """
    metrics = [m for m in ("mean_wait", "mean_response", "utrera_slowdown") if m in cube]
    df = _long(cube, metrics, ["load", "policy"], level)
    if published is not None:
        vals = {float(k): v for k, v in published["table1"]["values"].items()}

        def pub(row, i):
            try:
                return float(vals[round(float(row["load"]), 6)][row["policy"]][row["metric"]][i])
            except KeyError:
                return float("nan")

        df["paper_S"] = [pub(r, 0) for _, r in df.iterrows()]
        df["paper_R"] = [pub(r, 1) for _, r in df.iterrows()]
        df["rel_diff_S"] = df["mean"] / df["paper_S"] - 1.0
    order = {m: i for i, m in enumerate(metrics)}
    return df.sort_values(["metric", "load", "policy"], key=lambda s: s.map(order)
                          if s.name == "metric" else s, kind="mergesort").reset_index(drop=True)


def _or_nan(x):
    return float("nan") if x is None else x


def table2_frame(infos: Mapping[str, Mapping], traces: pd.DataFrame | None = None,
                 published: Mapping | None = None) -> pd.DataFrame:
    """Table 2: one row per trace, ours (portion simulated) beside the paper's.

    Parameters
    ----------
    infos : mapping trace -> dict
        What the U trace-preparation step records: ``machine_procs``,
        ``first_job``, ``jobs`` and ``portion`` (a :func:`characterize`
        dict plus ``demand_ratio_log`` / ``queue_demand_ratio_log``).
    traces : DataFrame, optional
        :func:`traces_frame` of the traces cube, for the demand ratio of
        the EASY schedule we simulated.
    published : mapping, optional
        :func:`load_published`; adds ``paper_*`` columns.

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
        part = info["portion"]
        first = int(info["first_job"])
        row = {
            "cpus": int(info["machine_procs"]),
            "jobs": int(info["jobs"]),
            "portion": f"{first}-{first + int(info['jobs']) - 1}",
            "cpu_util": part["cpu_util_mean"],
            "long_cpu_util": part["long_cpu_util_mean"],
            "long_jobs": part["long_jobs"],
            # None (JSON null): the log has no wait times, hence no schedule.
            "demand_ratio_log": _or_nan(part["demand_ratio_log"]),
            "queue_demand_ratio_log": _or_nan(part["queue_demand_ratio_log"]),
            "mean_size_ratio": part["req_cpus_ratio"],
            "offered_load": part["offered_load"],
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


def traces_frame(cube, metrics: Sequence[str] | None = None, level: float = 0.95) -> pd.DataFrame:
    """Traces cube in long format: ``trace, policy, metric, mean, ci95, n``.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"trace": "T", "policy": "easy", "seed": s, "mean_wait": 2.0}
    ...                 for s in (0, 1)], ["trace", "policy", "seed"], ["mean_wait"])
    >>> r = traces_frame(c).iloc[0]
    >>> float(r["mean"]), float(r["ci95"]), int(r["n"])
    (2.0, 0.0, 2)
    """
    metrics = list(metrics) if metrics is not None else [str(v) for v in cube.data_vars]
    return _long(cube, metrics, ["trace", "policy"], level)


def gains_frame(cube, metrics=("utrera_slowdown", "mean_response"), *, base: str = EASY,
                new: str = MALLEABLE, level: float = 0.95) -> pd.DataFrame:
    """Percent gain of ``new`` over ``base`` per trace, and over the traces.

    ``gain = 100 (base - new) / base`` per seed (positive: ``new`` is
    better), then mean ± CI over seeds; column ``policy`` is ``new``. Row ``trace = "mean of traces"``
    averages the per-trace gains seed by seed (each trace weighs the same);
    row ``"pooled"`` is the gain of the metric averaged over the traces'
    runs (traces weighted by their metric's size).

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"trace": "T", "policy": p, "seed": 0, "mean_response": v}
    ...                 for p, v in (("easy", 100.0), ("fcfs_malleable", 69.0))],
    ...                ["trace", "policy", "seed"], ["mean_response"])
    >>> gains_frame(c, ["mean_response"])["mean"].round(6).tolist()
    [31.0, 31.0, 31.0]
    """
    rows = []
    traces = [str(t) for t in cube["trace"].values]
    for m in metrics:
        b = cube[m].sel(policy=base).transpose("trace", "seed").values
        n_ = cube[m].sel(policy=new).transpose("trace", "seed").values
        g = percent_improvement(n_, b)
        for i, t in enumerate(traces):
            mean, half, n = mean_ci(g[i], level)
            rows.append({"policy": new, "trace": t, "metric": m, "mean": mean, "ci95": half, "n": n})
        mean, half, n = mean_ci(np.nanmean(g, axis=0), level)
        rows.append({"policy": new, "trace": "mean of traces", "metric": m, "mean": mean,
                     "ci95": half, "n": n})
        pooled = percent_improvement(np.nanmean(n_, axis=0), np.nanmean(b, axis=0))
        mean, half, n = mean_ci(pooled, level)
        rows.append({"policy": new, "trace": "pooled", "metric": m, "mean": mean, "ci95": half,
                     "n": n})
    return pd.DataFrame(rows)


def long_util_frame(cube, level: float = 0.95) -> pd.DataFrame:
    """§5.1 cube in long format: ``long_util, policy, metric, mean, ci95, n``.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"long_util": 0.6, "policy": "easy", "seed": 0, "utrera_slowdown": 3.0}],
    ...                ["long_util", "policy", "seed"], ["utrera_slowdown"],
    ...                metric_info={"utrera_slowdown": ("1", "s", "d")})
    >>> long_util_frame(c)["mean"].tolist()
    [3.0]
    """
    return _long(cube, [str(v) for v in cube.data_vars], ["long_util", "policy"], level)


def orders_frame(cube, orders: Mapping[str, str], metrics=("utrera_slowdown", "mean_response"),
                 level: float = 0.95) -> pd.DataFrame:
    """Candidate-order ablation: ``trace, order, metric, mean, ci95, n, rank``.

    ``orders`` maps an order name to its policy label in the cube; ``rank``
    is 1 for the order with the smallest mean on that trace and metric.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"trace": "T", "policy": p, "seed": 0, "mean_response": v}
    ...                 for p, v in (("a", 2.0), ("b", 1.0))], ["trace", "policy", "seed"],
    ...                ["mean_response"])
    >>> orders_frame(c, {"oldest": "a", "shortest": "b"}, ["mean_response"])["rank"].tolist()
    [2, 1]
    """
    labels = {v: k for k, v in orders.items()}
    sub = cube.sel(policy=[p for p in orders.values()])
    df = _long(sub, list(metrics), ["trace", "policy"], level)
    df.insert(1, "order", df["policy"].map(labels))
    df = df.drop(columns="policy")
    df["rank"] = df.groupby(["trace", "metric"])["mean"].rank(method="min").astype(int)
    return df


# --------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------
def _pick(df, **sel):
    m = np.ones(len(df), bool)
    for k, v in sel.items():
        m &= (df[k] == v).to_numpy()
    rows = df[m]
    if len(rows) != 1:
        raise KeyError(f"expected one row for {sel}, found {len(rows)}")
    return rows.iloc[0]


def _trunc2(x: float) -> float:
    return math.floor(x * 100 + 1e-9) / 100


def _verdict(hits: int, total: int) -> str:
    if total and hits == total:
        return "reproduced"
    return "partly" if hits > 0 else "not reproduced"


def claims(*, published: Mapping, fig2: pd.DataFrame | None = None,
           table1: pd.DataFrame | None = None, table2: pd.DataFrame | None = None,
           traces: pd.DataFrame | None = None, gains: pd.DataFrame | None = None,
           long_util: pd.DataFrame | None = None, orders: pd.DataFrame | None = None,
           malleable: str = MALLEABLE) -> list[dict]:
    """A verdict on every claim of the paper that our runs can test.

    Each item: ``claim``, ``source``, ``published``, ``ours`` (text),
    ``verdict`` (``reproduced`` / ``partly`` / ``not reproduced``) and
    ``criterion`` (the rule applied). The rules are mechanical on purpose,
    so a verdict cannot drift from the numbers; the README adds the why.

    Inputs are the tables of this module (any may be None to skip its
    claims): ``fig2`` has columns ``policy, metric, ours``; ``table2`` is
    indexed by trace with columns ``cpu_util, long_cpu_util,
    demand_ratio_log, queue_demand_ratio_log``.

    Examples
    --------
    >>> pub = {"headline": {"source": "s", "values": {"utrera_slowdown": 0.28,
    ...        "mean_response": 0.31}}}
    >>> g = pd.DataFrame({"trace": ["mean of traces"] * 2, "metric": ["utrera_slowdown",
    ...                   "mean_response"], "mean": [30.0, 29.0], "ci95": [1.0, 1.0], "n": [5, 5]})
    >>> claims(published=pub, gains=g)[0]["verdict"]
    'reproduced'
    """
    out = []

    def add(claim, source, pub, ours, verdict, criterion):
        out.append(dict(claim=claim, source=source, published=pub, ours=ours, verdict=verdict,
                        criterion=criterion))

    if fig2 is not None:
        vals = published["fig2"]["values"]
        hits, total, parts = 0, 0, []
        for pol, mets in vals.items():
            for m, p in mets.items():
                o = float(_pick(fig2, policy=pol, metric=m)["ours"])
                ok = abs(o - p) < 1e-9 if m == "utrera_fragmentation" else _trunc2(o) == p
                hits += ok
                total += 1
                parts.append(f"{pol} {m} {o:.4g}")
        add("Fig. 2: average response 4.66/4.33/3.66, slowdown 3.5/3.16/2.5, fragmentation "
            "30/30/0 % for FCFS/EASY/FCFS-malleable", published["fig2"]["source"],
            "9 numbers", f"{hits}/{total} equal; " + ", ".join(parts), _verdict(hits, total),
            "each simulated number truncated to 2 decimals equals the printed one "
            "(fragmentation: exactly)")

    if table1 is not None:
        hits, total, diffs, parts = 0, 0, [], []
        for (load, metric), grp in table1.groupby(["load", "metric"]):
            e = _pick(grp, policy=EASY)
            f = _pick(grp, policy=malleable)
            g_ours = 100 * (e["mean"] - f["mean"]) / e["mean"]
            g_pub = 100 * (e["paper_S"] - f["paper_S"]) / e["paper_S"]
            hits += bool(np.sign(g_ours) == np.sign(g_pub))
            total += 1
            diffs.append(abs(g_ours - g_pub))
            parts.append(f"{metric}@{load:g}: {g_ours:+.0f}% vs {g_pub:+.0f}%")
        md = float(np.mean(diffs)) if diffs else float("nan")
        verdict = ("reproduced" if hits == total and md <= 10 else
                   "partly" if hits >= 2 * total / 3 else "not reproduced")
        add("Table 1 (simulator): FCFS-malleable has lower average wait, response and slowdown "
            "than EASY at 30-90 % load (gain of FCFS-malleable over EASY, ours vs paper's S)",
            published["table1"]["source"], "gains of S columns",
            f"sign agrees in {hits}/{total}; mean |gain difference| {md:.0f} points; "
            + "; ".join(parts), verdict,
            "reproduced: every sign agrees and mean |difference| <= 10 points; partly: >= 2/3 "
            "of the signs agree (absolute seconds are not compared: runtimes were rescaled)")

    if table2 is not None:
        pub = published["table2"]["values"]
        hits, total, parts = 0, 0, []
        for trace, vals in pub.items():
            if trace not in table2.index:
                continue
            row = table2.loc[trace]
            for key, col, tol in (("cpu_util", "cpu_util", 0.15),
                                  ("long_cpu_util", "long_cpu_util", 0.15),
                                  ("req_cpus_ratio", "demand_ratio_log", 0.25)):
                o, p = float(row[col]), float(vals[key])
                ok = bool(np.isfinite(o) and abs(o / p - 1) <= tol)
                hits += ok
                total += 1
                parts.append(f"{trace} {key} {o:.2f} vs {p:g}")
        add("Table 2: average CPU utilization, long jobs' CPU utilization and Req.Cpus/Cpus "
            "of the three traces", published["table2"]["source"], "9 numbers",
            f"{hits}/{total} within tolerance; " + "; ".join(parts),
            "reproduced" if hits == total else "partly" if hits >= total / 2 else "not reproduced",
            "within 15 % (utilizations) or 25 % (Req.Cpus/Cpus, our reading: demand from the "
            "log's own schedule) of the printed value; partly: at least half")

    if traces is not None:
        tr = sorted(set(traces["trace"]))

        def val(trace, pol, m):
            r = _pick(traces, trace=trace, policy=pol, metric=m)
            return float(r["mean"]), float(r["ci95"]) if np.isfinite(r["ci95"]) else 0.0

        better = []
        for t in tr:
            (e, _), (f, fh) = val(t, EASY, "mean_response"), val(t, malleable, "mean_response")
            better.append((t, f + fh < e, f, e))
        hits = sum(b for _, b, _, _ in better)
        add("Fig. 3(c): FCFS-malleable has a better average response time than EASY on all "
            "traces, especially SDSC-Blue", published["fig3"]["source"], "all 3 traces",
            "; ".join(f"{t}: {f:.0f} s vs {e:.0f} s" for t, _, f, e in better),
            _verdict(hits, len(tr)), "FCFS-malleable's mean + CI half-width below EASY's, per trace")
        parts, hits = [], 0
        for t in tr:
            (e, _), (f, _) = val(t, EASY, "mean_execution"), val(t, malleable, "mean_execution")
            hits += e < f < 2 * e
            parts.append(f"{t}: x{f / e:.2f}")
        add("Fig. 3(b): execution times are larger under FCFS-malleable but not twice EASY's",
            published["fig3"]["source"], "1 < ratio < 2 on all traces", "; ".join(parts),
            _verdict(hits, len(tr)), "1 < mean execution FCFS-malleable / EASY < 2, per trace")
        expect = {"CTC-SP2": True, "SDSC-BLUE": True, "SDSC-SP2": False}
        parts, hits, total = [], 0, 0
        for t in tr:
            if t not in expect:
                continue
            (e, _), (f, fh) = val(t, EASY, "utrera_slowdown"), val(t, malleable, "utrera_slowdown")
            won = f + fh < e
            hits += won == expect[t]
            total += 1
            parts.append(f"{t}: {f:.1f} vs {e:.1f} ({'better' if won else 'not better'})")
        add("Fig. 3(d): FCFS-malleable's average slowdown is better on CTC and SDSC-Blue, not on "
            "SDSC", published["fig3"]["source"], "better, better, not better", "; ".join(parts),
            _verdict(hits, total), "per trace, 'better' = mean + CI half-width below EASY's")
        pub3 = published["table3"]["values"]
        parts, hits, total = [], 0, 0
        for t, vals in pub3.items():
            if t not in tr:
                continue
            for pol in (EASY, MALLEABLE):
                o = val(t, pol if pol == EASY else malleable, "utrera_mean_mpl")[0]
                hits += abs(o - vals[pol]) <= 0.1
                total += 1
                parts.append(f"{t} {pol} {o:.2f} vs {vals[pol]:g}")
        add("Table 3: average MPL (EASY 0.75/0.76/0.89, FCFS-malleable 0.91/0.98/1.47)",
            published["table3"]["source"], "6 numbers", "; ".join(parts), _verdict(hits, total),
            "within +-0.10 of the printed value")
        fr = published["fragmentation"]["values"]
        parts, hits, total = [], 0, 0
        for pol, per in fr.items():
            for t, p in per.items():
                if t not in tr:
                    continue
                o = val(t, pol if pol == EASY else malleable, "utrera_fragmentation")[0]
                ok = o <= 0.01 if p == 0 else abs(o - p) <= 0.03
                hits += ok
                total += 1
                parts.append(f"{t} {pol} {100 * o:.1f} % vs {100 * p:g} %")
        add("Fragmentation: EASY from 6 % (CTC) to 14 % (SDSC), FCFS-malleable eliminates it",
            published["fragmentation"]["source"], "EASY 6-14 %, FCFS-malleable 0",
            "; ".join(parts), _verdict(hits, total),
            "EASY within +-3 points of the printed value; FCFS-malleable <= 1 %")

    if gains is not None:
        if "policy" in gains.columns:  # gains of several readings: keep this one's
            gains = gains[gains["policy"] == malleable]
        pub = published["headline"]["values"]
        parts, hits, total = [], 0, 0
        for m in ("utrera_slowdown", "mean_response"):
            r = _pick(gains, trace="mean of traces", metric=m)
            p = 100 * pub[m]
            hits += abs(r["mean"] - p) <= 5
            total += 1
            parts.append(f"{m}: {r['mean']:+.0f} % (+-{r['ci95']:.0f}) vs +{p:.0f} %")
        same_sign = all(_pick(gains, trace="mean of traces", metric=m)["mean"] > 0
                        for m in ("utrera_slowdown", "mean_response"))
        add("Headline: FCFS-malleable beats EASY by 28 % in average slowdown and 31 % in average "
            "response time", published["headline"]["source"], "+28 %, +31 %", "; ".join(parts),
            "reproduced" if hits == total else "partly" if same_sign else "not reproduced",
            "gain averaged over the three traces within +-5 points of the printed one; partly: "
            "both gains positive")

    if long_util is not None:
        thr = float(published["long_util"]["threshold"])
        sld = long_util[long_util["metric"] == "utrera_slowdown"]
        parts, below_ok, above_ok, n_below, n_above = [], 0, 0, 0, 0
        for u, grp in sld.groupby("long_util"):
            e = float(_pick(grp, policy=EASY)["mean"])
            f = float(_pick(grp, policy=malleable)["mean"])
            parts.append(f"{u:.0%}: {f:.1f} vs {e:.1f}")
            if u < thr - 1e-9:
                n_below += 1
                below_ok += f < e
            else:
                n_above += 1
                above_ok += f >= e
        full = below_ok == n_below and above_ok == n_above
        verdict = ("reproduced" if full and n_below else
                   "partly" if below_ok > 0 else "not reproduced")
        add("Sect. 5.1: on SDSC, FCFS-malleable's average slowdown is below EASY's when long "
            "jobs' CPU utilization is under 90 %", published["long_util"]["source"],
            "wins below 90 %, not at or above", "FCFS-malleable vs EASY slowdown: "
            + "; ".join(parts), verdict,
            "reproduced: FCFS-malleable wins at every point below the threshold and at none at "
            "or above; partly: it wins at some point below; not reproduced: at none below")

    if orders is not None:
        first, close, total, parts = 0, 0, 0, []
        for (trace, metric), grp in orders.groupby(["trace", "metric"]):
            old = _pick(grp, order="oldest")
            best = grp["mean"].min()
            ci = float(old["ci95"]) if np.isfinite(old["ci95"]) else 0.0
            total += 1
            first += int(old["rank"] == 1)
            close += bool(old["mean"] - ci <= best)
            parts.append(f"{trace} {metric}: rank {int(old['rank'])}, "
                         f"{100 * (old['mean'] / best - 1):+.1f} % vs best")
        verdict = ("reproduced" if first == total else
                   "partly" if close == total else "not reproduced")
        add("Sect. 3.1: shrinking/expanding the oldest job first is the best of the four "
            "candidate orders", published["orders"]["source"], "oldest best",
            f"oldest first in {first}/{total}, not significantly worse than the best in "
            f"{close}/{total}; " + "; ".join(parts), verdict,
            "reproduced: oldest has the smallest mean on every trace and metric (slowdown, "
            "response); partly: its mean minus CI half-width never exceeds the best mean "
            "(indistinguishable); not reproduced: significantly worse somewhere")
    return out
