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

import math
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from simlib.claims import (
    ALPHA,
    MIN_UNITS,
    Claim,
    Evidence,
    Verdict,
    apply_criteria,
    combine_cases,
    paired_evidence,
    value_verdict,
    verdict_counts,
    verdict_from_hits,
)
from simlib.claims import write_claims as write_claims_file
from simlib.render import template_data

from . import EASY, MALLEABLE
from .published import load_published
from .tables import TABLE1_METRICS, pick, trunc2

# The criteria (module functions) are listed in CRITERIA.
__all__ = ["texts", "summary_evidence", "CRITERIA", "claims", "JOB_CLASSES", "POLICY_FREE",
           "MAIN_READING_ONLY", "MAIN_ONLY", "reading_verdicts", "write_claims"]

#: Paper id of the claims.
PAPER = "utrera"


def texts() -> dict:
    """The claims' words, by criterion name (``templates/claims.yaml``: a step reading them
    declares it in ``Step.templates``)."""
    return template_data(__package__, "claims.yaml")


def _claim(key: str, source: str, ours: str, verdict: Verdict, *, unit: str, n,
           **words) -> Claim:
    """The claim of criterion ``key``: its words (:func:`texts`, filled with ``words``),
    the unit of replication of its statistics and their number."""
    t = texts()[key]
    return Claim(paper=PAPER, claim=t["claim"].format(**words), source=source,
                 published=t["published"], ours=ours,
                 criterion=t["criterion"].format(**words), verdict=verdict, figure=t["figure"],
                 unit=unit, n=str(n), key=key)


def summary_evidence(effect: float, half: float, n: int, *, min_effect: float = 0.0) -> Evidence:
    """:func:`simlib.claims.paired_evidence` of per-unit differences known by their mean
    ``effect``, the half-width ``half`` of its 95 % Student-t interval and their number ``n``.

    A paired t-test and its interval depend on nothing else: the differences
    are rebuilt with that mean and standard deviation and given to
    :func:`~simlib.claims.paired_evidence`, whose rule decides (``holds`` is
    then not the count of units: it is not shown). The tables hold these
    three numbers: on a trace EASY is simulated once and FCFS-malleable once
    per OV seed on the same jobs, so FCFS-malleable's mean and interval over
    OV seeds, shifted by EASY's value, are those of the paired differences.

    Examples
    --------
    >>> summary_evidence(5.0, 1.0, 10, min_effect=2.0).verdict.value
    'reproduced'
    >>> summary_evidence(5.0, 1.0, 10, min_effect=8.0).verdict.value
    'not reproduced'
    >>> summary_evidence(-5.0, 1.0, 10, min_effect=2.0).verdict.value
    'contradicted'
    >>> summary_evidence(1.0, 3.0, 3, min_effect=2.0).verdict.value
    'inconclusive'
    """
    from scipy.stats import t as student_t

    n = int(n) if np.isfinite(n) else 0
    if n < 1 or not np.isfinite(effect):
        return paired_evidence([], min_effect=min_effect)
    if n == 1:
        return paired_evidence([effect], min_effect=min_effect)
    sd = (half * math.sqrt(n) / student_t.ppf(0.975, n - 1)
          if np.isfinite(half) and half > 0 else 0.0)
    z = np.arange(n) - (n - 1) / 2
    z = z / z.std(ddof=1)
    with warnings.catch_warnings():  # nearly equal differences: the test still decides
        warnings.simplefilter("ignore", RuntimeWarning)
        return paired_evidence(effect + sd * z, min_effect=min_effect)


def _ev(e: Evidence, unit: str = " %") -> str:
    """``+12.0 % [+10.1, +13.9], p = 0.001, n = 10`` (no interval with one unit)."""
    ci = f" [{e.low:+.1f}, {e.high:+.1f}]" if np.isfinite(e.low) else ""
    p = f", p = {e.p:.2g}" if e.n >= 2 else ""
    return f"{e.effect:+.1f}{unit}{ci}{p}, n = {e.n}"


def _counts(verdicts) -> str:
    """``2 hold, 1 against, 0 undecided of 3``: the stated cases behind a combined verdict."""
    vs = [Verdict(v) for v in verdicts]
    return (f"{vs.count(Verdict.REPRODUCED)} hold, {vs.count(Verdict.CONTRADICTED)} against, "
            f"{vs.count(Verdict.INCONCLUSIVE)} undecided of {len(vs)}")


def _criteria(published: Mapping) -> Mapping:
    """The least effects and tolerances (published file, block ``criteria``), with their
    defaults for a file without the block."""
    return {"min_gain_fraction": 0.5, "orders_min_effect": 0.01, "mpl_tolerance": 0.005,
            "percent_tolerance": 0.005, **published.get("criteria", {})}


def _min_gain(published: Mapping, metric: str) -> float:
    """The least gain (percent) of FCFS-malleable over EASY on the traces that counts: half
    (``min_gain_fraction``) the paper's headline gain of ``metric`` (slowdown metrics: the
    slowdown's)."""
    head = published["headline"]["values"]
    key = "mean_response" if metric == "mean_response" else "utrera_slowdown"
    return 100 * _criteria(published)["min_gain_fraction"] * float(head[key])


def _trace_value(traces: pd.DataFrame, trace: str, policy: str, metric: str):
    """Mean, CI half-width (0 when undefined) and n of one trace, policy and metric."""
    r = pick(traces, trace=trace, policy=policy, metric=metric)
    n = int(r["n"]) if "n" in r and np.isfinite(r["n"]) else 1
    return float(r["mean"]), float(r["ci95"]) if np.isfinite(r["ci95"]) else 0.0, n


def _gain_evidence(e: float, f: float, fh: float, n: int, min_effect: float) -> Evidence:
    """FCFS-malleable's percent gain over EASY on one trace, paired over OV seeds: EASY's
    value ``e`` (simulated once), FCFS-malleable's mean ``f`` ± ``fh`` over ``n`` seeds."""
    if not (np.isfinite(e) and e != 0 and np.isfinite(f)):
        return paired_evidence([], min_effect=min_effect)
    return summary_evidence(100 * (e - f) / e, 100 * fh / abs(e), n, min_effect=min_effect)


def _pairs(traces: pd.DataFrame, metric: str, malleable: str):
    """Per trace (sorted): EASY's mean, FCFS-malleable's (label ``malleable``) mean, CI
    half-width and n."""
    for t in sorted(set(traces["trace"])):
        yield (t, _trace_value(traces, t, EASY, metric)[0],
               *_trace_value(traces, t, malleable, metric))


#: The unit of replication on the traces.
OV_UNIT = "OV seed (overhead draws on the same trace segment)"


def fig2_numbers(published: Mapping, fig2: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 2's nine numbers, from ``fig2`` (columns ``policy, metric, ours``; FCFS-malleable's
    rows labelled ``malleable``: another reading of the time model has its label).

    Deterministic (one run of the toy example, no seed): a number equals
    the printed one or not; no direction, so never "contradicted".
    """
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
                  f"{hits}/{total} equal; " + ", ".join(parts), verdict_from_hits(hits, total),
                  unit="-", n="1 run (deterministic)")


def table1_gains(published: Mapping, table1: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Table 1: FCFS-malleable's gains over EASY, per load and metric, paired by seed.

    ``table1`` is :func:`.tables.table1_frame` with published numbers
    (``paper_S``) and the paired gains (``gain``, ``gain_ci95``,
    ``gain_n``); only the main fit's rows count (column ``main``, when
    present) and only the paper's metrics. Each (load, metric) is a case:
    :func:`summary_evidence` of the per-seed gains (one Lublin workload per
    seed, EASY and FCFS-malleable on the same jobs) with the least effect
    half the paper's S-column gain there; the cases combine by
    :func:`simlib.claims.combine_cases`.
    """
    if "main" in table1:
        table1 = table1[table1["main"].astype(bool)]
    table1 = table1[table1["metric"].isin(TABLE1_METRICS[:3])]
    frac = _criteria(published)["min_gain_fraction"]
    cases, parts, ns = [], [], set()
    for (load, metric), grp in table1.groupby(["load", "metric"]):
        e = pick(grp, policy=EASY)
        f = pick(grp, policy=malleable)
        g_pub = 100 * (e["paper_S"] - f["paper_S"]) / e["paper_S"]
        least = frac * max(g_pub, 0.0)
        if "gain" in f and np.isfinite(f["gain"]):
            ev = summary_evidence(float(f["gain"]), float(f["gain_ci95"]), int(f["gain_n"]),
                                  min_effect=least)
        else:  # no paired gains (one run per policy): no test
            ev = paired_evidence([100 * (e["mean"] - f["mean"]) / e["mean"]] * 1,
                                 min_effect=least)
        ns.add(ev.n)
        cases.append(ev.verdict)
        parts.append(f"{metric}@{load:g}: {_ev(ev)} vs paper {g_pub:+.0f} % "
                     f"(least {least:.0f}): {ev.verdict.value}")
    return _claim("table1_gains", published["table1"]["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit="seed (Lublin workload; EASY and FCFS-malleable on the same jobs)",
                  n=_n(ns, "per load"), frac=frac)


def _n(ns, per: str) -> str:
    """``"20 per load"`` (or ``"2-3 per trace"`` when the cases differ)."""
    ns = sorted(ns)
    if not ns:
        return "0"
    return (f"{ns[0]}" if ns[0] == ns[-1] else f"{ns[0]}-{ns[-1]}") + (f" {per}" if per else "")


def table2_workloads(published: Mapping, table2: pd.DataFrame) -> Claim:
    """Table 2's utilizations and Req.Cpus/Cpus; ``table2`` indexed by trace
    (:func:`.tables.table2_frame`). Deterministic characteristics of the
    trace portions: no seed, no direction."""
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
                  verdict_from_hits(hits, total), unit="-",
                  n="1 trace portion per trace (deterministic)")


def _trace_gains(published: Mapping, traces: pd.DataFrame, metric: str, malleable: str):
    """Per trace: (trace, EASY, FCFS-malleable mean, Evidence of FCFS-malleable's gain)."""
    least = _min_gain(published, metric)
    for t, e, f, fh, n in _pairs(traces, metric, malleable):
        yield t, e, f, _gain_evidence(e, f, fh, n, least)


def fig3_response(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(c): FCFS-malleable's response time better than EASY's on every trace
    (``traces``: :func:`.tables.long_frame`); per trace the gain paired over OV seeds,
    at least half the paper's headline response gain."""
    found = list(_trace_gains(published, traces, "mean_response", malleable))
    cases = [ev.verdict for *_, ev in found]
    return _claim("fig3_response", published["fig3"]["source"],
                  _counts(cases) + "; " + "; ".join(
                      f"{t}: {f:.0f} s vs {e:.0f} s, gain {_ev(ev)}" for t, e, f, ev in found),
                  combine_cases(cases), unit=OV_UNIT,
                  n=_n({ev.n for *_, ev in found}, "per trace"),
                  least=_min_gain(published, "mean_response"))


def fig3_execution(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(b): execution times larger under FCFS-malleable, but less than twice EASY's.

    Per trace, the ratio FCFS-malleable / EASY over OV seeds (EASY simulated
    once): holds when its whole 95 % interval lies in (1, 2); against (the
    opposite of "larger") when it lies at or below 1; undecided when it
    straddles a bound with fewer than MIN_UNITS seeds.
    """
    cases, parts, ns = [], [], set()
    for t, e, f, fh, n in _pairs(traces, "mean_execution", malleable):
        r, rh = f / e, fh / e
        ns.add(n)
        if 1 < r - rh and r + rh < 2:
            v = Verdict.REPRODUCED
        elif r + rh <= 1:
            v = Verdict.CONTRADICTED
        elif (r - rh <= 1 < r + rh or r - rh < 2 <= r + rh) and n < MIN_UNITS:
            v = Verdict.INCONCLUSIVE
        else:
            v = Verdict.NOT_REPRODUCED
        cases.append(v)
        parts.append(f"{t}: x{r:.2f} (+-{rh:.2f}): {v.value}")
    return _claim("fig3_execution", published["fig3"]["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit=OV_UNIT, n=_n(ns, "per trace"), min_units=MIN_UNITS)


#: Fig. 3(d): on which traces the paper says FCFS-malleable's slowdown is better.
FIG3_SLOWDOWN_BETTER = {"CTC-SP2": True, "SDSC-BLUE": True, "SDSC-SP2": False}


def fig3_slowdown(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Fig. 3(d): slowdown better on CTC and SDSC-Blue, not on SDSC (:data:`FIG3_SLOWDOWN_BETTER`).

    The cases are the "better" traces (gain paired over OV seeds, at least
    half the paper's headline slowdown gain), combined by
    :func:`~simlib.claims.combine_cases`. Being worse on SDSC holds for any
    policy worse everywhere, so it is no case: it only completes a full
    match (reproduced becomes partly when SDSC is better too).
    """
    sub = traces[traces["trace"].isin(list(FIG3_SLOWDOWN_BETTER))]
    found = list(_trace_gains(published, sub, "utrera_slowdown", malleable))
    cases = [ev.verdict for t, *_, ev in found if FIG3_SLOWDOWN_BETTER[t]]
    rest_better = any(ev.verdict is Verdict.REPRODUCED for t, *_, ev in found
                      if not FIG3_SLOWDOWN_BETTER[t])
    verdict = combine_cases(cases)
    if verdict is Verdict.REPRODUCED and rest_better:
        verdict = Verdict.PARTLY
    return _claim("fig3_slowdown", published["fig3"]["source"],
                  _counts(cases) + "; " + "; ".join(
                      f"{t}: {f:.1f} vs {e:.1f}, gain {_ev(ev)}" for t, e, f, ev in found),
                  verdict, unit=OV_UNIT, n=_n({ev.n for *_, ev in found}, "per trace"),
                  least=_min_gain(published, "utrera_slowdown"))


#: Sect. 5.1's classes: metric -> (label, EASY better there according to the paper).
JOB_CLASSES = {"slowdown_short_narrow": ("short narrow", True),
               "slowdown_short_wide": ("short wide", False),
               "slowdown_long_narrow": ("long narrow", False),
               "slowdown_long_wide": ("long wide", False)}

#: A class where the paper says EASY is not better: the verdict of "EASY better" there.
_NOT_BETTER = {Verdict.REPRODUCED: Verdict.CONTRADICTED, Verdict.CONTRADICTED: Verdict.REPRODUCED,
               Verdict.NOT_REPRODUCED: Verdict.REPRODUCED,
               Verdict.INCONCLUSIVE: Verdict.INCONCLUSIVE}


def easy_better_only_short_narrow(published: Mapping, traces: pd.DataFrame,
                                  malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: on SDSC, EASY beats FCFS-malleable only for jobs < 3 min and < 16 processes.

    Per class of runtime x processes, EASY's gain over FCFS-malleable
    (100 (FCFS-malleable - EASY) / EASY, paired over OV seeds; least effect
    half the paper's headline slowdown gain): the short narrow class holds
    when that gain is reproduced; each other class holds when it is not
    (EASY not better by the least effect), is against when it is. No case
    tested (no trace, no per-class slowdowns): not reproduced.
    """
    from .metrics import NARROW_PROCS, SHORT_RUNTIME
    jc = published.get("job_classes")
    if not jc:
        return Claim(paper=PAPER, published="", verdict=Verdict.NOT_TESTABLE,
                     figure="slowdown_by_class.md", unit="-", n="0",
                     key="easy_better_only_short_narrow",
                     **texts()["easy_better_only_short_narrow"]["untestable"])
    if (float(jc["runtime_s"]), int(jc["procs"])) != (SHORT_RUNTIME, NARROW_PROCS):
        raise ValueError(f"job_classes: the runs' classes are {SHORT_RUNTIME:g} s and "
                         f"{NARROW_PROCS} processes (simlib.studies.utrera.metrics), the "
                         f"published file says {jc['runtime_s']} s and {jc['procs']}")
    least = _min_gain(published, "utrera_slowdown")
    cases, parts, ns = [], [], set()
    for metric, (label, easy_better) in JOB_CLASSES.items():
        try:
            e, _, _ = _trace_value(traces, jc["trace"], EASY, metric)
            f, fh, n = _trace_value(traces, jc["trace"], malleable, metric)
        except KeyError:
            continue
        if not (np.isfinite(e) and np.isfinite(f)) or e == 0:
            parts.append(f"{label}: no jobs")
            continue
        ev = summary_evidence(100 * (f - e) / e, 100 * fh / e, n, min_effect=least)
        v = ev.verdict if easy_better else _NOT_BETTER[ev.verdict]
        ns.add(ev.n)
        cases.append(v)
        parts.append(f"{label}: EASY {e:.1f} vs {f:.1f} (EASY's gain {_ev(ev)}): {v.value}")
    return _claim("easy_better_only_short_narrow", jc["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit=OV_UNIT, n=_n(ns, "per class"), trace=jc["trace"],
                  minutes=jc["runtime_s"] / 60, procs=jc["procs"], least=least)


def table3_mpl(published: Mapping, traces: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """Table 3: average MPL per trace and policy vs the printed value
    (:func:`simlib.claims.value_verdict`, tolerance: half the printed last digit;
    EASY simulated once, FCFS-malleable over OV seeds). No direction."""
    tol = _criteria(published)["mpl_tolerance"]
    tr = set(traces["trace"])
    parts, cases, ns = [], [], set()
    for t, vals in published["table3"]["values"].items():
        if t not in tr:
            continue
        for pol in (EASY, MALLEABLE):
            o, h, n = _trace_value(traces, t, pol if pol == EASY else malleable,
                                   "utrera_mean_mpl")
            n = n if pol != EASY else 1
            h = h if pol != EASY else 0.0
            v = value_verdict(o, h, n, float(vals[pol]), tolerance=tol)
            if pol != EASY:
                ns.add(n)
            cases.append(v)
            parts.append(f"{t} {pol} {o:.3f}" + (f" +-{h:.3f}" if h else "")
                         + f" vs {vals[pol]:g}: {v.value}")
    return _claim("table3_mpl", published["table3"]["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit=OV_UNIT + "; EASY: one deterministic run",
                  n=_n(ns, "per trace (FCFS-malleable)"), tol=tol)


def fragmentation_eliminated(published: Mapping, traces: pd.DataFrame,
                             malleable: str = MALLEABLE) -> Claim:
    """Fragmentation: FCFS-malleable eliminates it (printed 0 %).

    Per trace: holds when FCFS-malleable's mean rounds to the printed 0 %
    (within ``percent_tolerance``) or, with at least MIN_UNITS seeds, 0 is
    inside its interval (:func:`simlib.claims.value_verdict`); against when
    FCFS-malleable's fragmentation is significantly above EASY's, paired
    over OV seeds (the opposite of removing it); cases combined.
    """
    tol = _criteria(published)["percent_tolerance"]
    tr = set(traces["trace"])
    parts, cases, ns = [], [], set()
    for t in published["fragmentation"]["values"][MALLEABLE]:
        if t not in tr:
            continue
        e = _trace_value(traces, t, EASY, "utrera_fragmentation")[0]
        f, fh, n = _trace_value(traces, t, malleable, "utrera_fragmentation")
        v = value_verdict(f, fh, n, 0.0, tolerance=tol)
        # Reduction (percentage points), paired over OV seeds: EASY simulated once.
        red = summary_evidence(100 * (e - f), 100 * fh, n)
        if v is Verdict.NOT_REPRODUCED and red.verdict is Verdict.CONTRADICTED:
            v = Verdict.CONTRADICTED
        ns.add(n)
        cases.append(v)
        parts.append(f"{t}: {100 * f:.1f} % (+-{100 * fh:.1f}) vs EASY {100 * e:.1f} %, "
                     f"reduction {_ev(red, ' points')}: {v.value}")
    return _claim("fragmentation_eliminated", published["fragmentation"]["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit=OV_UNIT, n=_n(ns, "per trace"), tol=100 * tol, min_units=MIN_UNITS)


def fragmentation_easy(published: Mapping, traces: pd.DataFrame) -> Claim:
    """Fragmentation: EASY's from 6 % (CTC) to 14 % (SDSC), within half a printed percent
    (EASY simulated once per trace: deterministic, no direction)."""
    tol = _criteria(published)["percent_tolerance"]
    tr = set(traces["trace"])
    parts, cases = [], []
    for t, p in published["fragmentation"]["values"][EASY].items():
        if t not in tr:
            continue
        o = _trace_value(traces, t, EASY, "utrera_fragmentation")[0]
        v = value_verdict(o, 0.0, 1, float(p), tolerance=tol)
        cases.append(v)
        parts.append(f"{t} {100 * o:.1f} % vs {100 * p:g} %: {v.value}")
    return _claim("fragmentation_easy", published["fragmentation"]["source"],
                  "; ".join(parts), combine_cases(cases), unit="-",
                  n="1 run per trace (deterministic)", tol=100 * tol)


def headline_gains(published: Mapping, gains: pd.DataFrame, malleable: str = MALLEABLE) -> Claim:
    """The headline 28 % / 31 %: gains averaged over the traces (:func:`.tables.gains_frame`),
    seed by seed; per metric :func:`simlib.claims.value_verdict` (tolerance half a printed
    percent, direction: a gain), combined."""
    if "policy" in gains.columns:  # gains of several readings: keep this one's
        gains = gains[gains["policy"] == malleable]
    pub = published["headline"]["values"]
    tol = 100 * _criteria(published)["percent_tolerance"]
    parts, cases, ns = [], [], set()
    for m in ("utrera_slowdown", "mean_response"):
        r = pick(gains, trace="mean of traces", metric=m)
        p = 100 * pub[m]
        n = int(r["n"]) if "n" in r and np.isfinite(r["n"]) else 1
        half = float(r["ci95"]) if np.isfinite(r["ci95"]) else float("nan")
        v = value_verdict(float(r["mean"]), half, n, p, tolerance=tol, direction=1)
        ns.add(n)
        cases.append(v)
        parts.append(f"{m}: {r['mean']:+.0f} % (+-{r['ci95']:.0f}) vs +{p:.0f} %: {v.value}")
    return _claim("headline_gains", published["headline"]["source"], "; ".join(parts),
                  combine_cases(cases), unit=OV_UNIT + " (gain averaged over the 3 traces "
                  "seed by seed)", n=_n(ns, ""), tol=tol, min_units=MIN_UNITS)


def long_util_threshold(published: Mapping, long_util: pd.DataFrame,
                        malleable: str = MALLEABLE) -> Claim:
    """Sect. 5.1: FCFS-malleable's slowdown below EASY's exactly below the threshold.

    The numbers come from :func:`.tables.long_frame`, with the portion's
    columns (``long_util.csv``: ``trace``, ``first_job``, ``last_job``,
    ``long_jobs``, ``min_long_jobs``, ...). The cases are the points below
    the threshold: FCFS-malleable's slowdown gain over EASY paired over OV
    seeds on the same portion (least effect half the paper's headline
    slowdown gain), combined; a point at or above it where FCFS-malleable is
    better turns a full match into partly. A portion holding fewer long jobs
    than ``min_long_jobs`` cannot decide the claim (the long jobs'
    utilization barely moves the averages): the verdict is then "not
    testable here", whatever the numbers.
    """
    thr = float(published["long_util"]["threshold"])
    least = _min_gain(published, "utrera_slowdown")
    sld = long_util[long_util["metric"] == "utrera_slowdown"]
    parts, cases, above_better, ns = [], [], False, set()
    for u, grp in sld.groupby("long_util"):
        e = float(pick(grp, policy=EASY)["mean"])
        r = pick(grp, policy=malleable)
        n = int(r["n"]) if "n" in r and np.isfinite(r["n"]) else 1
        fh = float(r["ci95"]) if np.isfinite(r["ci95"]) else 0.0
        ev = _gain_evidence(e, float(r["mean"]), fh, n, least)
        ns.add(ev.n)
        parts.append(f"{u:.0%}: {float(r['mean']):.1f} vs {e:.1f} (gain {_ev(ev)})")
        if u < thr - 1e-9:
            cases.append(ev.verdict)
        else:
            above_better |= ev.verdict is Verdict.REPRODUCED
    verdict = combine_cases(cases)
    if verdict is Verdict.REPRODUCED and above_better:
        verdict = Verdict.PARTLY
    where, rule = "", ""
    if "long_jobs" in long_util.columns:
        r = long_util.iloc[0]
        n_long, least_jobs = int(r["long_jobs"]), int(r.get("min_long_jobs", 0))
        where = (f"portion: {r['trace']} jobs {int(r['first_job'])}-{int(r['last_job'])}, "
                 f"{n_long} long jobs (minimum {least_jobs}); ")
        rule = texts()["long_util_threshold"]["rule"].format(least=least_jobs)
        if n_long < least_jobs:
            verdict = Verdict.NOT_TESTABLE
    return _claim("long_util_threshold", published["long_util"]["source"],
                  where + _counts(cases) + "; FCFS-malleable vs EASY slowdown: "
                  + "; ".join(parts), verdict, unit="OV seed (overhead draws on the same "
                  "SDSC portion)", n=_n(ns, "per point"), rule=rule, least=least)


def oldest_first(published: Mapping, orders: pd.DataFrame, alpha: float = ALPHA) -> Claim:
    """Sect. 3.1: oldest first is the best candidate order (:func:`.tables.orders_frame`),
    paired by OV seed: the orders share their OV draws on the same jobs.

    Per trace and metric: holds when oldest has the smallest mean; else the
    paired t-test of oldest against the best (``p_vs_best``) decides by the
    rule of :func:`simlib.claims.paired_evidence`, with the least effect
    ``orders_min_effect`` (relative): significantly worse by that much is
    against, less or not significant is not reproduced (inconclusive with
    fewer than MIN_UNITS seeds); cases combined.
    """
    from scipy.stats import t as student_t
    rel_least = _criteria(published)["orders_min_effect"]
    cases, parts, ns = [], [], set()
    for (trace, metric), grp in orders.groupby(["trace", "metric"]):
        old = pick(grp, order="oldest")
        best = float(grp["mean"].min())
        n = int(old["n"]) if "n" in old and np.isfinite(old["n"]) else 1
        p = float(old["p_vs_best"]) if "p_vs_best" in grp else float("nan")
        rel = float(old["mean"]) / best - 1 if best else float("nan")
        ns.add(n)
        if int(old["rank"]) == 1:
            v = Verdict.REPRODUCED
        elif np.isfinite(p) and n >= 2:
            # The paired differences' mean (relative to the best) and, from the test's
            # p-value, the half-width of their interval: the rule of paired_evidence.
            tstat = student_t.isf(p / 2, n - 1) if p > 0 else np.inf
            half = (student_t.ppf(0.975, n - 1) * abs(rel) / tstat if np.isfinite(tstat) and tstat
                    else 0.0)
            v = summary_evidence(-rel, half, n, min_effect=rel_least).verdict
        else:
            v = Verdict.INCONCLUSIVE
        cases.append(v)
        parts.append(f"{trace} {metric}: rank {int(old['rank'])}, {100 * rel:+.1f} % vs best"
                     + ("" if np.isnan(p) else f" (paired p = {p:.2g})") + f": {v.value}")
    return _claim("oldest_first", published["orders"]["source"],
                  _counts(cases) + "; " + "; ".join(parts), combine_cases(cases),
                  unit="OV seed (the orders share each seed's overhead draws on the same jobs)",
                  n=_n(ns, "per trace"), alpha=alpha, least=100 * rel_least)


#: Every claim of paper U our runs test, one criterion function each, in README order.
CRITERIA = (fig2_numbers, table1_gains, table2_workloads, fig3_response, fig3_execution,
            fig3_slowdown, table3_mpl, fragmentation_eliminated, fragmentation_easy,
            headline_gains, long_util_threshold, easy_better_only_short_narrow, oldest_first)

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
