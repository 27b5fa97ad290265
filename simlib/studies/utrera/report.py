"""Paper U (Utrera et al., FCFS-malleable): tables, published numbers, claims.

Used by the figure, claims and README steps of the study (the run-level
logic is in :mod:`simlib.studies.utrera.metrics` and
:mod:`simlib.studies.utrera.runs`):

* :func:`load_published` -- the paper's printed numbers
  (``config/published/utrera.yaml``), validated against
  ``published.schema.json`` (:data:`SCHEMA`);
* table builders from the study's cubes (:func:`table1_frame`,
  :func:`table2_frame`, :func:`traces_frame`, :func:`gains_frame`,
  :func:`long_util_frame`, :func:`orders_frame`);
* one criterion function per claim of the paper our runs can test
  (:data:`CRITERIA`, applied by :func:`claims`), each returning a
  :class:`simlib.claims.Claim` whose verdict follows the stated rule
  mechanically.

Confidence intervals
--------------------
Mean over seeds ± half-width of the two-sided 95 % Student-t interval
(:func:`mean_ci`). EASY does not depend on the OV seed: on real traces it is
simulated once and that value stands for every seed (half-width 0).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.claims import Claim, Verdict, apply_criteria, read_published, verdict_counts, verdict_from_hits
from simlib.claims import write_claims as write_claims_file
from simlib.errors import ConfigError
from simlib.metrics import percent_improvement
from simlib.stats import mean_ci  # noqa: F401  (re-exported)

from . import EASY, MALLEABLE

__all__ = [
    "mean_ci", "SCHEMA", "load_published", "check_published", "TABLE1_METRICS", "table1_frame",
    "table2_frame", "traces_frame", "gains_frame", "long_util_frame", "orders_frame", "CRITERIA", "claims",
    "fig2_numbers", "table1_gains", "table2_workloads", "fig3_response", "fig3_execution",
    "fig3_slowdown", "table3_mpl", "fragmentation_eliminated", "headline_gains",
    "long_util_threshold", "oldest_first", "write_claims", "POLICY_FREE", "MAIN_READING_ONLY",
    "MAIN_ONLY", "reading_verdicts",
]

#: Paper id of the claims.
PAPER = "utrera"

# --------------------------------------------------------------------------
# published numbers
# --------------------------------------------------------------------------
#: JSON schema of ``config/published/utrera.yaml``.
SCHEMA = Path(__file__).resolve().with_name("published.schema.json")


def load_published(path) -> dict:
    """Read ``config/published/utrera.yaml``, checked by :data:`SCHEMA` and :func:`check_published`.

    See :func:`simlib.claims.read_published` (errors name the file and the key).

    Examples
    --------
    >>> pub = load_published("config/published/utrera.yaml")   # doctest: +SKIP
    >>> pub["table3"]["values"]["SDSC-SP2"]["fcfs_malleable"]   # doctest: +SKIP
    1.47
    """
    return read_published(path, SCHEMA, check_published)


def check_published(data: Mapping, path) -> None:
    """What the schema cannot express: Table 3 and the fragmentation name Table 2's traces.

    Raises
    ------
    ConfigError
        ``<path>: <key>: ...`` naming a trace that Table 2 does not list.

    Examples
    --------
    >>> check_published({"table2": {"values": {"A": {}}}, "table3": {"values": {"B": {}}},
    ...                  "fragmentation": {"values": {}}}, "u.yaml")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: u.yaml: table3.values.B: not a trace of table2.values (A)
    """
    traces = data["table2"]["values"]
    named = [(f"table3.values.{t}", t) for t in data["table3"]["values"]]
    named += [(f"fragmentation.values.{pol}.{t}", t)
              for pol, per in data["fragmentation"]["values"].items() for t in per]
    for key, t in named:
        if t not in traces:
            raise ConfigError(f"{path}: {key}: not a trace of table2.values "
                              f"({', '.join(traces)})")


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


#: Table 1's metrics: the paper's three, then the bounded slowdown (not in the paper).
TABLE1_METRICS = ("mean_wait", "mean_response", "utrera_slowdown", "mean_bounded_slowdown")


def table1_frame(cube, published: Mapping | None = None, level: float = 0.95) -> pd.DataFrame:
    """Table 1 long format: one row per (fit, load, policy, metric).

    Columns ``[fit,] load, policy, metric, mean, ci95, n`` (ours, over
    seeds; ``fit`` when the cube has that dimension) and, with
    ``published``, ``paper_S``, ``paper_R`` and ``rel_diff_S`` (ours / S -
    1; NaN for the bounded slowdown, which the paper does not give).

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> c = build_cube([{"policy": p, "load": 0.3, "seed": s, "mean_wait": 1.0 + s}
    ...                 for p in ("easy", "fcfs_malleable") for s in (0, 1)],
    ...                ["policy", "load", "seed"], ["mean_wait"])
    >>> table1_frame(c)[["policy", "mean"]].values.tolist()
    [['easy', 1.5], ['fcfs_malleable', 1.5]]
    """
    metrics = [m for m in TABLE1_METRICS if m in cube]
    keys = (["fit"] if "fit" in cube.dims else []) + ["load", "policy"]
    df = _long(cube, metrics, keys, level)
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
    # Fits in the cube's order.
    fits = {f: i for i, f in enumerate(dict.fromkeys(df["fit"]))} if "fit" in df else {}
    return df.sort_values((["fit"] if fits else []) + ["metric", "load", "policy"],
                          key=lambda s: s.map(order) if s.name == "metric" else
                          s.map(fits) if s.name == "fit" else s,
                          kind="mergesort").reset_index(drop=True)


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
    sub = cube.sel(policy=[p for p in orders.values()])
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


# --------------------------------------------------------------------------
# claims: one criterion function per claim of the paper
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


def _graded(full: bool, partly: bool, total: int) -> Verdict:
    """Reproduced when ``full``, partly when ``partly``, else not reproduced.

    A claim with no case tested (``total`` 0) is not reproduced, whatever
    the flags say.
    """
    if not total:
        return Verdict.NOT_REPRODUCED
    return Verdict.REPRODUCED if full else Verdict.PARTLY if partly else Verdict.NOT_REPRODUCED


def _claim(claim, source, published, ours, verdict, criterion, figure) -> Claim:
    return Claim(paper=PAPER, claim=claim, source=source, published=published, ours=ours,
                 criterion=criterion, verdict=verdict, figure=figure)


def _trace_value(traces: pd.DataFrame, trace: str, policy: str, metric: str):
    """Mean and CI half-width (0 when undefined) of one trace, policy and metric."""
    r = _pick(traces, trace=trace, policy=policy, metric=metric)
    return float(r["mean"]), float(r["ci95"]) if np.isfinite(r["ci95"]) else 0.0


def fig2_numbers(published: Mapping, fig2: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 2's nine numbers, from ``fig2`` (columns ``policy, metric, ours``).

    FCFS-malleable's numbers are those of the rows labelled ``malleable``
    (another reading of the time model: its label).

    Examples
    --------
    >>> pub = {"fig2": {"source": "Fig. 2", "values": {"easy": {"mean_response": 4.33}}}}
    >>> ours = pd.DataFrame({"policy": ["easy"], "metric": ["mean_response"], "ours": [13 / 3]})
    >>> fig2_numbers(pub, ours).verdict.value
    'reproduced'
    """
    hits, total, parts = 0, 0, []
    for pol, mets in published["fig2"]["values"].items():
        for m, p in mets.items():
            o = float(_pick(fig2, policy=malleable if pol == MALLEABLE else pol,
                            metric=m)["ours"])
            ok = abs(o - p) < 1e-9 if m == "utrera_fragmentation" else _trunc2(o) == p
            hits += ok
            total += 1
            parts.append(f"{pol} {m} {o:.4g}")
    return _claim(
        "Fig. 2: average response 4.66/4.33/3.66, slowdown 3.5/3.16/2.5, fragmentation "
        "30/30/0 % for FCFS/EASY/FCFS-malleable", published["fig2"]["source"],
        "9 numbers", f"{hits}/{total} equal; " + ", ".join(parts), verdict_from_hits(hits, total),
        "each simulated number truncated to 2 decimals equals the printed one "
        "(fragmentation: exactly)", "fig2_numbers.md")


def table1_gains(published: Mapping, table1: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Table 1: the gains of FCFS-malleable over EASY, ours vs the paper's S columns.

    ``table1`` is :func:`table1_frame` with published numbers (``paper_S``);
    only the main fit's rows count (column ``main``, when present) and only
    the paper's metrics.
    """
    if "main" in table1:
        table1 = table1[table1["main"].astype(bool)]
    table1 = table1[table1["metric"].isin(TABLE1_METRICS[:3])]
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
    return _claim(
        "Table 1 (simulator): FCFS-malleable has lower average wait, response and slowdown "
        "than EASY at 30-90 % load (gain of FCFS-malleable over EASY, ours vs paper's S)",
        published["table1"]["source"], "gains of S columns",
        f"sign agrees in {hits}/{total}; mean |gain difference| {md:.0f} points; "
        + "; ".join(parts), _graded(hits == total and md <= 10, hits >= 2 * total / 3, total),
        "reproduced: every sign agrees and mean |difference| <= 10 points; partly: >= 2/3 "
        "of the signs agree (absolute seconds are not compared: the workloads are not the paper's)",
        "table1.md")


def table2_workloads(published: Mapping, table2: pd.DataFrame) -> Claim:
    """Table 2's utilizations and Req.Cpus/Cpus; ``table2`` indexed by trace (:func:`table2_frame`)."""
    hits, total, parts = 0, 0, []
    for trace, vals in published["table2"]["values"].items():
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
    return _claim(
        "Table 2: average CPU utilization, long jobs' CPU utilization and Req.Cpus/Cpus "
        "of the three traces", published["table2"]["source"], "9 numbers",
        f"{hits}/{total} within tolerance; " + "; ".join(parts),
        _graded(hits == total, hits >= total / 2, total),
        "within 15 % (utilizations) or 25 % (Req.Cpus/Cpus, our reading: demand from the "
        "log's own schedule) of the printed value; partly: at least half", "table2.md")


def fig3_response(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(c): FCFS-malleable's response time better than EASY's on every trace.

    ``traces`` is :func:`traces_frame` of the traces cube.
    """
    better = []
    for t in sorted(set(traces["trace"])):
        e, _ = _trace_value(traces, t, EASY, "mean_response")
        f, fh = _trace_value(traces, t, malleable, "mean_response")
        better.append((t, f + fh < e, f, e))
    hits = sum(b for _, b, _, _ in better)
    return _claim(
        "Fig. 3(c): FCFS-malleable has a better average response time than EASY on all "
        "traces, especially SDSC-Blue", published["fig3"]["source"], "all 3 traces",
        "; ".join(f"{t}: {f:.0f} s vs {e:.0f} s" for t, _, f, e in better),
        verdict_from_hits(hits, len(better)),
        "FCFS-malleable's mean + CI half-width below EASY's, per trace", "fig3.png")


def fig3_execution(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(b): execution times larger under FCFS-malleable, but less than twice EASY's."""
    parts, hits, tr = [], 0, sorted(set(traces["trace"]))
    for t in tr:
        e, _ = _trace_value(traces, t, EASY, "mean_execution")
        f, _ = _trace_value(traces, t, malleable, "mean_execution")
        hits += e < f < 2 * e
        parts.append(f"{t}: x{f / e:.2f}")
    return _claim(
        "Fig. 3(b): execution times are larger under FCFS-malleable but not twice EASY's",
        published["fig3"]["source"], "1 < ratio < 2 on all traces", "; ".join(parts),
        verdict_from_hits(hits, len(tr)), "1 < mean execution FCFS-malleable / EASY < 2, per trace",
        "fig3.png")


#: Fig. 3(d): on which traces the paper says FCFS-malleable's slowdown is better.
FIG3_SLOWDOWN_BETTER = {"CTC-SP2": True, "SDSC-BLUE": True, "SDSC-SP2": False}


def fig3_slowdown(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(d): slowdown better on CTC and SDSC-Blue, not on SDSC (:data:`FIG3_SLOWDOWN_BETTER`).

    The claim is the "better" traces: being worse on SDSC holds for any
    policy that is worse everywhere, so it only completes a full match.
    """
    parts, better, hits, total, rest_ok = [], 0, 0, 0, True
    for t in sorted(set(traces["trace"])):
        if t not in FIG3_SLOWDOWN_BETTER:
            continue
        e, _ = _trace_value(traces, t, EASY, "utrera_slowdown")
        f, fh = _trace_value(traces, t, malleable, "utrera_slowdown")
        won = f + fh < e
        if FIG3_SLOWDOWN_BETTER[t]:
            total += 1
            hits += won
        else:
            rest_ok &= not won
        better += won
        parts.append(f"{t}: {f:.1f} vs {e:.1f} ({'better' if won else 'not better'}"
                     + (f", x{f / e:.1f}" if e > 0 and not won else "") + ")")
    verdict = _graded(hits == total and rest_ok, hits > 0, total)
    return _claim(
        "Fig. 3(d): FCFS-malleable's average slowdown is better on CTC and SDSC-Blue, not on "
        "SDSC", published["fig3"]["source"], "better, better, not better", "; ".join(parts),
        verdict, "per trace, 'better' = mean + CI half-width below EASY's; reproduced: better "
        "on CTC and SDSC-Blue and not on SDSC; partly: better on one of CTC, SDSC-Blue; not "
        "reproduced: better on neither (SDSC's 'not better' alone is no evidence)", "fig3.png")


#: Sect. 5.1's classes: metric -> (label, EASY better there according to the paper).
JOB_CLASSES = {"slowdown_short_narrow": ("short narrow", True),
               "slowdown_short_wide": ("short wide", False),
               "slowdown_long_narrow": ("long narrow", False),
               "slowdown_long_wide": ("long wide", False)}


def easy_better_only_short_narrow(published: Mapping, traces: pd.DataFrame,
                                  malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: on SDSC, EASY beats FCFS-malleable only for jobs < 3 min and < 16 processes.

    Per class (runtime below / above the bound x processes below / above):
    'EASY better' = FCFS-malleable's mean slowdown minus its CI half-width
    above EASY's. A case holds when that matches the paper (better for the
    short narrow jobs, not better for the three others); all four:
    reproduced, some: partly, none: not reproduced (also when the trace or
    the per-class slowdowns are missing: no case tested).
    """
    from .metrics import NARROW_PROCS, SHORT_RUNTIME
    jc = published.get("job_classes")
    if not jc:
        return _claim("Sect. 5.1: EASY beats FCFS-malleable only for short narrow jobs",
                      "Sect. 5.1", "", "not in the published file", Verdict.NOT_TESTABLE,
                      "needs job_classes in the published file", "slowdown_by_class.md")
    if (float(jc["runtime_s"]), int(jc["procs"])) != (SHORT_RUNTIME, NARROW_PROCS):
        raise ValueError(f"job_classes: the runs' classes are {SHORT_RUNTIME:g} s and "
                         f"{NARROW_PROCS} processes (simlib.studies.utrera.metrics), the "
                         f"published file says {jc['runtime_s']} s and {jc['procs']}")
    t = jc["trace"]
    hits, total, parts = 0, 0, []
    for metric, (label, easy_better) in JOB_CLASSES.items():
        try:
            e, _ = _trace_value(traces, t, EASY, metric)
            f, fh = _trace_value(traces, t, malleable, metric)
        except KeyError:
            continue
        if not (np.isfinite(e) and np.isfinite(f)):
            parts.append(f"{label}: no jobs")
            continue
        won = f - fh > e
        total += 1
        hits += won == easy_better
        parts.append(f"{label}: EASY {e:.1f} vs {f:.1f} ({'EASY better' if won else 'not'})")
    return _claim(
        f"Sect. 5.1: on {t}, EASY beats FCFS-malleable only for jobs under "
        f"{jc['runtime_s'] / 60:g} min and under {jc['procs']} processes", jc["source"],
        "EASY better for short narrow jobs only", "; ".join(parts),
        verdict_from_hits(hits, total),
        "per class of expanded runtime x processes: 'EASY better' = FCFS-malleable's mean "
        "slowdown minus its CI half-width above EASY's; a hit when it matches the paper (short "
        "narrow: better; the others: not); all: reproduced, some: partly, none: not reproduced",
        "slowdown_by_class.md")


def table3_mpl(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Table 3: average MPL per trace and policy, within 0.1 of the printed value."""
    tr = set(traces["trace"])
    parts, hits, total = [], 0, 0
    for t, vals in published["table3"]["values"].items():
        if t not in tr:
            continue
        for pol in (EASY, MALLEABLE):
            o = _trace_value(traces, t, pol if pol == EASY else malleable, "utrera_mean_mpl")[0]
            hits += abs(o - vals[pol]) <= 0.1
            total += 1
            parts.append(f"{t} {pol} {o:.2f} vs {vals[pol]:g}")
    return _claim(
        "Table 3: average MPL (EASY 0.75/0.76/0.89, FCFS-malleable 0.91/0.98/1.47)",
        published["table3"]["source"], "6 numbers", "; ".join(parts),
        verdict_from_hits(hits, total), "within +-0.10 of the printed value", "table3.md")


def fragmentation_eliminated(published: Mapping, traces: pd.DataFrame,
                             malleable: str = MALLEABLE) -> Claim:
    """Fragmentation: FCFS-malleable eliminates it (printed 0: at most 1 %); EASY's as printed.

    The claim is the elimination: reproduced when FCFS-malleable is at most
    1 % on every trace and EASY within 3 points of the printed values;
    partly when it is at most 1 % on some trace; else not reproduced.
    """
    tr = set(traces["trace"])
    parts, elim, mall, easy_ok = [], 0, 0, True
    for pol, per in published["fragmentation"]["values"].items():
        for t, p in per.items():
            if t not in tr:
                continue
            o = _trace_value(traces, t, pol if pol == EASY else malleable,
                             "utrera_fragmentation")[0]
            if pol == EASY:
                easy_ok &= abs(o - p) <= 0.03
            else:
                mall += 1
                elim += o <= 0.01
            parts.append(f"{t} {pol} {100 * o:.1f} % vs {100 * p:g} %")
    return _claim(
        "Fragmentation: EASY from 6 % (CTC) to 14 % (SDSC), FCFS-malleable eliminates it",
        published["fragmentation"]["source"], "EASY 6-14 %, FCFS-malleable 0",
        "; ".join(parts), _graded(elim == mall and easy_ok, elim > 0, mall),
        "eliminated = FCFS-malleable <= 1 % on a trace; reproduced: on every trace, with EASY "
        "within +-3 points of the printed value; partly: on some trace; not reproduced: on none",
        "fragmentation.md")


def headline_gains(published: Mapping, gains: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """The headline 28 % / 31 %: gains averaged over the traces (:func:`gains_frame`).

    Examples
    --------
    >>> pub = {"headline": {"source": "s", "values": {"utrera_slowdown": 0.28,
    ...        "mean_response": 0.31}}}
    >>> g = pd.DataFrame({"trace": ["mean of traces"] * 2, "metric": ["utrera_slowdown",
    ...                   "mean_response"], "mean": [30.0, 29.0], "ci95": [1.0, 1.0], "n": [5, 5]})
    >>> headline_gains(pub, g).verdict.value
    'reproduced'
    """
    if "policy" in gains.columns:  # gains of several readings: keep this one's
        gains = gains[gains["policy"] == malleable]
    pub = published["headline"]["values"]
    metrics = ("utrera_slowdown", "mean_response")
    parts, hits = [], 0
    for m in metrics:
        r = _pick(gains, trace="mean of traces", metric=m)
        p = 100 * pub[m]
        hits += abs(r["mean"] - p) <= 5
        parts.append(f"{m}: {r['mean']:+.0f} % (+-{r['ci95']:.0f}) vs +{p:.0f} %")
    same_sign = all(_pick(gains, trace="mean of traces", metric=m)["mean"] > 0 for m in metrics)
    return _claim(
        "Headline: FCFS-malleable beats EASY by 28 % in average slowdown and 31 % in average "
        "response time", published["headline"]["source"], "+28 %, +31 %", "; ".join(parts),
        _graded(hits == len(metrics), same_sign, len(metrics)),
        "gain averaged over the three traces within +-5 points of the printed one; partly: "
        "both gains positive", "headline_gains.md")


def long_util_threshold(published: Mapping, long_util: pd.DataFrame,
                        malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: FCFS-malleable's slowdown below EASY's exactly below the threshold.

    The numbers come from :func:`long_util_frame`, with the portion's
    columns (``long_util.csv``: ``trace``, ``first_job``, ``last_job``,
    ``long_jobs``, ``min_long_jobs``, ...). A portion holding fewer long
    jobs than ``min_long_jobs`` cannot decide the claim (the long jobs'
    utilization barely moves the averages): the verdict is then "not
    testable here", whatever the numbers.

    Examples
    --------
    >>> pub = {"long_util": {"threshold": 0.9, "source": "Sect. 5.1"}}
    >>> lu = pd.DataFrame({"long_util": [0.6, 0.6, 1.0, 1.0], "policy": ["easy",
    ...                    "fcfs_malleable"] * 2, "metric": "utrera_slowdown",
    ...                    "mean": [5.0, 4.0, 5.0, 6.0], "trace": "SDSC-SP2", "first_job": 0,
    ...                    "last_job": 999, "long_jobs": 25, "min_long_jobs": 20})
    >>> long_util_threshold(pub, lu).verdict.value
    'reproduced'
    >>> long_util_threshold(pub, lu.assign(long_jobs=5)).verdict.value
    'not testable here'
    """
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
    verdict = _graded(full, below_ok > 0, n_below)
    where, rule = "", ""
    if "long_jobs" in long_util.columns:
        r = long_util.iloc[0]
        n_long, least = int(r["long_jobs"]), int(r.get("min_long_jobs", 0))
        where = (f"portion: {r['trace']} jobs {int(r['first_job'])}-{int(r['last_job'])}, "
                 f"{n_long} long jobs (minimum {least}); ")
        rule = (f"; not testable here when the portion holds fewer than {least} long jobs "
                "(long_util.min_long_jobs)")
        if n_long < least:
            verdict = Verdict.NOT_TESTABLE
    return _claim(
        "Sect. 5.1: on SDSC, FCFS-malleable's average slowdown is below EASY's when long "
        "jobs' CPU utilization is under 90 %", published["long_util"]["source"],
        "wins below 90 %, not at or above", where + "FCFS-malleable vs EASY slowdown: "
        + "; ".join(parts), verdict,
        "reproduced: FCFS-malleable wins at every point below the threshold and at none at "
        "or above; partly: it wins at some point below; not reproduced: at none below" + rule,
        "long_util.png")


def oldest_first(published: Mapping, orders: pd.DataFrame, alpha: float = 0.05) -> Claim:
    """Sect. 3.1: oldest first is the best candidate order (:func:`orders_frame`).

    Paired by seed (the orders share their OV draws): reproduced when oldest
    has the smallest mean on every trace and metric; partly when it is never
    significantly worse than the best (paired t-test, p >= ``alpha``); not
    reproduced when it is significantly worse somewhere.
    """
    first, close, total, parts = 0, 0, 0, []
    for (trace, metric), grp in orders.groupby(["trace", "metric"]):
        old = _pick(grp, order="oldest")
        best = grp["mean"].min()
        p = float(old["p_vs_best"]) if "p_vs_best" in grp else float("nan")
        ci = float(old["ci95"]) if np.isfinite(old["ci95"]) else 0.0
        total += 1
        first += int(old["rank"] == 1)
        # Without a paired test (one seed): its CI must reach the best mean.
        close += bool(old["rank"] == 1 or (p >= alpha if np.isfinite(p) else old["mean"] - ci <= best))
        parts.append(f"{trace} {metric}: rank {int(old['rank'])}, "
                     f"{100 * (old['mean'] / best - 1):+.1f} % vs best"
                     + ("" if np.isnan(p) else f" (paired p = {p:.2g})"))
    return _claim(
        "Sect. 3.1: shrinking/expanding the oldest job first is the best of the four "
        "candidate orders", published["orders"]["source"], "oldest best",
        f"oldest first in {first}/{total}, not significantly worse than the best in "
        f"{close}/{total}; " + "; ".join(parts), _graded(first == total, close == total, total),
        "paired by seed (shared OV draws); reproduced: oldest has the smallest mean on every "
        f"trace and metric (slowdown, response); partly: never significantly worse than the "
        f"best (paired t-test p >= {alpha:g}); not reproduced: significantly worse somewhere",
        "orders_ablation.png")


#: Every claim of paper U our runs test, one criterion function each, in README order.
CRITERIA = (fig2_numbers, table1_gains, table2_workloads, fig3_response, fig3_execution,
            fig3_slowdown, table3_mpl, fragmentation_eliminated, headline_gains,
            long_util_threshold, easy_better_only_short_narrow, oldest_first)


#: Claims whose verdict involves no policy (their figure -> why): the same under every
#: reading of the time model.
POLICY_FREE = {"table2.md": "no policy involved (the trace portions' own characteristics): "
                            "the same verdict under every reading"}
#: Claims judged under the main reading only (their figure -> why).
MAIN_READING_ONLY = {
    "orders_ablation.png": "main reading only: the ablation under every reading needs the 3 "
                           "other orders x 14 readings x 3 traces x the OV seeds (1,260 more "
                           "runs of 5,000 jobs and 126 more jobs at default scale, 3 times the "
                           "traces' reading runs; measured about 8 s per order and reading "
                           "over the three traces, 6 min in all)"}
#: The cell of a claim judged under the main reading only.
MAIN_ONLY = "main reading only"


def reading_verdicts(main: pd.DataFrame, published: Mapping, readings: Mapping[str, str],
                     **tables) -> pd.DataFrame:
    """The reading x claim matrix as data: the verdict of every claim under every reading.

    Parameters
    ----------
    main : DataFrame
        The main reading's claims (a claims file: columns ``claim``,
        ``figure``, ``verdict``), in order.
    published : mapping
        :func:`load_published`.
    readings : mapping
        Reading name -> its policy label in the tables.
    **tables
        The tables of the criteria (as :func:`claims`) holding every
        reading's rows: ``fig2``, ``table1``, ``traces``, ``gains``,
        ``long_util``. A table without a reading's label is not given for
        that reading (its claims: "not run").

    Returns
    -------
    DataFrame
        One row per (reading, claim): ``reading, claim, figure, verdict,
        how`` with ``how`` "simulated" (judged on that reading's runs by the
        same rule), "policy-free" (:data:`POLICY_FREE`: the main verdict),
        "main reading only" (:data:`MAIN_READING_ONLY`: verdict
        :data:`MAIN_ONLY`) or "not run".

    Examples
    --------
    >>> main = pd.DataFrame({"claim": ["Table 2: x", "Sect. 3.1: y", "Fig. 2: z"],
    ...                      "figure": ["table2.md", "orders_ablation.png", "fig2_numbers.md"],
    ...                      "verdict": ["partly reproduced", "not reproduced", "reproduced"]})
    >>> reading_verdicts(main, {}, {"r": "fcfs_malleable:r"})[["verdict", "how"]].values.tolist()
    [['partly reproduced', 'policy-free'], ['main reading only', 'main reading only'], ['not run', 'not run']]
    """
    def has(table, label):
        return (table is not None and "policy" in table.columns
                and bool((table["policy"] == label).any()))

    rows = []
    for name, label in readings.items():
        given = {k: (v if has(v, label) else None) for k, v in tables.items()}
        found = {c.claim: c.verdict.value for c in
                 claims(published=published, malleable=label, **given)} if any(
            v is not None for v in given.values()) else {}
        for c, fig, verdict in zip(main["claim"], main["figure"], main["verdict"]):
            if fig in POLICY_FREE:
                v, how = verdict, "policy-free"
            elif fig in MAIN_READING_ONLY:
                v, how = MAIN_ONLY, MAIN_ONLY
            elif c in found:
                v, how = found[c], "simulated"
            else:
                v, how = "not run", "not run"
            rows.append({"reading": name, "claim": c, "figure": fig, "verdict": v, "how": how})
    return pd.DataFrame(rows, columns=["reading", "claim", "figure", "verdict", "how"])


def claims(*, published: Mapping, malleable: str = MALLEABLE, **tables) -> list[Claim]:
    """The claims of paper U our runs can test (:data:`CRITERIA`), on the tables given.

    Keyword ``tables`` are the tables of this module, by the criteria's
    parameter names (``fig2``, ``table1``, ``table2``, ``traces``,
    ``gains``, ``long_util``, ``orders``); a table not given (or None)
    skips the claims it holds. ``malleable`` is the policy label of
    FCFS-malleable in them (another reading of the time model: its label).
    The rules are mechanical on purpose, so a verdict cannot drift from the
    numbers; the README adds the why.

    Examples
    --------
    >>> pub = {"orders": {"source": "Sect. 3.1"}}
    >>> o = pd.DataFrame({"trace": "T", "order": ["oldest", "longest"], "metric": "m",
    ...                   "mean": [2.0, 1.0], "ci95": [0.5, 0.5], "n": 5, "rank": [2, 1],
    ...                   "diff_vs_best": [1.0, 0.0], "p_vs_best": [0.001, float("nan")]})
    >>> [(c.figure, c.verdict.value) for c in claims(published=pub, orders=o)]
    [('orders_ablation.png', 'not reproduced')]
    """
    return apply_criteria(CRITERIA, published=published, malleable=malleable, **tables)


def write_claims(ctx) -> None:
    """Step ``utrera_claims``: ``paper_figures/utrera/claims.csv`` from the figure steps' tables.

    Inputs: the CSV tables ``fig2``, ``table1``, ``table2``, ``traces``
    (Fig. 3's), ``gains``, ``long_util``, ``orders`` and ``published``;
    parameter ``scale``; output ``csv`` (:func:`simlib.claims.write_claims`).
    """
    inp = ctx.input
    tables = {k: pd.read_csv(inp[k]) for k in ("fig2", "table1", "traces", "gains",
                                               "long_util", "orders")}
    tables["table2"] = pd.read_csv(inp.table2, index_col="trace")
    found = claims(published=load_published(inp.published), **tables)
    write_claims_file(found, ctx.output.csv, scale=ctx.params["scale"])
    ctx.log.info("verdicts: %s", verdict_counts(found))
