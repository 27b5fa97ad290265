"""Paper K's claims: a verdict per claim, and the ``kumar_tables`` step.

Every testable claim is checked by one criterion function (:data:`CRITERIA`),
instantiated by :func:`claims` on what the plan ran, from the study's cubes,
the C_s picks, the tables of :mod:`.tables` and the published numbers
(:mod:`.published`). The claims' words are ``templates/claims.yaml``
(:func:`claim`), filled with the numbers computed here; the README is
:mod:`.readme`.
"""
from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ...claims import (
    ALPHA,
    MIN_UNITS,
    Claim,
    Evidence,
    Verdict,
    combine_cases,
    paired_evidence,
    verdict_from_hits,
    verdict_from_sign,
)
from ...metrics import percent_improvement
from .fig1_sensitivity import BETTER, WORSE, band_table, build_sensitivity_cube
from .long_runs import long_rule
from .plan import CS_INF, FIGURES, PAPER_NAMES, KumarPlan, cs_label, names, ranges
from .tables import _improvement, paired_improvement

__all__ = ["CRITERIA", "texts", "claim", "claims", "tables_step", "min_effects", "OUTPERFORM_METRICS",
           "claims_settings", "outperforms",
           "fig1_los_beats_easy", "fig1_band_claim", "cs_optimum", "cs_insensitive",
           "easy_over_los", "delayed_los_close_to_easy", "ecc_lowers_improvements",
           "ecc_like_for_like", "headline_improvements", "n_bar_matches", "long_runs_equivalent"]


#: ``templates/claims.yaml``: each claim's words as format strings.
texts = functools.partial(names, "claims.yaml")


def claim(key: str, verdict: Verdict, given: Mapping | None = None, *, unit: str, n,
          name: str | None = None, **fields) -> Claim:
    """The claim ``key`` of ``claims.yaml``, its strings filled with ``fields``.

    ``given`` holds texts already made (``figure``, ``claim``, ``source``,
    ``ours``, ...), used as they are. ``unit`` and ``n``: the unit of
    replication of the criterion and how many; ``name``: the claim's stable
    key within the paper (default ``key``).
    """
    t, given = texts()[key], dict(given or {})
    fields = {"alpha": ALPHA, "min_units": MIN_UNITS, **fields}

    def text(name):
        return given[name] if name in given else t[name].format(**fields)

    return Claim(paper="kumar", claim=text("claim"), source=text("source"),
                 published=text("published"), ours=text("ours"), criterion=text("criterion"),
                 verdict=verdict, figure=given.get("figure", t.get("figure")),
                 unit=unit, n=str(n), key=name or key,
                 **({"reading": t["reading"]} if "reading" in t else {}))


#: The unit of replication of every seed-paired criterion: a seed draws one
#: workload, run by every policy (and every variant sharing its jobs).
SEED_UNIT = "seed (workload)"

#: The metrics of Tables IV–VII, the cases of an "outperforms" claim.
OUTPERFORM_METRICS = ("utilization", "mean_wait", "kumar_slowdown")


def min_effects(published: Mapping, fraction: float) -> dict[str, float]:
    """Least improvement (% points) an "outperforms" case counts, per metric:
    ``fraction`` x the smallest maximum improvement the paper prints for the
    metric in Tables IV–VII (the gains the paper backs its claims with).

    Examples
    --------
    >>> pub = {"tables": {"IV": {"values": {"los": {"mean_wait": 30.0}, "easy": {"mean_wait": 20.0}}}}}
    >>> min_effects(pub, 0.25)
    {'mean_wait': 5.0}
    """
    smallest: dict[str, float] = {}
    for t in (published.get("tables") or {}).values():
        for values in t["values"].values():
            for m, v in values.items():
                smallest[m] = min(float(v), smallest.get(m, math.inf))
    return {m: fraction * v for m, v in smallest.items()}


@functools.lru_cache(maxsize=None)
def _schema_defaults() -> dict:
    """``studies.kumar.claims``'s defaults, as the schema writes them (for a call without a plan)."""
    from .plan import SCHEMA
    props = json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"]["claims"]["properties"]
    return {k: v["default"] for k, v in props.items()}


def claims_settings(published: Mapping, plan: KumarPlan | None) -> dict:
    """The criteria's thresholds, from the grid (``studies.kumar.claims``) and the published
    numbers: ``min_effect`` per metric (:func:`min_effects`), ``close_within`` (% of EASY's
    wait), ``fraction``, ``close_fraction``, ``easy_gain`` (Table IV's Delayed-LOS gain over
    EASY in wait)."""
    spec = {**_schema_defaults(), **((plan.spec.get("claims") if plan is not None else None) or {})}
    fraction = float(spec["min_effect_fraction"])
    close_fraction = float(spec["close_to_easy_fraction"])
    easy_gain = float(((published.get("tables") or {}).get("IV", {}).get("values", {})
                       .get("easy", {}).get("mean_wait", math.nan)))
    return {"min_effect": min_effects(published, fraction), "fraction": fraction,
            "close_fraction": close_fraction, "easy_gain": easy_gain,
            "close_within": close_fraction * easy_gain}


def _per_seed_gain(cube, workload: str, new: str, base: str, metric: str, sweep: str):
    """Per seed: the mean over the sweep of the paired % improvement of ``new`` over ``base``."""
    with np.errstate(all="ignore"):
        return np.nanmean(_improvement(cube, workload, new, base, metric, sweep), axis=0)


def _ev(e: Evidence) -> str:
    return e.text(fmt="+.2f", unit=" %")


def _status(m, h):
    if not (np.isfinite(m) and np.isfinite(h)):
        return "n/a"
    return "better" if m - h > 0 else "worse" if m + h < 0 else "n.s."


def _fmt_imp(r) -> str:
    h = r["ci"]
    return f"{r['mean']:+.1f} % ± {h:.1f}" if np.isfinite(h) else f"{r['mean']:+.1f} %"


def _name(policy: str) -> str:
    return PAPER_NAMES.get(policy, policy)


def outperforms(cube, workload: str, new: str, base: str, sweep: str, source: str,
                claim_text: str, figure: str, min_effect: Mapping[str, float],
                metrics=OUTPERFORM_METRICS) -> Claim:
    """Claim "``new`` outperforms ``base``" over a sweep: one case per metric of Tables IV–VII.

    The claims of Figs. 5–11 (``sweep`` ``"cs"`` or ``"load"``). A case is
    :func:`simlib.claims.paired_evidence` over seeds of the per-seed mean
    over the sweep of the paired % improvement, with the metric's
    ``min_effect``; the cases combine by :func:`simlib.claims.combine_cases`.
    """
    t = texts()["outperforms"]
    parts, verdicts, ns = [], [], []
    for m in metrics:
        if m not in cube or m not in min_effect:
            continue
        e = paired_evidence(_per_seed_gain(cube, workload, new, base, m, sweep),
                            min_effect=min_effect[m])
        verdicts.append(e.verdict)
        ns.append(e.n)
        parts.append(t["part"].format(metric=m, evidence=_ev(e), min_effect=min_effect[m],
                                      verdict=e.verdict.value))
    verdict = combine_cases(verdicts)
    holds = verdicts.count(Verdict.REPRODUCED)
    parts.append(t["count"].format(holds=holds, total=len(verdicts)))
    return claim("outperforms", verdict, {"figure": figure, "claim": claim_text, "source": source},
                 unit=SEED_UNIT, n=min(ns, default=0),
                 name=f"outperforms:{figure}:{workload}:{new}>{base}", new=_name(new),
                 base=_name(base), sweep=sweep, parts="; ".join(parts),
                 effects=", ".join(f"{m} {min_effect[m]:.2f}" for m in metrics
                                   if m in min_effect and m in cube))


def fig1_los_beats_easy(fig1_cube) -> Claim:
    """Fig. 1: LOS's mean wait below EASY's at every load of the SDSC log (deterministic)."""
    da = fig1_cube["mean_wait"]
    if "trace" in da.dims:
        da = da.isel(trace=0)
    imp = percent_improvement(da.sel(policy="los").values, da.sel(policy="easy").values)
    better, total = int(np.sum(imp > 0)), int(np.sum(np.isfinite(imp)))
    loads = ", ".join(f"{x:g}: {v:+.1f} %" for x, v in zip(da["load"].values, imp))
    return claim("fig1", verdict_from_sign(better, int(np.sum(imp < 0)), total),
                 unit="load (one deterministic replay of the log)", n=total,
                 better=better, total=total, loads=loads)


def fig1_band_claim(cube, tolerance: float) -> Claim:
    """Fig. 1 judged on the band over log segments x LOS tie rules (:mod:`.fig1_sensitivity`)."""
    t = texts()["fig1_sensitivity"]
    table = band_table(cube, tolerance)
    parts = [t["part"].format(load=r.load, low=r.band_low, high=r.band_high, status=r.status)
             for r in table.itertuples()]
    # A load without runs counts against the claim.
    verdict = verdict_from_sign(int((table["status"] == BETTER).sum()),
                                int((table["status"] == WORSE).sum()), len(table))
    return claim("fig1_sensitivity", verdict, unit="load (band over log segments x tie rules)",
                 n=len(table), tolerance=tolerance, parts="; ".join(parts),
                 segments=", ".join(str(s) for s in cube["segment"].values))


def _rel(da, ref):
    """Per seed: 100 x (da - ref) / ref (``da``, ``ref``: DataArrays over seeds)."""
    with np.errstate(all="ignore"):
        return (100.0 * (da - ref) / ref).values


def cs_optimum(published: Mapping, cs_cube, picks: pd.DataFrame, plan: KumarPlan) -> Claim | None:
    """Fig. 5: Delayed-LOS's mean wait falls until C_s ≈ 7–8 and does not improve beyond
    (None: no such P_S swept). Two paired tests over seeds, the rule in full in the claim's
    criterion (``claims.yaml``):

    - *fall*: the wait at C_s below the printed range (mean of those C_s) minus the wait
      in the range (mean of its C_s), % of the latter, > 0;
    - *beyond*: the wait at every C_s above the range (C_s = ∞ included, mean of them)
      minus the wait in the range, % of the latter, > 0 (the paper: "stable after a slight
      increase").

    Contradicted when the larger C_s are significantly better (the optimum lies beyond);
    reproduced when both hold; inconclusive when a test could not decide; else not reproduced.
    """
    opt, t = published["cs_optimum"], texts()["cs_optimum"]
    w = _workload_with_p_s(plan, float(opt["p_s"]), "cs")
    if w is None or w not in set(picks["workload"]):
        return None
    row = picks.set_index("workload").loc[w]
    lo, hi = min(opt["values"]), max(opt["values"])
    swept = plan.cs_sweep["swept"]
    da = cs_cube["mean_wait"].sel(workload=w, policy=swept)
    cs = [int(c) for c in da["cs"].values]
    inside = [c for c in cs if lo <= c <= hi]
    below, above = [c for c in cs if c < lo], [c for c in cs if c > hi]
    fields = dict(lo=lo, hi=hi, p_s=opt["p_s"])
    ours = t["ours"].format(cs=cs_label(row["cs"]), **plan.cs_sweep["pick"],
                            near=ranges([int(c) for c in row["near_best"]]),
                            first=float(da.isel(cs=0).mean("seed")) / 3600,
                            first_cs=cs_label(cs[0]), best=row["best_value"] / 3600)
    if CS_INF in cs:
        ours += t["infinity"].format(wait=float(da.sel(cs=CS_INF).mean("seed")) / 3600)
    if "forced_starts" in cs_cube:
        f = cs_cube["forced_starts"].sel(workload=w, policy=swept, cs=int(row["cs"]))
        ours += t["forced"].format(forced=float(f.mean("seed")))
    if not (inside and below and above):
        return claim("cs_optimum", Verdict.NOT_TESTABLE,
                     {"source": opt["source"].split(":")[0],
                      "ours": ours + t["untestable"].format(**fields)},
                     unit=SEED_UNIT, n=da.sizes["seed"], **fields)
    ref = da.sel(cs=inside).mean("cs")
    fall = paired_evidence(_rel(da.sel(cs=below).mean("cs"), ref))
    beyond = paired_evidence(_rel(da.sel(cs=above).mean("cs"), ref))
    if beyond.verdict is Verdict.CONTRADICTED:
        verdict = Verdict.CONTRADICTED
    elif fall.verdict is Verdict.REPRODUCED and beyond.verdict is Verdict.REPRODUCED:
        verdict = Verdict.REPRODUCED
    elif Verdict.INCONCLUSIVE in (fall.verdict, beyond.verdict):
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = Verdict.NOT_REPRODUCED
    ours += t["tests"].format(fall=_ev(fall), fall_verdict=fall.verdict.value, beyond=_ev(beyond),
                              beyond_verdict=beyond.verdict.value, below=ranges(below),
                              above=ranges(above), **fields)
    return claim("cs_optimum", verdict, {"source": opt["source"].split(":")[0], "ours": ours},
                 unit=SEED_UNIT, n=min(fall.n, beyond.n), **fields)


def _equivalent(m: float, low: float, high: float, n: int, tolerance: float) -> Verdict:
    """An "equal within ± tolerance" claim from a mean and its 95 % interval over n units:
    reproduced when the interval lies within ± tolerance, contradicted when it lies wholly
    outside (significantly farther), inconclusive when neither and n < MIN_UNITS, else not
    reproduced."""
    if not np.isfinite(m):
        return Verdict.NOT_REPRODUCED
    if np.isfinite(low) and -tolerance <= low and high <= tolerance:
        return Verdict.REPRODUCED
    if np.isfinite(low) and (low > tolerance or high < -tolerance):
        return Verdict.CONTRADICTED
    return Verdict.INCONCLUSIVE if n < MIN_UNITS else Verdict.NOT_REPRODUCED


def cs_insensitive(published: Mapping, cs_cube, plan: KumarPlan,
                   tolerance: float | None = None) -> Claim | None:
    """Fig. 6: Delayed-LOS flat in C_s above the printed value (None: not enough C_s swept).

    Per C_s above it, the paired difference per seed to the seed's average over those C_s,
    % of the average, judged by :func:`_equivalent` within ± ``tolerance`` (default: the
    minimum effect in mean wait, :func:`claims_settings`); contradicted when some C_s is
    significantly off by more, reproduced when all are within, inconclusive when a C_s is
    undecided, else not reproduced.
    """
    ins = published["cs_insensitive"]
    w = _workload_with_p_s(plan, float(ins["p_s"]), "cs")
    if w is None:
        return None
    if tolerance is None:
        tolerance = claims_settings(published, plan)["min_effect"]["mean_wait"]
    da = cs_cube["mean_wait"].sel(workload=w, policy=plan.cs_sweep["swept"])
    da = da.sel(cs=[c for c in da["cs"].values if c > ins["above"]])
    if da.sizes["cs"] < 2:
        return None
    avg = da.mean("cs")
    cases, off = [], []
    for c in da["cs"].values:
        e = paired_evidence(_rel(da.sel(cs=c), avg))
        cases.append(_equivalent(e.effect, e.low, e.high, e.n, tolerance))
        if cases[-1] is not Verdict.REPRODUCED:
            off.append(int(c))
    verdict = (Verdict.CONTRADICTED if Verdict.CONTRADICTED in cases else
               Verdict.REPRODUCED if all(v is Verdict.REPRODUCED for v in cases) else
               Verdict.INCONCLUSIVE if Verdict.INCONCLUSIVE in cases else Verdict.NOT_REPRODUCED)
    means = da.mean("seed").values
    return claim("cs_insensitive", verdict, {"source": ins["source"].split(":")[0]},
                 unit=SEED_UNIT, n=da.sizes["seed"], p_s=ins["p_s"], above=ins["above"],
                 spread=100 * (means.max() - means.min()) / means.mean(), tolerance=tolerance,
                 off=ranges(off) or "none", cases=len(cases),
                 holds=sum(v is Verdict.REPRODUCED for v in cases))


def easy_over_los(key: str, load_cube, workload: str, p_s: float | None = None,
                  min_effect: float = 0.0) -> Claim:
    """EASY's per-seed mean (over loads) paired % improvement over LOS in mean wait,
    :func:`simlib.claims.paired_evidence` with ``min_effect``.

    ``key``: ``los_worse_than_easy`` (Sect. III, 'Our Claim': LOS worse when
    job sizes vary, Fig. 7's workload) or ``easy_outperforms_los`` (Fig. 8).
    """
    r = paired_improvement(load_cube, workload, "easy", "los", "mean_wait")
    e = paired_evidence(_per_seed_gain(load_cube, workload, "easy", "los", "mean_wait", "load"),
                        min_effect=min_effect)
    return claim(key, e.verdict, unit=SEED_UNIT, n=e.n, name=f"{key}:{workload}",
                 evidence=_ev(e), at=r["at"], max_of_mean=r["max_of_mean"], p_s=p_s,
                 min_effect=min_effect)


def delayed_los_close_to_easy(load_cube, workload: str, p_s: float,
                              close_within: float, easy_gain: float = math.nan,
                              close_fraction: float = math.nan) -> Claim:
    """Fig. 8: Delayed-LOS within ± ``close_within`` % of EASY in mean wait (:func:`_equivalent`
    on the per-seed mean over loads of the paired % improvement)."""
    e = paired_evidence(_per_seed_gain(load_cube, workload, "delayed_los", "easy", "mean_wait",
                                       "load"))
    return claim("delayed_los_close_to_easy",
                 _equivalent(e.effect, e.low, e.high, e.n, close_within), unit=SEED_UNIT, n=e.n,
                 name=f"delayed_los_close_to_easy:{workload}", p_s=p_s, evidence=_ev(e),
                 close_within=close_within, easy_gain=easy_gain, close_fraction=close_fraction)


#: Tables compared by :func:`ecc_lowers_improvements`: (with ECCs, without, base with, base without).
ECC_PAIRS = (("VI", "IV", "los_e", "los"), ("VI", "IV", "easy_e", "easy"),
             ("VII", "V", "los_de", "los_d"), ("VII", "V", "easy_de", "easy_d"))


def _per_seed_max(cube, workload, new, base, metric="mean_wait"):
    """Per seed: the paper's procedure (maximum over the load sweep of the paired % improvement)."""
    imp = _improvement(cube, workload, new, base, metric, "load")
    with np.errstate(all="ignore"):
        return np.nanmax(np.where(np.isnan(imp), -np.inf, imp), axis=0)


def ecc_lowers_improvements(tables: pd.DataFrame, load_cube, with_ecc: str, without: str,
                            base_ecc: str, base: str, min_effect: float = 0.0) -> Claim | None:
    """Sect. V-C: the maximum improvement in wait lower with ECCs (None: a row missing).

    Per seed, the paper's procedure (maximum over loads) without ECCs minus with ECCs, paired
    by seed (:func:`simlib.claims.paired_evidence` with ``min_effect``).
    """
    wait = tables[tables["metric"] == "mean_wait"].set_index(["table", "base"])
    if (with_ecc, base_ecc) not in wait.index or (without, base) not in wait.index:
        return None
    e, b = wait.loc[(with_ecc, base_ecc)], wait.loc[(without, base)]
    # One difference per seed, positive where the claim holds (lower with ECCs).
    ev = paired_evidence(-(_per_seed_max(load_cube, e["workload"], e["new"], base_ecc)
                           - _per_seed_max(load_cube, b["workload"], b["new"], base)),
                         min_effect=min_effect)
    return claim("ecc_lowers_improvements", ev.verdict, unit=SEED_UNIT, n=ev.n,
                 name=f"ecc_lowers_improvements:{with_ecc}<{without}:{base_ecc}",
                 with_ecc=with_ecc, without=without,
                 base_ecc=PAPER_NAMES[base_ecc], base=PAPER_NAMES[base],
                 published_ecc=e["published"], published=b["published"],
                 ours_ecc=e["ours_max"], ours=b["ours_max"], evidence=_ev(ev),
                 min_effect=min_effect)


#: Like-for-like ECC pairs: (workload with ECCs, the same P_S without, new with, base with,
#: new without, base without). The variants share jobs and arrivals seed by seed (also
#: under a reading: one that re-runs either workload re-runs both, checked with the config).
ECC_SAME_P_S = (("elastic_batch", "ps05", "delayed_los_e", "los_e", "delayed_los", "los"),
                ("elastic_batch", "ps05", "delayed_los_e", "easy_e", "delayed_los", "easy"))


def ecc_like_for_like(load_cube, with_w: str, without_w: str, new_e: str, base_e: str,
                      new: str, base: str, metric: str = "mean_wait",
                      min_effect: float = 0.0) -> Claim | None:
    """Sect. V-C at the same P_S: is the improvement lower with ECCs? (None: a policy not run).

    Per seed, the improvement of ``new`` over ``base`` on ``without_w`` minus that of
    ``new_e`` over ``base_e`` on ``with_w`` (each the mean over the load sweep): the
    workloads share jobs and arrivals, so the difference is paired by seed; judged by
    :func:`simlib.claims.paired_evidence` with ``min_effect``.
    """
    have = {str(p) for p in load_cube["policy"].values}
    works = {str(w) for w in load_cube["workload"].values}
    if not {new_e, base_e, new, base} <= have or not {with_w, without_w} <= works:
        return None
    e = _per_seed_gain(load_cube, with_w, new_e, base_e, metric, "load")
    o = _per_seed_gain(load_cube, without_w, new, base, metric, "load")
    ev = paired_evidence(o - e, min_effect=min_effect)
    with np.errstate(all="ignore"):
        with_ecc, without = float(np.nanmean(e)), float(np.nanmean(o))
    return claim("ecc_like_for_like", ev.verdict, unit=SEED_UNIT, n=ev.n,
                 name=f"ecc_like_for_like:{new_e}>{base_e}",
                 new_e=PAPER_NAMES[new_e], base_e=PAPER_NAMES[base_e], with_w=with_w,
                 new=PAPER_NAMES[new], base=PAPER_NAMES[base], without_w=without_w,
                 with_ecc=with_ecc, without=without, seeds=ev.n, evidence=_ev(ev),
                 min_effect=min_effect)


def headline_improvements(tables: pd.DataFrame, table: str) -> Claim | None:
    """Abstract: the new policy's maximum improvements over LOS within our range (None: no rows).

    One case per metric: holds when the published value lies within the 5–95 % range of the
    paper's procedure on single seeds; against when that whole range is below 0 (no gain);
    undecided when neither and fewer than MIN_UNITS seeds give the range.
    """
    sub = tables[(tables["table"] == table) & (tables["base"].isin(["los", "los_d"]))]
    if not len(sub):
        return None
    part = texts()["headline"]["part"]
    holds = int((sub["verdict"] == "within our range").sum())
    against = int((sub["paper_procedure_p95"] < 0).sum())
    few = sub["seeds"] < MIN_UNITS if "seeds" in sub else pd.Series(False, index=sub.index)
    undecided = int(((sub["verdict"] != "within our range") & (sub["paper_procedure_p95"] >= 0)
                     & few).sum())
    seeds = int(sub["seeds"].min()) if "seeds" in sub else ""
    return claim("headline", verdict_from_hits(holds, len(sub), against=against,
                                               undecided=undecided),
                 unit=SEED_UNIT, n=seeds, name=f"headline:{table}",
                 table=table, new=PAPER_NAMES[sub["new"].iloc[0]], holds=holds, total=len(sub),
                 parts="; ".join(part.format(metric=r.metric, published=r.published,
                                             ours_max=r.ours_max, p5=r.paper_procedure_p5,
                                             p95=r.paper_procedure_p95) for r in sub.itertuples()))


def n_bar_matches(row: Mapping) -> Claim:
    """Sect. V: a printed n̄ within 2 standard errors of our size model's (a row of the n̄ table)."""
    ok = abs(row["published_z"]) <= 2
    return claim("n_bar", Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED,
                 unit="- (our model's exact expectation and standard error)", n=1,
                 name=f"n_bar:{row['p_s']:g}:{row['p_d']:g}", **row)


def long_runs_equivalent(table: pd.DataFrame | None = None, n_jobs: int = 10000,
                         margin: float = 10.0) -> Claim:
    """Sect. V: 10,000-job runs like 500-job ones, judged on :func:`.long_runs.comparison_table`
    by the rule :func:`.long_runs.long_rule`; not testable without runs.

    Examples
    --------
    >>> long_runs_equivalent().verdict.value
    'not testable here'
    """
    t = texts()["long_runs"]
    unit = "(workload, policy pair, load) point; seeds within a point"
    if table is None:
        return claim("long_runs", Verdict.NOT_TESTABLE, {
            "figure": t["not_run_figure"], "ours": t["not_run"], "criterion": t["not_run_criterion"]},
            unit="-", n=0)
    ok = table[~table["saturated"] & (table["point"] != "no interval")] if len(table) else table
    if not len(ok):
        return claim("long_runs", Verdict.NOT_TESTABLE,
                     {"ours": t["untestable"], "criterion": long_rule(margin)}, unit=unit, n=0)
    counts, worst = ok["point"].value_counts(), ok.loc[ok["difference"].abs().idxmax()]
    saturated = {f"{r.workload}@{r.load:g}" for r in table[table["saturated"]].itertuples()}
    return claim("long_runs", verdict_from_hits(int(counts.get("equivalent", 0)), len(ok),
                                                against=int(counts.get("different", 0)),
                                                undecided=int(counts.get("inconclusive", 0))),
                 {"criterion": long_rule(margin)}, unit=unit, n=len(ok), n_jobs=n_jobs,
                 points=len(ok), margin=margin,
                 equivalent=int(counts.get("equivalent", 0)),
                 inconclusive=int(counts.get("inconclusive", 0)),
                 different=int(counts.get("different", 0)),
                 width=float((ok["ci_high"] - ok["ci_low"]).median()) / 2,
                 seeds_long=int(ok["seeds_long"].min()), seeds_500=int(ok["seeds_500"].min()),
                 difference=worst["difference"], new=worst["new"], base=worst["base"],
                 workload=worst["workload"], load=worst["load"],
                 saturated=", ".join(sorted(saturated)) or "none")


#: Every criterion function of paper K, in the order :func:`claims` applies them.
CRITERIA = (fig1_los_beats_easy, fig1_band_claim, outperforms, cs_optimum, cs_insensitive,
            easy_over_los, delayed_los_close_to_easy, ecc_lowers_improvements,
            ecc_like_for_like, headline_improvements, n_bar_matches, long_runs_equivalent)


def _cs_claims(published, cs_cube, picks, plan, settings) -> list:
    """Figs. 5–6: Delayed-LOS against each reference over C_s, its optimum, its flatness."""
    out, swept = [], plan.cs_sweep["swept"]
    for fig in ("fig5", "fig6"):
        w = FIGURES[fig]["workloads"][0]
        for base in plan.cs_sweep["policies"]:
            text = texts()["outperforms"]["cs"].format(base=_name(base), p_s=plan.p_s(w),
                                                       load=plan.cs_sweep["load"])
            out.append(outperforms(cs_cube, w, swept, base, "cs",
                                   f"Sect. V-A, {fig.replace('fig', 'Fig. ')}", text, fig,
                                   settings["min_effect"]))
    if picks is not None and len(picks):
        out += [cs_optimum(published, cs_cube, picks, plan),
                cs_insensitive(published, cs_cube, plan,
                               settings["min_effect"].get("mean_wait", 0.0))]
    return out


def _load_claims(load_cube, plan, settings) -> list:
    """Figs. 7–11: each new policy against its references (``claims.yaml``), and Sect. III / Fig. 8's."""
    out, sweeps = [], plan.load_sweeps
    wait_effect = settings["min_effect"].get("mean_wait", 0.0)

    def pols(w):
        return sweeps.get(w) or [str(p) for p in load_cube["policy"].values]

    for spec in texts()["outperforms"]["load"]:
        w, new = spec["workload"], spec["new"]
        for base in spec["bases"]:
            if w in sweeps and new in pols(w) and base in pols(w):
                text = spec["claim"].format(base=_name(base), p_s=plan.p_s(w),
                                            p_d=plan.params(w).p_d)
                out.append(outperforms(load_cube, w, new, base, "load", spec["source"], text,
                                       spec["figure"], settings["min_effect"]))
        if w == "ps02" and w in sweeps:
            out.append(easy_over_los("los_worse_than_easy", load_cube, "ps02",
                                     min_effect=wait_effect))
        if spec["figure"] == "fig8" and w in sweeps:
            p_s = plan.p_s(w)
            out += [delayed_los_close_to_easy(load_cube, w, p_s, settings["close_within"],
                                              settings["easy_gain"], settings["close_fraction"]),
                    easy_over_los("easy_outperforms_los", load_cube, w, p_s, wait_effect)]
    return out


def claims(*, published: Mapping, load_cube=None, cs_cube=None, fig1_cube=None,
           sensitivity_cube=None, long_table: pd.DataFrame | None = None,
           picks: pd.DataFrame | None = None, n_bar: pd.DataFrame | None = None,
           tables: pd.DataFrame | None = None, plan: KumarPlan | None = None) -> list[Claim]:
    """Every claim of paper K our runs can test, one :data:`CRITERIA` function each.

    The claims instantiate the criteria on what the plan ran (a pair of
    policies of a figure, a published n̄, a table); an input that is None
    skips the claims reading it. The rules are mechanical so that a verdict
    cannot drift from the numbers; each is stated in its claim's
    ``criterion``.

    Examples
    --------
    >>> [c.verdict.value for c in claims(published={})]   # only the untestable claim
    ['not testable here']
    """
    out: list[Claim | None] = []
    settings = claims_settings(published, plan)
    wait_effect = settings["min_effect"].get("mean_wait", 0.0)
    if fig1_cube is not None:
        out.append(fig1_los_beats_easy(fig1_cube))
    if sensitivity_cube is not None:
        out.append(fig1_band_claim(sensitivity_cube, plan.spec["fig1_sensitivity"]["tolerance"]))
    if cs_cube is not None and plan is not None:
        out += _cs_claims(published, cs_cube, picks, plan, settings)
    if load_cube is not None and plan is not None:
        out += _load_claims(load_cube, plan, settings)
    if tables is not None and len(tables) and load_cube is not None:
        out += [ecc_lowers_improvements(tables, load_cube, *pair, min_effect=wait_effect)
                for pair in ECC_PAIRS]
    if load_cube is not None:
        out += [ecc_like_for_like(load_cube, *pair, min_effect=wait_effect)
                for pair in ECC_SAME_P_S]
        out += [headline_improvements(tables, table) for table in ("IV", "V")]
    if n_bar is not None and len(n_bar):
        # One claim per published n̄ (several variants share a P_S, P_D).
        printed = n_bar[np.isfinite(n_bar["published"])].drop_duplicates(["p_s", "p_d"])
        out += [n_bar_matches(r) for r in printed.to_dict("records")]
    out.append(long_runs_equivalent() if long_table is None else long_runs_equivalent(
        long_table, plan.long_runs["n_jobs"], plan.long_runs["margin"]))
    return [c for c in out if c is not None]


def _workload_with_p_s(plan: KumarPlan, p_s: float, purpose: str) -> str | None:
    """The workload of a sweep with this P_S, if any."""
    return next((w for w in plan.purpose_workloads(purpose) if math.isclose(plan.p_s(w), p_s)),
                None)


def tables_step(ctx) -> None:
    """The ``kumar_tables`` step: Tables IV–VII and n̄ (:func:`.tables.write_tables`), the forced
    starts, the long runs and readings when run, and the claims (:func:`claims`)."""
    from ...claims import verdict_counts, write_claims
    from ...cube import read_cube
    from .published import load_published
    from .tables import forced_starts_frame, write_table, write_tables
    inp, out, scale = ctx.input, ctx.output, ctx.params["scale"]
    plan, published = KumarPlan(ctx.params["study"], scale), load_published(inp.published)
    cubes = {k[:-len("_cube")]: read_cube(v) for k, v in inp.items() if k.endswith("_cube")}
    if inp.get("sensitivity_summaries"):
        cubes["sensitivity"] = build_sensitivity_cube(
            [json.loads(Path(f).read_text(encoding="utf-8")) for f in inp.sensitivity_summaries], {})
    indices = {w: json.loads((Path(d) / "index.json").read_text(encoding="utf-8"))
               for w, d in zip(plan.purpose_workloads("load"), inp.workloads)}
    tables, nbar = write_tables(cubes["load"], published, indices, scale=scale, seeds=plan.seeds,
                                out=out)
    write_table(forced_starts_frame(cubes["cs"], plan.cs_sweep["swept"]), out.cs_forced_starts_csv,
                out.cs_forced_starts_md, "cs_forced_starts.md.j2", scale=scale)
    long_table = None
    if "long" in cubes:
        from .long_runs import write_long_tables
        long_table = write_long_tables(cubes["load"], cubes["long"], plan.long_runs,
                                       md=out.long_runs_md, csv=out.long_runs_csv, scale=scale)
    if "readings" in cubes:
        from .readings import write_readings
        matrix = write_readings(cubes["load"], cubes["readings"], published, plan,
                                md=out.readings_md, csv=out.readings_csv, scale=scale)
        ctx.log.info("readings: %d claims x %d readings", len(matrix), len(plan.readings))
    picks = pd.DataFrame(json.loads(Path(inp.picks).read_text(encoding="utf-8"))["table"])
    found = claims(published=published, load_cube=cubes["load"], cs_cube=cubes["cs"],
                   fig1_cube=cubes.get("fig1"), sensitivity_cube=cubes.get("sensitivity"),
                   long_table=long_table, picks=picks, n_bar=nbar, tables=tables, plan=plan)
    verdicts = write_claims(found, out.claims_csv, scale=scale)
    ctx.log.info("verdicts: %s", verdict_counts(verdicts["verdict"]))
