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

from ...claims import Claim, Verdict, verdict_from_hits, verdict_from_sign
from ...metrics import percent_improvement
from ...stats import mean_ci
from .fig1_sensitivity import BETTER, WORSE, band_table, build_sensitivity_cube
from .long_runs import long_rule
from .plan import CS_INF, FIGURES, PAPER_NAMES, KumarPlan, cs_label, names, ranges
from .tables import _improvement, paired_improvement

__all__ = ["CRITERIA", "texts", "claim", "claims", "tables_step", "outperforms",
           "fig1_los_beats_easy", "fig1_band_claim", "cs_optimum", "cs_insensitive",
           "easy_over_los", "delayed_los_close_to_easy", "ecc_lowers_improvements",
           "ecc_like_for_like", "headline_improvements", "n_bar_matches", "long_runs_equivalent"]


#: ``templates/claims.yaml``: each claim's words as format strings.
texts = functools.partial(names, "claims.yaml")


def claim(key: str, verdict: Verdict, given: Mapping | None = None, **fields) -> Claim:
    """The claim ``key`` of ``claims.yaml``, its strings filled with ``fields``.

    ``given`` holds texts already made (``figure``, ``claim``, ``source``,
    ``ours``, ...), used as they are.
    """
    t, given = texts()[key], dict(given or {})

    def text(name):
        return given[name] if name in given else t[name].format(**fields)

    return Claim(paper="kumar", claim=text("claim"), source=text("source"),
                 published=text("published"), ours=text("ours"), criterion=text("criterion"),
                 verdict=verdict, figure=given.get("figure", t.get("figure")),
                 **({"reading": t["reading"]} if "reading" in t else {}))


def _status(m, h):
    if not (np.isfinite(m) and np.isfinite(h)):
        return "n/a"
    return "better" if m - h > 0 else "worse" if m + h < 0 else "n.s."


def _outperform_verdict(statuses) -> Verdict:
    """Several CI-tested metrics (:func:`simlib.claims.verdict_from_sign`)."""
    return verdict_from_sign(statuses.count("better"), statuses.count("worse"), len(statuses))


def _fmt_imp(r) -> str:
    h = r["ci"]
    return f"{r['mean']:+.1f} % ± {h:.1f}" if np.isfinite(h) else f"{r['mean']:+.1f} %"


def _name(policy: str) -> str:
    return PAPER_NAMES.get(policy, policy)


def outperforms(cube, workload: str, new: str, base: str, sweep: str, source: str,
                claim_text: str, figure: str, metrics=("mean_wait", "utilization")) -> Claim:
    """Claim "``new`` outperforms ``base``" over a sweep: paired improvement per metric, CI over seeds.

    The claims of Figs. 5–11 (``sweep`` ``"cs"`` or ``"load"``).
    """
    t = texts()["outperforms"]
    parts, statuses = [], []
    for m in metrics:
        r = paired_improvement(cube, workload, new, base, m, sweep=sweep)
        statuses.append(_status(r["mean"], r["ci"]))
        parts.append(t["part"].format(metric=m, improvement=_fmt_imp(r), status=statuses[-1]))
    # Why a claim is not (fully) reproduced, in words (the verdict is one word).
    better, worse = statuses.count("better"), statuses.count("worse")
    if 0 < worse < len(statuses):
        parts.append(t["mixed"].format(better=better, worse=worse, total=len(statuses)))
    elif not better and not worse:
        parts.append(t["same"])
    return claim("outperforms", _outperform_verdict(statuses),
                 {"figure": figure, "claim": claim_text, "source": source}, new=_name(new),
                 base=_name(base), sweep=sweep, parts="; ".join(parts))


def fig1_los_beats_easy(fig1_cube) -> Claim:
    """Fig. 1: LOS's mean wait below EASY's at every load of the SDSC log (deterministic)."""
    da = fig1_cube["mean_wait"]
    if "trace" in da.dims:
        da = da.isel(trace=0)
    imp = percent_improvement(da.sel(policy="los").values, da.sel(policy="easy").values)
    better, total = int(np.sum(imp > 0)), int(np.sum(np.isfinite(imp)))
    loads = ", ".join(f"{x:g}: {v:+.1f} %" for x, v in zip(da["load"].values, imp))
    return claim("fig1", verdict_from_sign(better, int(np.sum(imp < 0)), total),
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
    return claim("fig1_sensitivity", verdict, tolerance=tolerance, parts="; ".join(parts),
                 segments=", ".join(str(s) for s in cube["segment"].values))


def cs_optimum(published: Mapping, cs_cube, picks: pd.DataFrame, plan: KumarPlan) -> Claim | None:
    """Fig. 5: Delayed-LOS's C_s optimum near the printed values (None: no such P_S swept).

    Near the printed range, and *interior*: the skip limit must matter (C_s
    = ∞, when run, significantly worse than the best); the rule in full is
    the claim's criterion (``claims.yaml``).
    """
    opt, t = published["cs_optimum"], texts()["cs_optimum"]
    w = _workload_with_p_s(plan, float(opt["p_s"]), "cs")
    if w is None or w not in set(picks["workload"]):
        return None
    row = picks.set_index("workload").loc[w]
    lo, hi = min(opt["values"]), max(opt["values"])
    near = [int(c) for c in row["near_best"]]
    picked = lo - 1 <= row["cs"] <= hi + 1
    indistinguishable = any(lo <= c <= hi for c in near)
    swept = plan.cs_sweep["swept"]
    da = cs_cube["mean_wait"].sel(workload=w, policy=swept)
    has_inf = CS_INF in [int(c) for c in da["cs"].values]
    limit_matters = not has_inf or CS_INF not in near
    fields = dict(lo=lo, hi=hi, lo_1=lo - 1, hi_1=hi + 1, p_s=opt["p_s"])
    ours = t["ours"].format(cs=cs_label(row["cs"]), **plan.cs_sweep["pick"], near=ranges(near),
                            first=float(da.isel(cs=0).mean("seed")) / 3600,
                            first_cs=cs_label(da["cs"].values[0]), best=row["best_value"] / 3600)
    if has_inf:
        ours += t["infinity"].format(wait=float(da.sel(cs=CS_INF).mean("seed")) / 3600,
                                     how=t["limit_matters" if limit_matters else "limit_idle"])
    if "forced_starts" in cs_cube:
        f = cs_cube["forced_starts"].sel(workload=w, policy=swept, cs=int(row["cs"]))
        ours += t["forced"].format(forced=float(f.mean("seed")))
    if indistinguishable and not picked:
        ours += t["indistinguishable"].format(**fields)
    close = picked or indistinguishable
    return claim("cs_optimum", Verdict.REPRODUCED if close and limit_matters else
                 Verdict.PARTLY if close else Verdict.NOT_REPRODUCED,
                 {"source": opt["source"].split(":")[0], "ours": ours}, **fields)


def cs_insensitive(published: Mapping, cs_cube, plan: KumarPlan) -> Claim | None:
    """Fig. 6: Delayed-LOS flat in C_s above the printed value (None: not enough C_s swept)."""
    ins = published["cs_insensitive"]
    w = _workload_with_p_s(plan, float(ins["p_s"]), "cs")
    if w is None:
        return None
    da = cs_cube["mean_wait"].sel(workload=w, policy=plan.cs_sweep["swept"])
    da = da.sel(cs=[c for c in da["cs"].values if c > ins["above"]])
    if da.sizes["cs"] < 2:
        return None
    avg = da.mean("cs")
    sig = []
    for c in da["cs"].values:
        m, h, _ = mean_ci((da.sel(cs=c) - avg).values)
        if np.isfinite(h) and abs(m) > h:
            sig.append(int(c))
    means = da.mean("seed").values
    return claim("cs_insensitive", Verdict.NOT_REPRODUCED if sig else Verdict.REPRODUCED,
                 {"source": ins["source"].split(":")[0]}, p_s=ins["p_s"], above=ins["above"],
                 spread=100 * (means.max() - means.min()) / means.mean(),
                 off=ranges(sig) or "none")


def easy_over_los(key: str, load_cube, workload: str, p_s: float | None = None) -> Claim:
    """EASY's paired improvement over LOS in mean wait, CI above 0 (below: contradicted).

    ``key``: ``los_worse_than_easy`` (Sect. III, 'Our Claim': LOS worse when
    job sizes vary, Fig. 7's workload) or ``easy_outperforms_los`` (Fig. 8).
    """
    r = paired_improvement(load_cube, workload, "easy", "los", "mean_wait")
    status = _status(r["mean"], r["ci"])
    verdict = {"better": Verdict.REPRODUCED, "worse": Verdict.CONTRADICTED}.get(
        status, Verdict.NOT_REPRODUCED)
    return claim(key, verdict, improvement=_fmt_imp(r), at=r["at"], max_of_mean=r["max_of_mean"],
                 why="" if status in ("better", "worse") else texts()["no_difference"], p_s=p_s)


def delayed_los_close_to_easy(load_cube, workload: str, p_s: float,
                              close_within: float = 10.0) -> Claim:
    """Fig. 8: Delayed-LOS within ``close_within`` % of EASY in mean wait, CI included."""
    r = paired_improvement(load_cube, workload, "delayed_los", "easy", "mean_wait")
    close = abs(r["mean"]) + (r["ci"] if np.isfinite(r["ci"]) else 0) <= close_within
    return claim("delayed_los_close_to_easy", Verdict.REPRODUCED if close else
                 Verdict.NOT_REPRODUCED, p_s=p_s, improvement=_fmt_imp(r),
                 close_within=close_within)


#: Tables compared by :func:`ecc_lowers_improvements`: (with ECCs, without, base with, base without).
ECC_PAIRS = (("VI", "IV", "los_e", "los"), ("VI", "IV", "easy_e", "easy"),
             ("VII", "V", "los_de", "los_d"), ("VII", "V", "easy_de", "easy_d"))


def ecc_lowers_improvements(tables: pd.DataFrame, with_ecc: str, without: str, base_ecc: str,
                            base: str) -> Claim | None:
    """Sect. V-C: the maximum improvement in wait lower with ECCs (None: a row missing)."""
    wait = tables[tables["metric"] == "mean_wait"].set_index(["table", "base"])
    if (with_ecc, base_ecc) not in wait.index or (without, base) not in wait.index:
        return None
    e, b = wait.loc[(with_ecc, base_ecc)], wait.loc[(without, base)]
    return claim("ecc_lowers_improvements", Verdict.REPRODUCED if e["ours_max"] < b["ours_max"]
                 else Verdict.NOT_REPRODUCED, with_ecc=with_ecc, without=without,
                 base_ecc=PAPER_NAMES[base_ecc], base=PAPER_NAMES[base],
                 published_ecc=e["published"], published=b["published"],
                 ours_ecc=e["ours_max"], ours=b["ours_max"])


#: Like-for-like ECC pairs: (workload with ECCs, the same P_S without, new with, base with,
#: new without, base without). The variants share jobs and arrivals seed by seed.
ECC_SAME_P_S = (("elastic_batch", "ps05", "delayed_los_e", "los_e", "delayed_los", "los"),
                ("elastic_batch", "ps05", "delayed_los_e", "easy_e", "delayed_los", "easy"))


def ecc_like_for_like(load_cube, with_w: str, without_w: str, new_e: str, base_e: str,
                      new: str, base: str, metric: str = "mean_wait") -> Claim | None:
    """Sect. V-C at the same P_S: is the improvement lower with ECCs? (None: a policy not run).

    Per seed, the improvement of ``new_e`` over ``base_e`` on ``with_w``
    minus that of ``new`` over ``base`` on ``without_w`` (each the mean over
    the load sweep): the workloads share jobs and arrivals, so the difference
    is paired by seed (rule: the claim's criterion).
    """
    have = {str(p) for p in load_cube["policy"].values}
    works = {str(w) for w in load_cube["workload"].values}
    if not {new_e, base_e, new, base} <= have or not {with_w, without_w} <= works:
        return None
    with np.errstate(all="ignore"):
        e = np.nanmean(_improvement(load_cube, with_w, new_e, base_e, metric, "load"), axis=0)
        o = np.nanmean(_improvement(load_cube, without_w, new, base, metric, "load"), axis=0)
    m, h, n = mean_ci(e - o)
    status = _status(m, h)
    return claim("ecc_like_for_like", Verdict.REPRODUCED if status == "worse" else
                 Verdict.CONTRADICTED if status == "better" else Verdict.NOT_REPRODUCED,
                 new_e=PAPER_NAMES[new_e], base_e=PAPER_NAMES[base_e], with_w=with_w,
                 new=PAPER_NAMES[new], base=PAPER_NAMES[base], without_w=without_w,
                 with_ecc=np.nanmean(e), without=np.nanmean(o), n=n,
                 difference=f"{m:+.2f}" + ("" if not np.isfinite(h) else f" ± {h:.2f}"))


def headline_improvements(tables: pd.DataFrame, table: str) -> Claim | None:
    """Abstract: the new policy's maximum improvements over LOS within our range (None: no rows)."""
    sub = tables[(tables["table"] == table) & (tables["base"].isin(["los", "los_d"]))]
    if not len(sub):
        return None
    part = texts()["headline"]["part"]
    return claim("headline", verdict_from_hits(int((sub["verdict"] == "within our range").sum()),
                                               len(sub)),
                 table=table, new=PAPER_NAMES[sub["new"].iloc[0]],
                 parts="; ".join(part.format(metric=r.metric, published=r.published,
                                             ours_max=r.ours_max, p5=r.paper_procedure_p5,
                                             p95=r.paper_procedure_p95) for r in sub.itertuples()))


def n_bar_matches(row: Mapping) -> Claim:
    """Sect. V: a printed n̄ within 2 standard errors of our size model's (a row of the n̄ table)."""
    ok = abs(row["published_z"]) <= 2
    return claim("n_bar", Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED, **row)


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
    if table is None:
        return claim("long_runs", Verdict.NOT_TESTABLE, {
            "figure": t["not_run_figure"], "ours": t["not_run"], "criterion": t["not_run_criterion"]})
    ok = table[~table["saturated"] & (table["point"] != "no interval")] if len(table) else table
    if not len(ok):
        return claim("long_runs", Verdict.NOT_TESTABLE,
                     {"ours": t["untestable"], "criterion": long_rule(margin)})
    counts, worst = ok["point"].value_counts(), ok.loc[ok["difference"].abs().idxmax()]
    saturated = {f"{r.workload}@{r.load:g}" for r in table[table["saturated"]].itertuples()}
    return claim("long_runs", verdict_from_hits(int(counts.get("equivalent", 0)), len(ok)),
                 {"criterion": long_rule(margin)}, n_jobs=n_jobs, points=len(ok), margin=margin,
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


def _cs_claims(published, cs_cube, picks, plan) -> list:
    """Figs. 5–6: Delayed-LOS against each reference over C_s, its optimum, its flatness."""
    out, swept = [], plan.cs_sweep["swept"]
    for fig in ("fig5", "fig6"):
        w = FIGURES[fig]["workloads"][0]
        for base in plan.cs_sweep["policies"]:
            text = texts()["outperforms"]["cs"].format(base=_name(base), p_s=plan.p_s(w),
                                                       load=plan.cs_sweep["load"])
            out.append(outperforms(cs_cube, w, swept, base, "cs",
                                   f"Sect. V-A, {fig.replace('fig', 'Fig. ')}", text, fig))
    if picks is not None and len(picks):
        out += [cs_optimum(published, cs_cube, picks, plan),
                cs_insensitive(published, cs_cube, plan)]
    return out


def _load_claims(load_cube, plan) -> list:
    """Figs. 7–11: each new policy against its references (``claims.yaml``), and Sect. III / Fig. 8's."""
    out, sweeps = [], plan.load_sweeps

    def pols(w):
        return sweeps.get(w) or [str(p) for p in load_cube["policy"].values]

    for spec in texts()["outperforms"]["load"]:
        w, new = spec["workload"], spec["new"]
        for base in spec["bases"]:
            if w in sweeps and new in pols(w) and base in pols(w):
                text = spec["claim"].format(base=_name(base), p_s=plan.p_s(w),
                                            p_d=plan.params(w).p_d)
                out.append(outperforms(load_cube, w, new, base, "load", spec["source"], text,
                                       spec["figure"]))
        if w == "ps02" and w in sweeps:
            out.append(easy_over_los("los_worse_than_easy", load_cube, "ps02"))
        if spec["figure"] == "fig8" and w in sweeps:
            p_s = plan.p_s(w)
            out += [delayed_los_close_to_easy(load_cube, w, p_s),
                    easy_over_los("easy_outperforms_los", load_cube, w, p_s)]
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
    if fig1_cube is not None:
        out.append(fig1_los_beats_easy(fig1_cube))
    if sensitivity_cube is not None:
        out.append(fig1_band_claim(sensitivity_cube, plan.spec["fig1_sensitivity"]["tolerance"]))
    if cs_cube is not None and plan is not None:
        out += _cs_claims(published, cs_cube, picks, plan)
    if load_cube is not None and plan is not None:
        out += _load_claims(load_cube, plan)
    if tables is not None and len(tables):
        out += [ecc_lowers_improvements(tables, *pair) for pair in ECC_PAIRS]
    if load_cube is not None:
        out += [ecc_like_for_like(load_cube, *pair) for pair in ECC_SAME_P_S]
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
