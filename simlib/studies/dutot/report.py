"""Paper D's trends and claims (step ``dutot_claims``; used by the figures and README).

:func:`runs_frame` gives a cube as one row per run; :func:`trends_frame`
the least-squares trend of makespan vs F_comm per group of runs (the
paper's "linear trendline"), its residual SD (our measure of *stability*)
and the killed jobs; one criterion per claim (:data:`CRITERIA`) returns one
:class:`simlib.claims.Claim` per *reading* (the homogeneous platform's
model; the heterogeneous experiment), its verdict following its rule
mechanically.

Runs are *paired* when they share the workload and F_comm (and, on the
heterogeneous platforms, the platform): two variants, or two experiments,
on the same jobs. Each case of a claim *holds*, is *opposite* or *neither*
(:func:`compare`, :func:`stability`, :func:`no_effect`, with the grid's
thresholds ``studies.dutot.claims``); a claim is reproduced when every case
holds, contradicted when every case is opposite, partly reproduced when some
hold (:func:`combine`). Each rule in words, as the claims file and README
state it: ``templates/claims.yaml.j2``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import yaml

from simlib.claims import Claim, Verdict, apply_criteria, verdict_from_sign, write_claims
from simlib.render import render

from .published import load_published

__all__ = ["PAPER", "runs_frame", "fit_trend", "trends_frame", "compare", "combine",
           "stability", "no_effect", "readings", "claim_texts", "basic_worst", "contiguity_helps",
           "locality_helps_more", "strict_beat_best_effort", "strict_more_stable",
           "gap_larger_heterogeneous", "no_ordering_effect", "no_set_difference", "CRITERIA",
           "claims", "claims_step"]

#: Paper id of the claims (the study key).
PAPER = "dutot"
#: The strict variants and their best-effort counterparts.
STRICT = {"contiguous": "best_effort_contiguous", "local": "best_effort_local"}
HOLDS, OPPOSITE, NEITHER = "holds", "opposite", "neither"


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


def _sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test of ``wins`` vs ``losses`` (ties left out)."""
    from scipy.stats import binomtest
    n = wins + losses
    return float(binomtest(wins, n, 0.5).pvalue) if n else 1.0


def _wilcoxon(diff) -> float:
    """Two-sided Wilcoxon signed-rank test of paired differences (1 when all are 0)."""
    from scipy.stats import wilcoxon
    d = np.asarray(diff, dtype=float)
    d = d[np.isfinite(d)]
    if d.size == 0 or not np.any(d != 0):
        return 1.0
    return float(wilcoxon(d).pvalue)


def _paired(runs: pd.DataFrame, keys: Sequence[str], a: str, b: str, column: str = "makespan"):
    """``(values of a, values of b)`` of the pairs (equal ``keys``) of variants a and b."""
    pa = runs[runs["variant"] == a].set_index(list(keys))[column]
    pb = runs[runs["variant"] == b].set_index(list(keys))[column]
    pa, pb = pa.align(pb, join="inner")
    return pa.to_numpy(dtype=float), pb.to_numpy(dtype=float)


def _outcome(n: int, wins: int, losses: int, p: float, thresholds: Mapping) -> str:
    """Holds: wins in a share >= ``share`` of the ``n`` pairs and p < ``alpha``; opposite:
    the same for losses; else neither."""
    share, alpha = float(thresholds["share"]), float(thresholds["alpha"])
    if n and p < alpha and wins / n >= share:
        return HOLDS
    if n and p < alpha and losses / n >= share:
        return OPPOSITE
    return NEITHER


def compare(runs: pd.DataFrame, keys: Sequence[str], better: str, worse: str,
            thresholds: Mapping) -> dict:
    """Does ``better`` beat ``worse`` (lower makespan) over the pairs? A two-sided exact sign
    test, ties left out (:func:`_outcome`). ``outcome``, ``pairs``, ``wins``, ``losses``,
    ``share`` (of wins), ``p``, ``gain`` (mean of (worse - better) / worse).
    """
    x, y = _paired(runs, keys, better, worse)
    n = int(x.size)
    wins, losses = int((x < y).sum()), int((x > y).sum())
    p = _sign_test(wins, losses)
    gain = float(np.mean((y - x) / y)) if n else math.nan
    return {"outcome": _outcome(n, wins, losses, p, thresholds), "pairs": n, "wins": wins, "losses": losses,
            "share": wins / n if n else math.nan, "p": p, "gain": gain,
            "better": better, "worse": worse}


def stability(runs: pd.DataFrame, keys: Sequence[str], stable: str, other: str,
              thresholds: Mapping) -> dict:
    """Is ``stable``'s makespan closer to its own trend than ``other``'s? Holds when its
    residual SD is below and a Wilcoxon signed-rank test of the paired absolute residuals has
    p < ``alpha``; opposite the other way round. ``outcome``, ``sd`` and ``sd_other``,
    ``ratio``, ``pairs``, ``p``.
    """
    res = {}
    for v in (stable, other):
        g = runs[runs["variant"] == v]
        res[v] = g.assign(resid=residuals(g).abs()).set_index(list(keys))["resid"]
    x, y = res[stable].align(res[other], join="inner")
    sd, sd_o = (fit_trend(g["f_comm"], g["makespan"])["resid_sd"]
                for g in (runs[runs["variant"] == v] for v in (stable, other)))
    p = _wilcoxon(x.to_numpy() - y.to_numpy())
    alpha = float(thresholds["alpha"])
    outcome = NEITHER
    if np.isfinite(sd) and np.isfinite(sd_o) and p < alpha:
        outcome = HOLDS if sd < sd_o else OPPOSITE if sd > sd_o else NEITHER
    return {"outcome": outcome, "sd": sd, "sd_other": sd_o,
            "ratio": sd / sd_o if sd_o else math.nan, "pairs": int(x.size), "p": p,
            "stable": stable, "other": other}


def no_effect(means: Mapping[str, float], p: float, thresholds: Mapping) -> dict:
    """Do group means differ by at most ``spread`` of their mean (holds)? Wider with the paired
    test's ``p`` < ``alpha``: opposite (an effect).
    """
    values = np.array(list(means.values()), dtype=float)
    spread = float(np.ptp(values) / values.mean()) if values.size else math.nan
    outcome = (HOLDS if spread <= float(thresholds["spread"]) else
               OPPOSITE if p < float(thresholds["alpha"]) else NEITHER)
    return {"outcome": outcome, "spread": spread, "p": p, "means": dict(means)}


def combine(outcomes: Sequence[str]) -> Verdict:
    """Verdict of a claim from its cases' outcomes."""
    outcomes = list(outcomes)
    return verdict_from_sign(outcomes.count(HOLDS), outcomes.count(OPPOSITE), len(outcomes))


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
    return (f"{c['better']} < {c['worse']} in {c['wins']}/{c['pairs']} pairs "
            f"({c['losses']} the other way; sign test p = {c['p']:.2g}; mean gain "
            f"{100 * c['gain']:+.1f} %)")


def _fmt_stability(s: Mapping) -> str:
    return (f"residual SD {s['stable']} {s['sd']:.4g} s vs {s['other']} {s['sd_other']:.4g} s "
            f"(ratio {s['ratio']:.2f}; Wilcoxon on paired |residuals| p = {s['p']:.2g}, "
            f"{s['pairs']} pairs)")


def claim_texts(thresholds: Mapping) -> dict[str, dict[str, str]]:
    """Each criterion's claim and rule, in words (template ``claims.yaml.j2``)."""
    return yaml.safe_load(render(__package__, "claims.yaml.j2", th=thresholds))


def _claim(published, thresholds, key, reading, ours, verdict, figure) -> Claim:
    block, words = published["claims"][key], claim_texts(thresholds)[key]
    return Claim(paper=PAPER, claim=words["claim"], source=block["source"],
                 published=f"\"{block['statement']}\"", ours=ours,
                 criterion=words["criterion"], verdict=verdict, figure=figure, reading=reading)


def _paired_criterion(key: str, test, describe, pairs: Sequence[tuple[str, str]],
                      which: str = "homogeneous"):
    """The criterion ``key``: ``test`` (:func:`compare` or :func:`stability`) of every pair
    of variants, per reading; each case said by ``describe``."""
    def criterion(published, homogeneous, thresholds, heterogeneous=None) -> list[Claim]:
        out = []
        for reading, runs, keys, figure in readings(homogeneous, heterogeneous, which):
            have = set(runs["variant"])
            cases = [test(runs, keys, a, b, thresholds) for a, b in pairs if {a, b} <= have]
            out.append(_claim(published, thresholds, key, reading,
                              "; ".join(map(describe, cases)) or "variants not run",
                              combine([c["outcome"] for c in cases]), figure))
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
#: (d) each strict variant beats its best-effort counterpart (homogeneous and heterogeneous).
strict_beat_best_effort = _paired_criterion("strict_beat_best_effort", compare, _fmt_compare,
                                            list(STRICT.items()), "both")
#: (e) each strict variant's makespan is closer to its trend than its best-effort counterpart's.
strict_more_stable = _paired_criterion("strict_more_stable", stability, _fmt_stability,
                                       list(STRICT.items()), "both")


def _gaps(runs: pd.DataFrame, keys: Sequence[str]) -> pd.Series:
    """Relative gap (basic - local) / local of each pair, indexed by ``keys``."""
    b, loc = _paired(runs, keys, "basic", "local")
    idx = runs[runs["variant"] == "basic"].set_index(list(keys)).index
    idx = idx.intersection(runs[runs["variant"] == "local"].set_index(list(keys)).index)
    return pd.Series((b - loc) / loc, index=idx.sort_values())


def gap_larger_heterogeneous(published, homogeneous, heterogeneous, thresholds) -> list[Claim]:
    """(f) The basic-local gap is larger on heterogeneous than on homogeneous platforms, paired."""
    if not {"basic", "local"} <= set(heterogeneous["variant"]):
        return []
    het_gap = _gaps(heterogeneous, ["set", "ordering", "seed", "f_comm"]).groupby(
        ["seed", "f_comm"]).mean()
    out = []
    for model in _models(homogeneous):
        hom = homogeneous[homogeneous["model"] == model]
        if not {"basic", "local"} <= set(hom["variant"]):
            continue
        x, y = het_gap.align(_gaps(hom, ["seed", "f_comm"]), join="inner")
        n, wins, losses = int(x.size), int((x > y).sum()), int((x < y).sum())
        p = _sign_test(wins, losses)
        out.append(_claim(
            published, thresholds, "gap_larger_heterogeneous",
            f"homogeneous {model} model vs heterogeneous",
            f"relative gap (basic - local) / local: heterogeneous {100 * x.mean():+.1f} % vs "
            f"homogeneous {100 * y.mean():+.1f} % on average; larger in {wins}/{n} pairs "
            f"({losses} smaller; sign test p = {p:.2g})",
            combine([_outcome(n, wins, losses, p, thresholds)]), "fig3_heterogeneous.png"))
    return out


def no_ordering_effect(published, heterogeneous, thresholds) -> list[Claim]:
    """(g) No effect of the cluster ordering: per set and variant, orderings' means within ``spread``."""
    from scipy.stats import friedmanchisquare
    cases, parts = [], []
    for (set_name, variant), g in heterogeneous.groupby(["set", "variant"], sort=True):
        table = g.pivot_table(index=["seed", "f_comm"], columns="ordering",
                              values="makespan").dropna()
        p = 1.0
        if table.shape[1] >= 3 and table.shape[0] >= 2:
            with np.errstate(invalid="ignore", divide="ignore"):
                stat = friedmanchisquare(*[table[c] for c in table.columns])
            p = float(stat.pvalue) if np.isfinite(stat.pvalue) else 1.0
        r = no_effect(table.mean().to_dict(), p, thresholds)
        cases.append(r["outcome"])
        parts.append(f"{set_name}/{variant}: spread {100 * r['spread']:.1f} % (Friedman p = "
                     f"{p:.2g})")
    return [_claim(published, thresholds, "no_ordering_effect",
                   "heterogeneous, per set and variant", "; ".join(parts), combine(cases),
                   "fig3_heterogeneous_by_ordering.png")]


def no_set_difference(published, heterogeneous, thresholds) -> list[Claim]:
    """(h) No difference between the low and high sets, per variant."""
    sets = sorted(set(heterogeneous["set"]))
    if len(sets) < 2:
        return []
    cases, parts = [], []
    for variant, g in heterogeneous.groupby("variant", sort=True):
        table = g.pivot_table(index=["ordering", "seed", "f_comm"], columns="set",
                              values="makespan").dropna()
        means = table.mean().to_dict()
        p = _wilcoxon(table[sets[0]] - table[sets[1]]) if len(sets) == 2 else 1.0
        r = no_effect(means, p, thresholds)
        cases.append(r["outcome"])
        parts.append(f"{variant}: " + " vs ".join(f"{s} {means[s]:.4g} s" for s in sets)
                     + f", spread {100 * r['spread']:.1f} % (Wilcoxon p = {p:.2g})")
    return [_claim(published, thresholds, "no_set_difference", "heterogeneous, per variant",
                   "; ".join(parts), combine(cases), "fig3_heterogeneous_by_set.png")]


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
