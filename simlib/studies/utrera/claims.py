"""Paper U's claims: one criterion function per claim our runs can test.

Each criterion (:data:`CRITERIA`, applied by :func:`claims`) reads the
tables of :mod:`simlib.studies.utrera.tables` and returns a
:class:`simlib.claims.Claim` whose verdict follows the stated rule
mechanically, so a verdict cannot drift from the numbers; the README adds
the why. The claims' words are ``templates/claims.yaml`` (:func:`texts`),
under the criterion's name. :func:`reading_verdicts` judges every claim
again under every other reading of the time model (the README's reading x
claim matrix); :func:`write_claims` is step ``utrera_claims``.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from simlib.claims import Claim, Verdict, apply_criteria, verdict_counts, verdict_from_hits
from simlib.claims import write_claims as write_claims_file
from simlib.render import template_data

from . import EASY, MALLEABLE
from .published import load_published
from .tables import TABLE1_METRICS, pick, trunc2

# The criteria (module functions) are listed in CRITERIA.
__all__ = ["texts", "CRITERIA", "claims", "JOB_CLASSES", "POLICY_FREE", "MAIN_READING_ONLY",
           "MAIN_ONLY", "reading_verdicts", "write_claims"]

#: Paper id of the claims.
PAPER = "utrera"


def texts() -> dict:
    """The claims' words, by criterion name (``templates/claims.yaml``: a step reading them
    declares it in ``Step.templates``)."""
    return template_data(__package__, "claims.yaml")


def _graded(full: bool, partly: bool, total: int) -> Verdict:
    """Reproduced when ``full``, partly when ``partly``, else not reproduced; not reproduced
    either with no case tested (``total`` 0), whatever the flags say."""
    if not total:
        return Verdict.NOT_REPRODUCED
    return Verdict.REPRODUCED if full else Verdict.PARTLY if partly else Verdict.NOT_REPRODUCED


def _claim(key: str, source: str, ours: str, verdict: Verdict, **words) -> Claim:
    """The claim of criterion ``key``: its words (:func:`texts`, filled with ``words``)."""
    t = texts()[key]
    return Claim(paper=PAPER, claim=t["claim"].format(**words), source=source,
                 published=t["published"], ours=ours,
                 criterion=t["criterion"].format(**words), verdict=verdict, figure=t["figure"])


def _trace_value(traces: pd.DataFrame, trace: str, policy: str, metric: str):
    """Mean and CI half-width (0 when undefined) of one trace, policy and metric."""
    r = pick(traces, trace=trace, policy=policy, metric=metric)
    return float(r["mean"]), float(r["ci95"]) if np.isfinite(r["ci95"]) else 0.0


def _pairs(traces: pd.DataFrame, metric: str, malleable: str):
    """Per trace (sorted): EASY's mean, FCFS-malleable's (label ``malleable``) mean and
    CI half-width."""
    for t in sorted(set(traces["trace"])):
        yield t, _trace_value(traces, t, EASY, metric)[0], *_trace_value(traces, t, malleable, metric)


def fig2_numbers(published: Mapping, fig2: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 2's nine numbers, from ``fig2`` (columns ``policy, metric, ours``; FCFS-malleable's
    rows labelled ``malleable``: another reading of the time model has its label)."""
    hits, total, parts = 0, 0, []
    for pol, mets in published["fig2"]["values"].items():
        for m, p in mets.items():
            o = float(pick(fig2, policy=malleable if pol == MALLEABLE else pol,
                            metric=m)["ours"])
            ok = abs(o - p) < 1e-9 if m == "utrera_fragmentation" else trunc2(o) == p
            hits += ok
            total += 1
            parts.append(f"{pol} {m} {o:.4g}")
    return _claim("fig2_numbers", published["fig2"]["source"],
                  f"{hits}/{total} equal; " + ", ".join(parts), verdict_from_hits(hits, total))


def table1_gains(published: Mapping, table1: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Table 1: the gains of FCFS-malleable over EASY, ours vs the paper's S columns.

    ``table1`` is :func:`.tables.table1_frame` with published numbers
    (``paper_S``); only the main fit's rows count (column ``main``, when
    present) and only the paper's metrics.
    """
    if "main" in table1:
        table1 = table1[table1["main"].astype(bool)]
    table1 = table1[table1["metric"].isin(TABLE1_METRICS[:3])]
    hits, total, diffs, parts = 0, 0, [], []
    for (load, metric), grp in table1.groupby(["load", "metric"]):
        e = pick(grp, policy=EASY)
        f = pick(grp, policy=malleable)
        g_ours = 100 * (e["mean"] - f["mean"]) / e["mean"]
        g_pub = 100 * (e["paper_S"] - f["paper_S"]) / e["paper_S"]
        hits += bool(np.sign(g_ours) == np.sign(g_pub))
        total += 1
        diffs.append(abs(g_ours - g_pub))
        parts.append(f"{metric}@{load:g}: {g_ours:+.0f}% vs {g_pub:+.0f}%")
    md = float(np.mean(diffs)) if diffs else float("nan")
    return _claim("table1_gains", published["table1"]["source"],
                  f"sign agrees in {hits}/{total}; mean |gain difference| {md:.0f} points; "
                  + "; ".join(parts),
                  _graded(hits == total and md <= 10, hits >= 2 * total / 3, total))


def table2_workloads(published: Mapping, table2: pd.DataFrame) -> Claim:
    """Table 2's utilizations and Req.Cpus/Cpus; ``table2`` indexed by trace
    (:func:`.tables.table2_frame`)."""
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
    return _claim("table2_workloads", published["table2"]["source"],
                  f"{hits}/{total} within tolerance; " + "; ".join(parts),
                  _graded(hits == total, hits >= total / 2, total))


def fig3_response(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(c): FCFS-malleable's response time better than EASY's on every trace
    (``traces``: :func:`.tables.long_frame`)."""
    pairs = list(_pairs(traces, "mean_response", malleable))
    return _claim("fig3_response", published["fig3"]["source"],
                  "; ".join(f"{t}: {f:.0f} s vs {e:.0f} s" for t, e, f, _ in pairs),
                  verdict_from_hits(sum(f + fh < e for _, e, f, fh in pairs), len(pairs)))


def fig3_execution(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(b): execution times larger under FCFS-malleable, but less than twice EASY's."""
    pairs = list(_pairs(traces, "mean_execution", malleable))
    return _claim("fig3_execution", published["fig3"]["source"],
                  "; ".join(f"{t}: x{f / e:.2f}" for t, e, f, _ in pairs),
                  verdict_from_hits(sum(e < f < 2 * e for _, e, f, _ in pairs), len(pairs)))


#: Fig. 3(d): on which traces the paper says FCFS-malleable's slowdown is better.
FIG3_SLOWDOWN_BETTER = {"CTC-SP2": True, "SDSC-BLUE": True, "SDSC-SP2": False}


def fig3_slowdown(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(d): slowdown better on CTC and SDSC-Blue, not on SDSC (:data:`FIG3_SLOWDOWN_BETTER`).

    The claim is the "better" traces: being worse on SDSC holds for any
    policy that is worse everywhere, so it only completes a full match.
    """
    parts, hits, total, rest_ok = [], 0, 0, True
    for t, e, f, fh in _pairs(traces[traces["trace"].isin(list(FIG3_SLOWDOWN_BETTER))],
                              "utrera_slowdown", malleable):
        won = f + fh < e
        if FIG3_SLOWDOWN_BETTER[t]:
            total += 1
            hits += won
        else:
            rest_ok &= not won
        parts.append(f"{t}: {f:.1f} vs {e:.1f} ({'better' if won else 'not better'}"
                     + (f", x{f / e:.1f}" if e > 0 and not won else "") + ")")
    return _claim("fig3_slowdown", published["fig3"]["source"], "; ".join(parts),
                  _graded(hits == total and rest_ok, hits > 0, total))


#: Sect. 5.1's classes: metric -> (label, EASY better there according to the paper).
JOB_CLASSES = {"slowdown_short_narrow": ("short narrow", True),
               "slowdown_short_wide": ("short wide", False),
               "slowdown_long_narrow": ("long narrow", False),
               "slowdown_long_wide": ("long wide", False)}


def easy_better_only_short_narrow(published: Mapping, traces: pd.DataFrame,
                                  malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: on SDSC, EASY beats FCFS-malleable only for jobs < 3 min and < 16 processes
    (per class of runtime x processes; no case tested without the trace or the per-class
    slowdowns: not reproduced)."""
    from .metrics import NARROW_PROCS, SHORT_RUNTIME
    jc = published.get("job_classes")
    if not jc:
        return Claim(paper=PAPER, published="", verdict=Verdict.NOT_TESTABLE,
                     figure="slowdown_by_class.md",
                     **texts()["easy_better_only_short_narrow"]["untestable"])
    if (float(jc["runtime_s"]), int(jc["procs"])) != (SHORT_RUNTIME, NARROW_PROCS):
        raise ValueError(f"job_classes: the runs' classes are {SHORT_RUNTIME:g} s and "
                         f"{NARROW_PROCS} processes (simlib.studies.utrera.metrics), the "
                         f"published file says {jc['runtime_s']} s and {jc['procs']}")
    hits, total, parts = 0, 0, []
    for metric, (label, easy_better) in JOB_CLASSES.items():
        try:
            e, _ = _trace_value(traces, jc["trace"], EASY, metric)
            f, fh = _trace_value(traces, jc["trace"], malleable, metric)
        except KeyError:
            continue
        if not (np.isfinite(e) and np.isfinite(f)):
            parts.append(f"{label}: no jobs")
            continue
        won = f - fh > e
        total += 1
        hits += won == easy_better
        parts.append(f"{label}: EASY {e:.1f} vs {f:.1f} ({'EASY better' if won else 'not'})")
    return _claim("easy_better_only_short_narrow", jc["source"], "; ".join(parts),
                  verdict_from_hits(hits, total), trace=jc["trace"],
                  minutes=jc["runtime_s"] / 60, procs=jc["procs"])


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
    return _claim("table3_mpl", published["table3"]["source"], "; ".join(parts),
                  verdict_from_hits(hits, total))


def fragmentation_eliminated(published: Mapping, traces: pd.DataFrame,
                             malleable: str = MALLEABLE) -> Claim:
    """Fragmentation: FCFS-malleable eliminates it (printed 0: at most 1 %); EASY's as printed."""
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
    return _claim("fragmentation_eliminated", published["fragmentation"]["source"],
                  "; ".join(parts), _graded(elim == mall and easy_ok, elim > 0, mall))


def headline_gains(published: Mapping, gains: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """The headline 28 % / 31 %: gains averaged over the traces (:func:`.tables.gains_frame`)."""
    if "policy" in gains.columns:  # gains of several readings: keep this one's
        gains = gains[gains["policy"] == malleable]
    pub = published["headline"]["values"]
    metrics = ("utrera_slowdown", "mean_response")
    parts, hits = [], 0
    for m in metrics:
        r = pick(gains, trace="mean of traces", metric=m)
        p = 100 * pub[m]
        hits += abs(r["mean"] - p) <= 5
        parts.append(f"{m}: {r['mean']:+.0f} % (+-{r['ci95']:.0f}) vs +{p:.0f} %")
    same_sign = all(pick(gains, trace="mean of traces", metric=m)["mean"] > 0 for m in metrics)
    return _claim("headline_gains", published["headline"]["source"], "; ".join(parts),
                  _graded(hits == len(metrics), same_sign, len(metrics)))


def long_util_threshold(published: Mapping, long_util: pd.DataFrame,
                        malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: FCFS-malleable's slowdown below EASY's exactly below the threshold.

    The numbers come from :func:`.tables.long_frame`, with the
    portion's columns (``long_util.csv``: ``trace``, ``first_job``,
    ``last_job``, ``long_jobs``, ``min_long_jobs``, ...). A portion holding
    fewer long jobs than ``min_long_jobs`` cannot decide the claim (the long
    jobs' utilization barely moves the averages): the verdict is then "not
    testable here", whatever the numbers.
    """
    thr = float(published["long_util"]["threshold"])
    sld = long_util[long_util["metric"] == "utrera_slowdown"]
    parts, below_ok, above_ok, n_below, n_above = [], 0, 0, 0, 0
    for u, grp in sld.groupby("long_util"):
        e = float(pick(grp, policy=EASY)["mean"])
        f = float(pick(grp, policy=malleable)["mean"])
        parts.append(f"{u:.0%}: {f:.1f} vs {e:.1f}")
        if u < thr - 1e-9:
            n_below += 1
            below_ok += f < e
        else:
            n_above += 1
            above_ok += f >= e
    verdict = _graded(below_ok == n_below and above_ok == n_above, below_ok > 0, n_below)
    where, rule = "", ""
    if "long_jobs" in long_util.columns:
        r = long_util.iloc[0]
        n_long, least = int(r["long_jobs"]), int(r.get("min_long_jobs", 0))
        where = (f"portion: {r['trace']} jobs {int(r['first_job'])}-{int(r['last_job'])}, "
                 f"{n_long} long jobs (minimum {least}); ")
        rule = texts()["long_util_threshold"]["rule"].format(least=least)
        if n_long < least:
            verdict = Verdict.NOT_TESTABLE
    return _claim("long_util_threshold", published["long_util"]["source"],
                  where + "FCFS-malleable vs EASY slowdown: " + "; ".join(parts), verdict,
                  rule=rule)


def oldest_first(published: Mapping, orders: pd.DataFrame, alpha: float = 0.05) -> Claim:
    """Sect. 3.1: oldest first is the best candidate order (:func:`.tables.orders_frame`),
    paired by seed: the orders share their OV draws."""
    first, close, total, parts = 0, 0, 0, []
    for (trace, metric), grp in orders.groupby(["trace", "metric"]):
        old = pick(grp, order="oldest")
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
    return _claim("oldest_first", published["orders"]["source"],
                  f"oldest first in {first}/{total}, not significantly worse than the best in "
                  f"{close}/{total}; " + "; ".join(parts),
                  _graded(first == total, close == total, total), alpha=alpha)


#: Every claim of paper U our runs test, one criterion function each, in README order.
CRITERIA = (fig2_numbers, table1_gains, table2_workloads, fig3_response, fig3_execution,
            fig3_slowdown, table3_mpl, fragmentation_eliminated, headline_gains,
            long_util_threshold, easy_better_only_short_narrow, oldest_first)

#: Claims (their figure) whose verdict involves no policy: the same under every reading.
POLICY_FREE = ("table2.md",)
#: Claims (their figure) judged under the main reading only (the candidate orders).
MAIN_READING_ONLY = ("orders_ablation.png",)
#: The cell of a claim judged under the main reading only.
MAIN_ONLY = "main reading only"


def reading_verdicts(main: pd.DataFrame, published: Mapping, readings: Mapping[str, str],
                     **tables) -> pd.DataFrame:
    """The reading x claim matrix as data: the verdict of every claim under every reading.

    ``main``: the main reading's claims (a claims file), in order;
    ``readings``: reading name -> its policy label in ``tables`` (the
    criteria's tables, as :func:`claims`, holding every reading's rows; a
    table without a reading's label is not given for that reading). One row
    per (reading, claim): ``reading, claim, figure, verdict, how`` with
    ``how`` "simulated" (judged on that reading's runs by the same rule),
    "policy-free" (:data:`POLICY_FREE`: the main verdict), "main reading
    only" (:data:`MAIN_READING_ONLY`: verdict :data:`MAIN_ONLY`) or "not run".
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

    Keyword ``tables`` are the tables of :mod:`.tables`, by the criteria's
    parameter names (``fig2``, ``table1``, ``table2``, ``traces``,
    ``gains``, ``long_util``, ``orders``); a table not given (or None)
    skips the claims it holds. ``malleable`` is the policy label of
    FCFS-malleable in them (another reading of the time model: its label).
    """
    return apply_criteria(CRITERIA, published=published, malleable=malleable, **tables)


def write_claims(ctx) -> None:
    """Step ``utrera_claims``: ``paper_figures/utrera/claims.csv`` from the figure steps'
    CSV tables (inputs named as the criteria's parameters)."""
    inp = ctx.input
    tables = {k: pd.read_csv(inp[k]) for k in ("fig2", "table1", "traces", "gains",
                                               "long_util", "orders")}
    tables["table2"] = pd.read_csv(inp.table2, index_col="trace")
    found = claims(published=load_published(inp.published), **tables)
    write_claims_file(found, ctx.output.csv, scale=ctx.params["scale"])
    ctx.log.info("verdicts: %s", verdict_counts(found))
