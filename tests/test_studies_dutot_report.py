"""Paper D's trends and claims (simlib.studies.dutot.report): every rule can give
every verdict it claims to, on hand-made runs; the unit of replication is the seed."""
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.claims import Verdict, read_claims, sign_test_p
from simlib.cube import write_cube
from simlib.studies.dutot.cubes import build
from simlib.studies.dutot.published import load_published
from simlib.studies.dutot.report import (CRITERIA, UNIT, basic_worst, claim_texts, claims,
                                         claims_step, compare, contiguity_helps, fit_trend,
                                         friedman_best_p, gap_larger_heterogeneous,
                                         locality_helps_more, no_effect, no_ordering_effect,
                                         no_set_difference, readings, runs_frame,
                                         sign_test_min_units, stability,
                                         strict_beat_best_effort, strict_more_stable,
                                         trends_frame)

REPO = Path(__file__).resolve().parents[1]
PUB = load_published(REPO / "config/published/dutot.yaml")
VARIANTS = ["basic", "best_effort_contiguous", "best_effort_local", "contiguous", "local"]
F = [0.0, 1e8, 2e8, 3e8]
#: The repository grid's thresholds (studies.dutot.claims).
DEFAULTS = {"alpha": 0.05, "spread": 0.05}
R, C, NR, X, INC, P = (Verdict.REPRODUCED, Verdict.CONTRADICTED, Verdict.NOT_REPRODUCED,
                       Verdict.INCONCLUSIVE, Verdict.INCONCLUSIVE, Verdict.PARTLY)


def _sign(*ints):
    return 1 if sum(ints) % 2 else -1


def hom_runs(level, seeds=4, models=("printed",), noise=None, seed_noise=None):
    """Homogeneous runs: makespan = level[v] (1 + f / 1e8) (1 + seed_noise[v] * +-1 by seed)
    + noise[v] * +-1 (alternating over F_comm and seeds)."""
    rows = []
    for model, v, s, f in itertools.product(models, VARIANTS, range(seeds), F):
        k = int(f / 1e8)
        factor = 1 + (seed_noise or {}).get(v, 0.0) * _sign(s)
        rows.append({"model": model, "variant": v, "seed": s, "f_comm": f,
                     "makespan": level[v] * (1 + f / 1e8) * factor
                     + (noise or {}).get(v, 0.0) * _sign(s, k),
                     "jobs_killed": 0, "jobs": 10, "mean_execution": 1.0, "mean_wait": 1.0})
    return pd.DataFrame(rows)


def het_runs(level, seeds=4, by_ordering=None, by_set=None, seed_noise=0.0, cases=None):
    """Heterogeneous runs; ``by_ordering``/``by_set`` factors apply to the (set, variant)
    ``cases`` given (all when None); ``seed_noise``: a per-(seed, ordering, set) factor."""
    rows = []
    for st, o, v, s, f in itertools.product(("high", "low"), ("o1", "o2", "o3", "o4"), VARIANTS,
                                            range(seeds), F):
        on = cases is None or (st, v) in cases or v in cases
        factor = ((by_ordering or {}).get(o, 1.0) * (by_set or {}).get(st, 1.0)) if on else 1.0
        wiggle = 1 + seed_noise * (((s * 7 + int(o[1]) * 3 + (st == "low")) % 5) - 2) / 2
        rows.append({"set": st, "ordering": o, "variant": v, "seed": s, "f_comm": f,
                     "makespan": level[v] * (1 + f / 1e8) * factor * wiggle, "jobs_killed": 0,
                     "jobs": 10, "mean_execution": 1.0, "mean_wait": 1.0})
    return pd.DataFrame(rows)


#: The paper's picture: basic worst, contiguity better, locality better still, strict best.
PAPER = {"basic": 10.0, "best_effort_contiguous": 8.0, "contiguous": 7.0,
         "best_effort_local": 5.0, "local": 4.0}
#: The opposite picture.
REVERSED = {"basic": 4.0, "best_effort_contiguous": 5.0, "contiguous": 7.0,
            "best_effort_local": 8.0, "local": 10.0}
FLAT = {v: 5.0 for v in VARIANTS}
#: Every variant but basic wobbles from seed to seed, so that no comparison is consistent.
WOBBLE = {v: 0.05 for v in VARIANTS if v != "basic"}


def verdicts(found):
    return [c.verdict for c in found]


def test_fit_trend_and_trends_frame():
    t = fit_trend([0, 1, 2], [1, 3, 5])
    assert t["slope"] == pytest.approx(2) and t["intercept"] == pytest.approx(1)
    assert t["resid_sd"] == pytest.approx(0, abs=1e-12)
    assert np.isnan(fit_trend([0, 1], [1, 2])["resid_sd"])  # two points: no residual
    assert np.isnan(fit_trend([1, 1], [1, 2])["slope"])
    tf = trends_frame(hom_runs(PAPER), ["model", "variant"]).set_index("variant")
    assert tf.loc["basic", "slope"] == pytest.approx(10.0 / 1e8)
    assert tf.loc["local", "mean_makespan"] == pytest.approx(4.0 * 2.5)
    assert (tf["runs"] == 16).all() and (tf["killed_share"] == 0).all()
    killed = pd.DataFrame({"variant": ["a"] * 3, "f_comm": [0.0, 1.0, 2.0],
                           "makespan": [1.0, 2.0, 3.0], "jobs_killed": [0, 0, 3], "jobs": [10] * 3})
    r = trends_frame(killed, ["variant"]).iloc[0]
    assert (r["runs_with_kills"], r["killed_share"]) == (1, 0.1)


def test_correlated_pairs_are_one_unit():
    """48 pairs from one seed (6 F_comm x 8 platforms): every pair agrees, and a sign test over
    pairs would say p ~ 1e-14; over seeds there is one unit: inconclusive. Many seeds decide."""
    het = het_runs(PAPER, seeds=1)
    x = het[het["variant"] == "local"]["makespan"].to_numpy()
    y = het[het["variant"] == "basic"]["makespan"].to_numpy()
    assert x.size == 32 and sign_test_p(y - x) < 1e-8
    c = compare(het, ["set", "ordering", "seed", "f_comm"], "local", "basic", DEFAULTS)
    assert c["pairs"] == 32 and c["evidence"].n == 1 and c["verdict"] is INC
    many = compare(het_runs(PAPER, seeds=12, seed_noise=0.1), ["set", "ordering", "seed", "f_comm"],
                   "local", "basic", DEFAULTS)
    assert many["evidence"].n == 12 and many["verdict"] is R
    assert many["gains"].index.tolist() == list(range(12))
    found = strict_beat_best_effort(PUB, hom_runs(PAPER, seeds=1), DEFAULTS, het_runs(PAPER, 1))
    assert verdicts(found) == [INC, INC] and {c.n for c in found} == {"1"}
    assert sign_test_min_units(0.05) == 6


@pytest.mark.parametrize("criterion", [basic_worst, contiguity_helps, locality_helps_more,
                                       strict_beat_best_effort])
def test_beats_claims_give_every_verdict(criterion):
    def verdict(level, **kw):
        return verdicts(criterion(PUB, hom_runs(level, **kw), DEFAULTS))

    assert verdict(PAPER) == [R]
    assert verdict(REVERSED) == [C]
    # No difference, 4 seeds: too few to call it absent; 12 seeds: not reproduced.
    assert verdict(FLAT, seed_noise=WOBBLE) == [INC]
    assert verdict(FLAT, seeds=12, seed_noise=WOBBLE) == [NR]
    assert verdict(PAPER, seeds=1) == [INC]


def test_partly_means_a_majority_of_the_comparisons():
    # (a) has 4 comparisons: 3 hold and one is flat over 12 seeds -> partly.
    three = {**PAPER, "best_effort_contiguous": 10.0}
    wob = {"best_effort_contiguous": 0.05}
    found = basic_worst(PUB, hom_runs(three, seeds=12, seed_noise=wob), DEFAULTS)
    assert verdicts(found) == [P] and "3/4 cases reproduced (1 not reproduced)" in found[0].ours
    # 2 of 4: no majority -> not reproduced.
    two = {**three, "contiguous": 10.0}
    wob2 = {"best_effort_contiguous": 0.05, "contiguous": 0.05}
    assert verdicts(basic_worst(PUB, hom_runs(two, seeds=12, seed_noise=wob2), DEFAULTS)) == [NR]
    # 2 hold, 2 undecided (4 seeds): inconclusive (they could make a majority).
    assert verdicts(basic_worst(PUB, hom_runs(two, seed_noise=wob2), DEFAULTS)) == [INC]


def test_claims_are_given_per_reading_on_both_experiments():
    hom = hom_runs(PAPER, models=("printed", "griffon", "base"))
    for criterion in (basic_worst, contiguity_helps, locality_helps_more,
                      strict_beat_best_effort, strict_more_stable):
        found = criterion(PUB, hom, DEFAULTS, het_runs(REVERSED))
        assert [c.reading for c in found] == [
            "homogeneous, printed model", "homogeneous, base model", "homogeneous, griffon model",
            "heterogeneous (both sets, all orderings)"]
    found = strict_beat_best_effort(PUB, hom, DEFAULTS, het_runs(REVERSED))
    assert verdicts(found) == [R, R, R, C]
    assert found[0].source == "§5.3, Fig. 1; §5.4, Fig. 3"
    assert found[0].published.startswith('"The strict heuristics')
    assert {(c.unit, c.n, c.key) for c in found} == {(UNIT, "4", "strict_beat_best_effort")}
    assert [r[0] for r in readings(hom, None, "homogeneous")][:2] == [
        "homogeneous, printed model", "homogeneous, base model"]


def test_stability_is_judged_relative_to_the_mean():
    """The strict variants' makespans are 10x smaller: their absolute residual SD is smaller
    although, relative to their mean, they wander more. Relative spread decides."""
    level = {**PAPER, "contiguous": 1.0, "local": 1.0, "best_effort_contiguous": 10.0,
             "best_effort_local": 10.0}
    noise = {"contiguous": 0.2, "local": 0.2, "best_effort_contiguous": 1.0,
             "best_effort_local": 1.0}
    runs = hom_runs(level, noise=noise)
    s = stability(runs, ["seed", "f_comm"], "contiguous", "best_effort_contiguous", DEFAULTS)
    assert s["abs"] < s["abs_other"]  # absolute: the strict variant looks more stable
    assert s["rel"] > s["rel_other"]  # relative: it is less stable
    assert s["verdict"] is C
    found = strict_more_stable(PUB, runs, DEFAULTS)
    assert verdicts(found) == [C] and "absolute" in found[0].ours


def test_stability_gives_every_verdict():
    stable = hom_runs(PAPER, noise={"best_effort_contiguous": 2.0, "best_effort_local": 2.0,
                                    "contiguous": 0.1, "local": 0.1})
    assert verdicts(strict_more_stable(PUB, stable, DEFAULTS)) == [R]
    unstable = hom_runs(PAPER, noise={"best_effort_contiguous": 0.1, "best_effort_local": 0.1,
                                      "contiguous": 2.0, "local": 2.0})
    assert verdicts(strict_more_stable(PUB, unstable, DEFAULTS)) == [C]
    # Equal relative noise, seeds scattering either way: 4 seeds inconclusive, 12 not reproduced.
    same = {"best_effort_contiguous": 0.8, "best_effort_local": 0.5, "contiguous": 0.7,
            "local": 0.4}
    wob = {v: 0.3 for v in VARIANTS}
    assert verdicts(strict_more_stable(PUB, hom_runs(PAPER, noise=same, seed_noise=wob),
                                       DEFAULTS)) == [INC]
    assert verdicts(strict_more_stable(PUB, hom_runs(PAPER, seeds=12, noise=same,
                                                     seed_noise=wob), DEFAULTS)) == [NR]
    assert verdicts(strict_more_stable(PUB, hom_runs(PAPER, seeds=1, noise=same),
                                       DEFAULTS)) == [INC]


def test_gap_claim_needs_a_great_increase():
    hom = hom_runs(PAPER, seed_noise={"basic": 0.01})  # basic / local = 2.5: gap 150 %
    wider = {**PAPER, "basic": 40.0}    # gap 900 %: more than doubled
    more = {**PAPER, "basic": 12.0}     # gap 200 %: larger, not doubled
    narrower = {**PAPER, "basic": 4.1}  # gap 2.5 %
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(wider), DEFAULTS)) == [R]
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(more), DEFAULTS)) == [NR]
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(narrower), DEFAULTS)) == [C]
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(wider, seeds=1), DEFAULTS)) == [INC]
    # A near-zero homogeneous gap: a 3-point increase is below the least increase (spread).
    tiny = hom_runs({**PAPER, "basic": 4.0}, seed_noise={"basic": 0.001})
    small = het_runs({**PAPER, "basic": 4.12})
    assert verdicts(gap_larger_heterogeneous(PUB, tiny, small, DEFAULTS)) == [NR]
    c = gap_larger_heterogeneous(PUB, hom, het_runs(wider), DEFAULTS)[0]
    assert "heterogeneous +900.0 % vs homogeneous +150.0 %" in c.ours
    assert (c.unit, c.n, c.key) == (UNIT, "4", "gap_larger_heterogeneous")
    # Per homogeneous reading, a third one included.
    three = hom_runs(PAPER, models=("printed", "griffon", "base"))
    assert len(gap_larger_heterogeneous(PUB, three, het_runs(wider), DEFAULTS)) == 3


def test_no_effect_rule():
    seeds = pd.DataFrame({"a": [1.0, 1.01, 0.99, 1.0], "b": [1.01, 1.0, 1.0, 0.99]})
    assert no_effect(seeds, DEFAULTS)["verdict"] is R
    big = pd.DataFrame({"a": [1.0, 1.1, 0.9, 1.0], "b": [1.3, 1.4, 1.2, 1.35]})
    assert no_effect(big, DEFAULTS)["verdict"] is NR
    assert no_effect(big.iloc[:1], DEFAULTS)["verdict"] is INC
    noisy = pd.DataFrame({"a": [1.0, 1.3, 0.8, 1.2], "b": [1.2, 1.0, 1.1, 0.9]})
    assert no_effect(noisy, DEFAULTS)["verdict"] is INC
    # Friedman with 4 groups cannot reach 0.05 on 2 seeds: inconclusive even if each seed agrees.
    four = pd.DataFrame({"o1": [1.0, 1.0], "o2": [1.3, 1.3], "o3": [0.8, 0.8], "o4": [1.1, 1.1]})
    r = no_effect(four, DEFAULTS)
    assert r["undecidable"] and r["verdict"] is INC
    assert friedman_best_p(2, 4) > 0.05 > friedman_best_p(3, 4)
    assert no_effect(pd.concat([four] * 2, ignore_index=True), DEFAULTS)["verdict"] is NR


def test_ordering_claim_gives_every_verdict():
    order = {"o1": 1.0, "o2": 1.3, "o3": 0.8, "o4": 1.1}
    assert verdicts(no_ordering_effect(PUB, het_runs(PAPER), DEFAULTS)) == [R]
    effect = het_runs(PAPER, by_ordering=order)
    assert verdicts(no_ordering_effect(PUB, effect, DEFAULTS)) == [NR]
    # Too few seeds for the Friedman test, and no bound: inconclusive.
    assert verdicts(no_ordering_effect(PUB, het_runs(PAPER, seeds=2, by_ordering=order),
                                       DEFAULTS)) == [INC]
    assert verdicts(no_ordering_effect(PUB, het_runs(PAPER, seeds=1), DEFAULTS)) == [INC]
    # An effect in 4 of the 10 (set, variant) cases: a majority holds -> partly.
    some = het_runs(PAPER, by_ordering=order, cases={("high", "basic"), ("high", "local"),
                                                     ("low", "basic"), ("low", "local")})
    found = no_ordering_effect(PUB, some, DEFAULTS)
    assert verdicts(found) == [P] and "6/10 cases reproduced (4 not reproduced)" in found[0].ours
    # In half of them: no majority -> not reproduced.
    half = het_runs(PAPER, by_ordering=order, cases={"basic", "local", "contiguous"})
    half = pd.concat([half[~((half["set"] == "low") & (half["variant"] == "contiguous"))],
                      het_runs(PAPER).query("set == 'low' and variant == 'contiguous'")])
    assert verdicts(no_ordering_effect(PUB, half, DEFAULTS)) == [NR]
    assert found[0].unit == UNIT and found[0].n == "4" and found[0].key == "no_ordering_effect"


def test_set_claim_gives_every_verdict():
    assert verdicts(no_set_difference(PUB, het_runs(PAPER), DEFAULTS)) == [R]
    differ = het_runs(PAPER, by_set={"high": 0.7}, seed_noise=0.02)
    assert verdicts(no_set_difference(PUB, differ, DEFAULTS)) == [NR]
    some = het_runs(PAPER, by_set={"high": 0.7}, cases={"basic", "local"})
    assert verdicts(no_set_difference(PUB, some, DEFAULTS)) == [P]
    assert verdicts(no_set_difference(PUB, het_runs(PAPER, seeds=1, by_set={"high": 0.7}),
                                      DEFAULTS)) == [INC]
    # Not significant, not bounded, 12 seeds: not reproduced; 4 seeds: inconclusive.
    assert verdicts(no_set_difference(PUB, het_runs(FLAT, seed_noise=0.3), DEFAULTS)) == [INC]
    assert verdicts(no_set_difference(PUB, het_runs(FLAT, seeds=12, seed_noise=0.3),
                                      DEFAULTS)) == [NR]
    assert no_set_difference(PUB, het_runs(PAPER).query("set == 'high'"), DEFAULTS) == []


def test_claim_texts_state_each_rule_with_the_grids_thresholds():
    texts = claim_texts({"alpha": 0.01, "spread": 0.1})
    assert set(texts) == set(PUB["claims"])
    assert texts["basic_worst"]["claim"] == "(a) basic has the worst makespan of the five variants"
    assert "paired t-test over seeds at alpha = 0.01" in texts["basic_worst"]["criterion"]
    assert "fewer than 8 seeds" in texts["basic_worst"]["criterion"]  # the sign test at 0.01
    assert "within 10 % of the mean makespan" in texts["no_set_difference"]["criterion"]
    assert "max(mean homogeneous gap, 10 points)" in texts["gap_larger_heterogeneous"]["criterion"]
    assert "absolute SD is shown beside" in texts["strict_more_stable"]["criterion"]


def test_every_claim_of_the_published_file_has_a_criterion():
    names = {fn.__name__ for fn in CRITERIA}
    assert names == set(PUB["claims"])
    found = claims(PUB, hom_runs(PAPER, models=("printed", "griffon")), het_runs(PAPER), DEFAULTS)
    # a-e per model and heterogeneous; f per model; g, h heterogeneous.
    assert len(found) == 5 * 3 + 2 + 2
    assert {c.paper for c in found} == {"dutot"}
    assert all(c.unit == UNIT and c.n and c.key for c in found)
    # (e): no noise, no stability to compare; (f): equal gaps.
    assert all(c.verdict is R for c in found if not c.claim.startswith(("(e)", "(f)")))


def test_claims_step_reads_the_cubes(tmp_path):
    import logging

    from simlib.studies.base import Files, StepContext
    hom, het = hom_runs(PAPER), het_runs(PAPER)
    write_cube(build(hom.to_dict("records"), "homogeneous"), tmp_path / "hom.nc")
    write_cube(build(het.to_dict("records"), "heterogeneous"), tmp_path / "het.nc")
    ctx = StepContext(Files(homogeneous=str(tmp_path / "hom.nc"),
                            heterogeneous=str(tmp_path / "het.nc"),
                            published=str(REPO / "config/published/dutot.yaml")),
                      Files(csv=str(tmp_path / "claims.csv")),
                      {"scale": "smoke", "thresholds": DEFAULTS, "variants": VARIANTS}, {},
                      logging.getLogger("test"), {})
    claims_step(ctx)
    df = read_claims(tmp_path / "claims.csv")
    assert set(df["scale"]) == {"smoke"} and len(df) == 5 * 2 + 1 + 2
    assert set(df["unit"]) == {UNIT} and set(df["n"]) == {"4"}
    assert len(runs_frame(build(hom.to_dict("records"), "homogeneous"))) == len(hom)


def test_stability_without_residuals_is_inconclusive():
    two = hom_runs(PAPER, noise={"contiguous": 1.0}).query("f_comm <= 1e8")
    found = strict_more_stable(PUB, two, DEFAULTS)
    assert verdicts(found) == [INC] and "no residual spread" in found[0].ours and found[0].n == "0"
