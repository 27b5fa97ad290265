"""Paper D's trends and claims (step ``dutot_claims``; used by the figures and README).

:func:`runs_frame` gives a cube as one row per run; :func:`trends_frame`
the least-squares trend of makespan vs F_comm per group of runs (the
paper's "linear trendline"), its residual SD and the killed jobs; one
criterion per claim (:data:`CRITERIA`) returns one
:class:`simlib.claims.Claim` per *reading* (each homogeneous platform model;
the heterogeneous experiment), its verdict following its rule mechanically.

The unit of replication is the **seed** (the workload): a seed's jobs are
the same on every platform and at every F_comm value, so its runs are
correlated, and every statistic is first averaged into one value per seed
(over F_comm, and over the platforms where a claim pools them), then tested
over seeds (:func:`simlib.claims.paired_evidence`, a paired t-test: a sign
test could not reach p < alpha with fewer than 6 seeds, and the default
scale has 1-2). A claim made of several cases (comparisons, variants, sets)
combines its cases' verdicts by :func:`simlib.claims.combine_cases`
("partly" = more than half hold). The rules: :func:`compare` ("A beats B"),
:func:`stability` (relative residual spread), :func:`gap_larger_heterogeneous`
(a stated least increase), :func:`no_effect` ("no effect" = not significant
*and* bounded within the grid's ``spread``). Each rule in words, as the
claims file and README state it: ``templates/claims.yaml.j2``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import yaml

from simlib.claims import (
    MIN_UNITS,
    Claim,
    Evidence,
    Verdict,
    apply_criteria,
    combine_cases,
    paired_evidence,
    write_claims,
)
from simlib.render import render

from .published import load_published

__all__ = ["PAPER", "UNIT", "runs_frame", "fit_trend", "trends_frame", "per_seed", "compare",
           "stability", "no_effect", "friedman_best_p", "sign_test_min_units", "readings",
           "claim_texts", "basic_worst", "contiguity_helps", "locality_helps_more",
           "strict_beat_best_effort", "strict_more_stable", "gap_larger_heterogeneous", "no_ordering_effect",
           "no_set_difference", "CRITERIA", "claims", "claims_step"]

#: Paper id of the claims (the study key).
PAPER = "dutot"
#: The unit of replication of every claim.
UNIT = "seed (workload)"
#: The strict variants and their best-effort counterparts.
STRICT = {"contiguous": "best_effort_contiguous", "local": "best_effort_local"}
#: The one test over seeds (simlib.claims.paired_evidence).
TEST = "t"


def runs_frame(cube) -> pd.DataFrame:
    """One row per run (cube cell with a makespan): dims then variables."""
    df = cube.to_dataframe().reset_index()
    return df[np.isfinite(df["makespan"])].reset_index(drop=True)


def fit_trend(x, y) -> dict:
    """Least-squares line ``y = intercept + slope x`` and its residual SD
    ``sqrt(sum(residual^2) / (n - 2))`` (NaN with fewer than 3 points or one x value).

    Examples
    --------
    >>> t = fit_trend([0, 1, 2, 3], [1, 3, 5, 7.5])
    >>> round(t["slope"], 3), round(t["intercept"], 3), round(t["resid_sd"], 3), t["n"]
    (2.15, 0.9, 0.194, 4)
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = int(x.size)
    if n == 0:
        return {"slope": math.nan, "intercept": math.nan, "resid_sd": math.nan, "n": 0}
    if np.ptp(x) == 0:
        return {"slope": math.nan, "intercept": float(y.mean()),
                "resid_sd": float(y.std(ddof=1)) if n > 1 else math.nan, "n": n}
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (intercept + slope * x)
    sd = float(np.sqrt((resid ** 2).sum() / (n - 2))) if n > 2 else math.nan
    return {"slope": float(slope), "intercept": float(intercept), "resid_sd": sd, "n": n}


def residuals(df: pd.DataFrame) -> pd.Series:
    """Each run's makespan minus its group's trend (``df`` holds one group's runs)."""
    t = fit_trend(df["f_comm"], df["makespan"])
    slope = 0.0 if math.isnan(t["slope"]) else t["slope"]
    return df["makespan"] - (t["intercept"] + slope * df["f_comm"])


def trends_frame(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per group of runs: ``by``, ``slope`` (s per unit of F_comm), ``intercept``, ``resid_sd``
    (s), ``resid_sd_rel`` (over the ``mean_makespan``), ``runs``, ``runs_with_kills`` and
    ``killed_share`` (killed jobs over jobs simulated).
    """
    rows = []
    for key, g in runs.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        t = fit_trend(g["f_comm"], g["makespan"])
        mean = float(g["makespan"].mean())
        rows.append({**dict(zip(by, key)), "slope": t["slope"], "intercept": t["intercept"],
                     "resid_sd": t["resid_sd"], "resid_sd_rel": t["resid_sd"] / mean,
                     "mean_makespan": mean, "runs": int(len(g)),
                     "runs_with_kills": int((g["jobs_killed"] > 0).sum()),
                     "killed_share": float(g["jobs_killed"].sum() / g["jobs"].sum())})
    return pd.DataFrame(rows)


def per_seed(values: pd.Series) -> pd.Series:
    """Mean of ``values`` (indexed by run keys, ``seed`` among them) per seed: one value per unit."""
    return values.groupby(level="seed").mean()


def _pair(runs: pd.DataFrame, keys: Sequence[str], a: str, b: str, column: str = "makespan"):
    """``(a's values, b's values)`` of the runs of variants a and b with equal ``keys``, aligned."""
    pa = runs[runs["variant"] == a].set_index(list(keys))[column].astype(float)
    pb = runs[runs["variant"] == b].set_index(list(keys))[column].astype(float)
    return pa.align(pb, join="inner")


def _evidence(diffs: pd.Series, thresholds: Mapping, min_effect: float = 0.0) -> Evidence:
    return paired_evidence(diffs.to_numpy(dtype=float), min_effect=min_effect, test=TEST,
                           alpha=float(thresholds["alpha"]))


def _fmt_ev(ev: Evidence, scale: float = 100.0, unit: str = " %") -> str:
    """``+2.1 % [+0.4, +3.8] over seeds, 2/2 seeds, paired t p = 0.02`` (no test with 1 seed)."""
    eff = f"{scale * ev.effect:+.3g}{unit}" if ev.n else "no seed"
    if ev.n < 2:
        return f"{eff}, {ev.holds}/{ev.n} seed: no test over seeds"
    return (f"{eff} [{scale * ev.low:+.3g}, {scale * ev.high:+.3g}], {ev.holds}/{ev.n} seeds, "
            f"paired t p = {ev.p:.2g}")


def compare(runs: pd.DataFrame, keys: Sequence[str], better: str, worse: str,
            thresholds: Mapping) -> dict:
    """Does ``better`` give a lower makespan than ``worse``, over seeds?

    Per run pair (equal ``keys``: seed, F_comm, platform) the relative gain
    (worse - better) / worse; per seed its mean over the pairs; then
    :func:`simlib.claims.paired_evidence` over seeds (paired t-test, no least
    effect). Returns ``verdict``, ``evidence``, ``gains`` (per seed),
    ``pairs`` (runs paired), ``better``, ``worse``.
    """
    x, y = _pair(runs, keys, better, worse)
    gains = per_seed((y - x) / y)
    ev = _evidence(gains, thresholds)
    return {"verdict": ev.verdict, "evidence": ev, "gains": gains, "pairs": int(x.size),
            "better": better, "worse": worse}


def _spreads(runs: pd.DataFrame, keys: Sequence[str], variant: str) -> pd.DataFrame:
    """Per seed: mean ``abs`` (s) and ``rel`` (over the mean makespan) residual SD of
    ``variant``'s makespan around its least-squares line vs F_comm, one line per seed and
    platform (``keys`` but F_comm), averaged over the platforms."""
    g = runs[runs["variant"] == variant]
    by = [k for k in keys if k != "f_comm"]
    rows = []
    for key, grp in g.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        sd = fit_trend(grp["f_comm"], grp["makespan"])["resid_sd"]
        rows.append({**dict(zip(by, key)), "abs": sd, "rel": sd / float(grp["makespan"].mean())})
    frame = pd.DataFrame(rows, columns=[*by, "abs", "rel"])
    return frame.groupby("seed")[["abs", "rel"]].mean()


def stability(runs: pd.DataFrame, keys: Sequence[str], stable: str, other: str,
              thresholds: Mapping) -> dict:
    """Is ``stable``'s makespan closer to its trend, relative to its mean, than ``other``'s?

    Per seed (and platform): residual SD of the makespan around its own
    least-squares line vs F_comm over the mean makespan (the *relative*
    spread: the variants' makespans differ by factors, so an absolute SD
    compares their levels as much as their stability); per seed the mean over
    platforms; the difference other - stable tested over seeds (paired
    t-test). The absolute spreads are returned beside (``abs``,
    ``abs_other``), not judged. Returns ``verdict``, ``evidence``, ``rel``,
    ``rel_other``, ``abs``, ``abs_other`` (means over seeds), ``stable``,
    ``other``.
    """
    s, o = _spreads(runs, keys, stable), _spreads(runs, keys, other)
    s, o = s.align(o, join="inner", axis=0)
    ok = np.isfinite(s["rel"]) & np.isfinite(o["rel"])
    s, o = s[ok], o[ok]
    ev = _evidence(o["rel"] - s["rel"], thresholds)
    return {"verdict": ev.verdict, "evidence": ev, "rel": float(s["rel"].mean()),
            "rel_other": float(o["rel"].mean()), "abs": float(s["abs"].mean()),
            "abs_other": float(o["abs"].mean()), "stable": stable, "other": other}


def friedman_best_p(n: int, k: int) -> float:
    """The smallest p-value a Friedman test of ``k`` groups over ``n`` blocks can give (every
    block ranking the groups alike: chi2 = n (k - 1)); 1 without blocks.

    Examples
    --------
    >>> [round(friedman_best_p(n, 4), 3) for n in (1, 2, 3)]
    [0.392, 0.112, 0.029]
    """
    from scipy.stats import chi2
    return float(chi2.sf(n * (k - 1), k - 1)) if n >= 1 and k >= 2 else 1.0


def no_effect(table: pd.DataFrame, thresholds: Mapping) -> dict:
    """Does a grouping have no effect on the makespan? ``table``: one row per seed, one column
    per group, each cell that seed's mean makespan in that group.

    Each seed's makespans are taken relative to that seed's mean over the
    groups; ``spread`` = max - min over groups of their mean relative
    makespan; ``upper``: the same spread between the extreme 95 % (1 - alpha)
    t-interval bounds (NaN with fewer than 2 seeds). Test over seeds: paired
    t-test of the relative difference for 2 groups, Friedman (blocks = seeds)
    for more. The rule, with ``tol`` the grid's ``spread``:

    - ``upper`` <= ``tol``: reproduced (no effect beyond the tolerance);
    - too few seeds for the test to reach alpha: inconclusive;
    - significant and ``spread`` > ``tol``: not reproduced (an effect);
    - not bounded and at least :data:`simlib.claims.MIN_UNITS` seeds: not
      reproduced; inconclusive with fewer.
    """
    from scipy import stats as sps
    alpha, tol = float(thresholds["alpha"]), float(thresholds["spread"])
    table = table.dropna()
    n, k = table.shape
    rel = table.div(table.mean(axis=1), axis=0) - 1.0
    means = rel.mean()
    spread = float(means.max() - means.min()) if n else math.nan
    upper = math.nan
    if n >= 2:
        half = sps.t.ppf(1 - alpha / 2, n - 1) * rel.std(ddof=1) / math.sqrt(n)
        upper = float((means + half).max() - (means - half).min())
    if k == 2:
        d = rel.iloc[:, 0] - rel.iloc[:, 1]
        p = (float(sps.ttest_1samp(d, 0.0).pvalue) if n >= 2 and d.std() > 0
             else (0.0 if n >= 2 and d.mean() != 0 else 1.0))
        test, undecidable = "paired t", n < 2
    else:
        p = 1.0
        if n >= 2 and k >= 3:
            with np.errstate(invalid="ignore", divide="ignore"):
                stat = sps.friedmanchisquare(*[table[c] for c in table.columns])
            p = float(stat.pvalue) if np.isfinite(stat.pvalue) else 1.0
        test, undecidable = "Friedman", friedman_best_p(n, k) >= alpha
    if np.isfinite(upper) and upper <= tol:
        verdict = Verdict.REPRODUCED
    elif undecidable:
        verdict = Verdict.INCONCLUSIVE
    elif p < alpha and spread > tol:
        verdict = Verdict.NOT_REPRODUCED
    elif n >= MIN_UNITS:
        verdict = Verdict.NOT_REPRODUCED
    else:
        verdict = Verdict.INCONCLUSIVE
    return {"verdict": verdict, "spread": spread, "upper": upper, "p": p, "test": test,
            "undecidable": undecidable, "n": n, "groups": k}


def _fmt_no_effect(name: str, r: Mapping, alpha: float) -> str:
    bound = f", bound {100 * r['upper']:.1f} %" if np.isfinite(r["upper"]) else ""
    if r["n"] < 2:
        test = f"{r['n']} seed: no test"
    elif r["undecidable"]:
        test = f"{r['test']} over {r['n']} seeds cannot reach p < {alpha:g}"
    else:
        test = f"{r['test']} over {r['n']} seeds p = {r['p']:.2g}"
    return f"{name}: spread {100 * r['spread']:.1f} %{bound} ({test}) -> {r['verdict'].value}"


def _tally(verdicts: Sequence[Verdict]) -> str:
    """``2/3 cases reproduced (1 inconclusive)``: the counts behind a combined verdict."""
    vs = list(verdicts)
    others = {v.value: vs.count(v) for v in Verdict if v is not Verdict.REPRODUCED and v in vs}
    rest = ", ".join(f"{c} {w}" for w, c in others.items())
    return f"{vs.count(Verdict.REPRODUCED)}/{len(vs)} cases reproduced" + (
        f" ({rest})" if rest else "")


def _models(homogeneous: pd.DataFrame) -> list[str]:
    """The homogeneous models run: the printed reading first, then the others by name."""
    return sorted(set(homogeneous["model"]), key=lambda m: (m != "printed", m))


def readings(homogeneous: pd.DataFrame | None, heterogeneous: pd.DataFrame | None,
             which: str = "both") -> list[tuple[str, pd.DataFrame, list[str], str]]:
    """``(reading, runs, pairing keys, figure)`` of each reading a claim is tested on:
    ``which`` is homogeneous (one reading per model), heterogeneous or both."""
    out = []
    if homogeneous is not None and which in ("homogeneous", "both"):
        for model in _models(homogeneous):
            out.append((f"homogeneous, {model} model",
                        homogeneous[homogeneous["model"] == model], ["seed", "f_comm"],
                        f"fig1_homogeneous_{model}.png"))
    if heterogeneous is not None and which in ("heterogeneous", "both"):
        out.append(("heterogeneous (both sets, all orderings)", heterogeneous,
                    ["set", "ordering", "seed", "f_comm"], "fig3_heterogeneous.png"))
    return out


def _fmt_compare(c: Mapping) -> str:
    return (f"{c['better']} vs {c['worse']}: gain {_fmt_ev(c['evidence'])} -> "
            f"{c['verdict'].value}")


def _fmt_stability(s: Mapping) -> str:
    if s["evidence"].n == 0:
        return (f"{s['stable']} vs {s['other']}: no residual spread (a line through fewer than 3 "
                f"F_comm values leaves none) -> {s['verdict'].value}")
    return (f"{s['stable']} vs {s['other']}: relative residual SD {100 * s['rel']:.3g} % vs "
            f"{100 * s['rel_other']:.3g} % (absolute {s['abs']:.3g} s vs {s['abs_other']:.3g} s), "
            f"difference {_fmt_ev(s['evidence'], unit=' points')} -> {s['verdict'].value}")


def claim_texts(thresholds: Mapping) -> dict[str, dict[str, str]]:
    """Each criterion's claim and rule, in words (template ``claims.yaml.j2``)."""
    return yaml.safe_load(render(__package__, "claims.yaml.j2", th=thresholds,
                                 min_units=MIN_UNITS,
                                 sign_min=sign_test_min_units(thresholds["alpha"])))


def sign_test_min_units(alpha: float) -> int:
    """The fewest units with which a two-sided exact sign test can reach p < ``alpha``.

    Examples
    --------
    >>> sign_test_min_units(0.05)
    6
    """
    n = 1
    while 2 * 0.5 ** n >= alpha:
        n += 1
    return n


def _n_text(ns: Sequence[int]) -> str:
    """Seeds behind a claim's cases: ``2``, or ``1-2`` when they differ."""
    ns = sorted(set(int(n) for n in ns))
    if not ns:
        return "0"
    return str(ns[0]) if len(ns) == 1 else f"{ns[0]}-{ns[-1]}"


def _claim(published, thresholds, key, reading, ours, verdict, figure, n) -> Claim:
    block, words = published["claims"][key], claim_texts(thresholds)[key]
    return Claim(paper=PAPER, claim=words["claim"], source=block["source"],
                 published=f"\"{block['statement']}\"", ours=ours,
                 criterion=words["criterion"], verdict=verdict, figure=figure, reading=reading,
                 unit=UNIT, n=n, key=key)


def _paired_criterion(key: str, test, describe, pairs: Sequence[tuple[str, str]]):
    """The criterion ``key``: ``test`` (:func:`compare` or :func:`stability`) of every pair
    of variants, per reading (every homogeneous model, and the heterogeneous experiment);
    each case said by ``describe``, the cases combined by :func:`simlib.claims.combine_cases`."""
    def criterion(published, homogeneous, thresholds, heterogeneous=None) -> list[Claim]:
        out = []
        for reading, runs, keys, figure in readings(homogeneous, heterogeneous, "both"):
            have = set(runs["variant"])
            cases = [test(runs, keys, a, b, thresholds) for a, b in pairs if {a, b} <= have]
            verdicts = [c["verdict"] for c in cases]
            ours = "; ".join(map(describe, cases)) or "variants not run"
            if len(cases) > 1:
                ours += f"; {_tally(verdicts)}"
            out.append(_claim(published, thresholds, key, reading, ours,
                              combine_cases(verdicts), figure,
                              _n_text(c["evidence"].n for c in cases)))
        return out
    criterion.__name__ = criterion.__qualname__ = key
    return criterion


#: (a) basic is the worst variant: every other variant beats it.
basic_worst = _paired_criterion("basic_worst", compare, _fmt_compare, [(v, "basic") for v in (
    "best_effort_contiguous", "best_effort_local", "contiguous", "local")])
#: (b) contiguous and best-effort contiguous beat basic.
contiguity_helps = _paired_criterion("contiguity_helps", compare, _fmt_compare, [
    ("contiguous", "basic"), ("best_effort_contiguous", "basic")])
#: (c) local beats contiguous; best-effort local beats best-effort contiguous.
locality_helps_more = _paired_criterion("locality_helps_more", compare, _fmt_compare, [
    ("local", "contiguous"), ("best_effort_local", "best_effort_contiguous")])
#: (d) each strict variant beats its best-effort counterpart.
strict_beat_best_effort = _paired_criterion("strict_beat_best_effort", compare, _fmt_compare,
                                            list(STRICT.items()))
#: (e) each strict variant's makespan is relatively closer to its trend than its counterpart's.
strict_more_stable = _paired_criterion("strict_more_stable", stability, _fmt_stability,
                                       list(STRICT.items()))


def _gap(runs: pd.DataFrame, keys: Sequence[str]) -> pd.Series:
    """Per seed: mean over its runs (F_comm, platforms) of the relative gap (basic - local) / local."""
    b, loc = _pair(runs, keys, "basic", "local")
    return per_seed((b - loc) / loc)


def gap_larger_heterogeneous(published, homogeneous, heterogeneous, thresholds) -> list[Claim]:
    """(f) The basic-local gap is *greatly* larger on the heterogeneous platforms, per
    homogeneous reading: over the seeds run in both experiments, the per-seed increase
    (heterogeneous gap - homogeneous gap) tested with the least effect
    max(mean homogeneous gap, ``spread``): at least a doubling, and at least the margin
    below which (h) calls a difference not great; contradicted when significantly smaller by
    at least ``spread``."""
    if not {"basic", "local"} <= set(heterogeneous["variant"]):
        return []
    het = _gap(heterogeneous, ["set", "ordering", "seed", "f_comm"])
    out = []
    for model in _models(homogeneous):
        hom_runs = homogeneous[homogeneous["model"] == model]
        if not {"basic", "local"} <= set(hom_runs["variant"]):
            continue
        x, y = het.align(_gap(hom_runs, ["seed", "f_comm"]), join="inner")
        margin = float(thresholds["spread"])
        least = max(float(y.mean()) if y.size else 0.0, margin)
        ev = _evidence(x - y, thresholds, min_effect=least)
        verdict = ev.verdict
        if ev.p < float(thresholds["alpha"]) and ev.effect <= -margin and ev.n >= 2:
            # Significantly smaller by at least the margin: the opposite of an increase.
            verdict = Verdict.CONTRADICTED
        out.append(_claim(
            published, thresholds, "gap_larger_heterogeneous",
            f"homogeneous {model} model vs heterogeneous",
            f"relative gap (basic - local) / local: heterogeneous {100 * x.mean():+.1f} % vs "
            f"homogeneous {100 * y.mean():+.1f} % (seeds run in both); increase "
            f"{_fmt_ev(ev, unit=' points')}; least increase {100 * least:.1f} points",
            verdict, "fig3_heterogeneous.png", str(ev.n)))
    return out


def _by_seed(g: pd.DataFrame, column: str) -> pd.DataFrame:
    """Seeds x values of ``column``: each seed's mean makespan per group."""
    return g.pivot_table(index="seed", columns=column, values="makespan", aggfunc="mean")


def no_ordering_effect(published, heterogeneous, thresholds) -> list[Claim]:
    """(g) No effect of the cluster ordering: per set and variant, :func:`no_effect` over
    the orderings (each seed's mean over F_comm); cases combined by majority."""
    alpha = float(thresholds["alpha"])
    results, parts = [], []
    for (set_name, variant), g in heterogeneous.groupby(["set", "variant"], sort=True):
        r = no_effect(_by_seed(g, "ordering"), thresholds)
        results.append(r)
        parts.append(_fmt_no_effect(f"{set_name}/{variant}", r, alpha))
    verdicts = [r["verdict"] for r in results]
    return [_claim(published, thresholds, "no_ordering_effect",
                   "heterogeneous, per set and variant",
                   "; ".join(parts) + f"; {_tally(verdicts)}", combine_cases(verdicts),
                   "fig3_heterogeneous_by_ordering.png", _n_text(r["n"] for r in results))]


def no_set_difference(published, heterogeneous, thresholds) -> list[Claim]:
    """(h) No great difference between the low and high sets: per variant, :func:`no_effect`
    over the two sets (each seed's mean over orderings and F_comm); cases by majority."""
    if heterogeneous["set"].nunique() < 2:
        return []
    alpha = float(thresholds["alpha"])
    results, parts = [], []
    for variant, g in heterogeneous.groupby("variant", sort=True):
        r = no_effect(_by_seed(g, "set"), thresholds)
        results.append(r)
        parts.append(_fmt_no_effect(variant, r, alpha))
    verdicts = [r["verdict"] for r in results]
    return [_claim(published, thresholds, "no_set_difference", "heterogeneous, per variant",
                   "; ".join(parts) + f"; {_tally(verdicts)}", combine_cases(verdicts),
                   "fig3_heterogeneous_by_set.png", _n_text(r["n"] for r in results))]


#: Every criterion, in the claims' order.
CRITERIA = [basic_worst, contiguity_helps, locality_helps_more, strict_beat_best_effort,
            strict_more_stable, gap_larger_heterogeneous, no_ordering_effect, no_set_difference]


def claims(published: Mapping, homogeneous: pd.DataFrame, heterogeneous: pd.DataFrame,
           thresholds: Mapping) -> list[Claim]:
    """Every claim, per reading, from the two experiments' runs (:func:`runs_frame`)."""
    # Each criterion returns one claim per reading it is tested on.
    return [c for found in apply_criteria(CRITERIA, published=published, homogeneous=homogeneous,
                                          heterogeneous=heterogeneous, thresholds=thresholds)
            for c in found]


def claims_step(ctx) -> None:
    """Step ``dutot_claims``: ``paper_figures/dutot/claims.csv`` from the two cubes."""
    from simlib.claims import verdict_counts
    from simlib.cube import read_cube
    published = load_published(ctx.input.published)
    hom = runs_frame(read_cube(ctx.input.homogeneous))
    het = runs_frame(read_cube(ctx.input.heterogeneous))
    found = claims(published, hom, het, ctx.params["thresholds"])
    write_claims(found, ctx.output.csv, scale=ctx.params["scale"])
    ctx.log.info("%d claims: %s", len(found), verdict_counts(found))
