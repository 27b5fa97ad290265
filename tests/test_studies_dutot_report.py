"""Paper D's trends and claims (simlib.studies.dutot.report): every rule can give
every verdict, on hand-made runs."""
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.claims import Verdict, read_claims
from simlib.cube import write_cube
from simlib.studies.dutot.cubes import build
from simlib.studies.dutot.published import load_published
from simlib.studies.dutot.report import (CRITERIA, basic_worst, claim_texts, claims, claims_step,
                                         combine, compare, contiguity_helps, fit_trend,
                                         gap_larger_heterogeneous, locality_helps_more,
                                         no_effect, no_ordering_effect, no_set_difference,
                                         readings, runs_frame, stability,
                                         strict_beat_best_effort, strict_more_stable,
                                         trends_frame)

REPO = Path(__file__).resolve().parents[1]
PUB = load_published(REPO / "config/published/dutot.yaml")
VARIANTS = ["basic", "best_effort_contiguous", "best_effort_local", "contiguous", "local"]
SEEDS, F = range(4), [0.0, 1e8, 2e8, 3e8]
#: The repository grid's thresholds (studies.dutot.claims).
DEFAULTS = {"alpha": 0.05, "share": 0.75, "spread": 0.05}


def hom_runs(level, noise=None, models=("printed",)):
    """Homogeneous runs with makespan = level[variant] * (1 + f / 1e8) (+ noise[variant] * +-1)."""
    rows = []
    for model, v, s, f in itertools.product(models, VARIANTS, SEEDS, F):
        wiggle = (noise or {}).get(v, 0.0) * (1 if (s + int(f / 1e8)) % 2 else -1)
        rows.append({"model": model, "variant": v, "seed": s, "f_comm": f,
                     "makespan": level[v] * (1 + f / 1e8) + wiggle, "jobs_killed": 0, "jobs": 10,
                     "mean_execution": 1.0, "mean_wait": 1.0})
    return pd.DataFrame(rows)


def het_runs(level, by_ordering=None, by_set=None, noise=0.0):
    rows = []
    for st, o, v, s, f in itertools.product(("high", "low"), ("o1", "o2", "o3", "o4"), VARIANTS,
                                            SEEDS, F):
        factor = (by_ordering or {}).get(o, 1.0) * (by_set or {}).get(st, 1.0)
        wiggle = noise * ((s * 7 + int(f / 1e8) * 3 + int(o[1])) % 5 - 2)
        rows.append({"set": st, "ordering": o, "variant": v, "seed": s, "f_comm": f,
                     "makespan": level[v] * (1 + f / 1e8) * factor + wiggle, "jobs_killed": 0,
                     "jobs": 10, "mean_execution": 1.0, "mean_wait": 1.0})
    return pd.DataFrame(rows)


#: The paper's picture: basic worst, contiguity better, locality better still, strict best.
PAPER = {"basic": 10.0, "best_effort_contiguous": 8.0, "contiguous": 7.0,
         "best_effort_local": 5.0, "local": 4.0}
#: The opposite picture.
REVERSED = {"basic": 4.0, "best_effort_contiguous": 5.0, "contiguous": 7.0,
            "best_effort_local": 8.0, "local": 10.0}
FLAT = {v: 5.0 for v in VARIANTS}


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


def test_compare_and_combine():
    runs = hom_runs(PAPER)
    c = compare(runs, ["seed", "f_comm"], "local", "basic", DEFAULTS)
    assert c["outcome"] == "holds" and c["wins"] == 16 and c["gain"] == pytest.approx(0.6)
    assert compare(runs, ["seed", "f_comm"], "basic", "local", DEFAULTS)["outcome"] == "opposite"
    flat = compare(hom_runs(FLAT), ["seed", "f_comm"], "local", "basic", DEFAULTS)
    assert flat["outcome"] == "neither" and flat["p"] == 1.0
    # Too few pairs for the sign test: neither, however clear.
    few = runs[runs["seed"] == 0].loc[lambda d: d["f_comm"] <= 1e8]
    assert compare(few, ["seed", "f_comm"], "local", "basic", DEFAULTS)["outcome"] == "neither"
    assert combine([]) is Verdict.NOT_REPRODUCED
    assert [combine(o).value for o in (["holds", "holds"], ["opposite"], ["holds", "neither"],
                                       ["neither", "opposite"])] == [
        "reproduced", "contradicted", "partly reproduced", "not reproduced"]


@pytest.mark.parametrize("criterion", [basic_worst, contiguity_helps, locality_helps_more,
                                       strict_beat_best_effort])
def test_beats_claims_give_every_verdict(criterion):
    def verdict(level):
        return verdicts(criterion(PUB, hom_runs(level), DEFAULTS))

    assert verdict(PAPER) == [Verdict.REPRODUCED]
    assert verdict(REVERSED) == [Verdict.CONTRADICTED]
    assert verdict(FLAT) == [Verdict.NOT_REPRODUCED]
    # One comparison of two holds.
    partly = {**PAPER, "contiguous": 9.0, "best_effort_contiguous": 9.5,
              "local": 4.0, "best_effort_local": 4.0}
    mixed = {"basic_worst": {**PAPER, "contiguous": 10.0, "best_effort_contiguous": 10.0},
             "contiguity_helps": {**PAPER, "contiguous": 10.0},
             "locality_helps_more": {**PAPER, "local": 7.0},
             "strict_beat_best_effort": partly}[criterion.__name__]
    assert verdict(mixed) == [Verdict.PARTLY]


def test_claims_are_given_per_reading():
    hom = hom_runs(PAPER, models=("printed", "griffon"))
    found = strict_beat_best_effort(PUB, hom, DEFAULTS, het_runs(REVERSED))
    assert [c.reading for c in found] == ["homogeneous, printed model", "homogeneous, griffon model",
                                          "heterogeneous (both sets, all orderings)"]
    assert verdicts(found) == [Verdict.REPRODUCED, Verdict.REPRODUCED, Verdict.CONTRADICTED]
    assert found[0].source == "§5.3, Fig. 1; §5.4, Fig. 3"
    assert found[0].published.startswith('"The strict heuristics')
    assert [r[0] for r in readings(hom, None, "homogeneous")] == [
        "homogeneous, printed model", "homogeneous, griffon model"]


def test_stability_gives_every_verdict():
    stable = hom_runs(PAPER, noise={"best_effort_contiguous": 2.0, "best_effort_local": 2.0,
                                    "contiguous": 0.1, "local": 0.1})
    assert verdicts(strict_more_stable(PUB, stable, DEFAULTS)) == [Verdict.REPRODUCED]
    unstable = hom_runs(PAPER, noise={"best_effort_contiguous": 0.1, "best_effort_local": 0.1,
                                      "contiguous": 2.0, "local": 2.0})
    assert verdicts(strict_more_stable(PUB, unstable, DEFAULTS)) == [Verdict.CONTRADICTED]
    half = hom_runs(PAPER, noise={"best_effort_contiguous": 2.0, "best_effort_local": 1.0,
                                  "contiguous": 0.1, "local": 1.0})
    assert verdicts(strict_more_stable(PUB, half, DEFAULTS)) == [Verdict.PARTLY]
    same = hom_runs(PAPER, noise={v: 1.0 for v in VARIANTS})
    assert verdicts(strict_more_stable(PUB, same, DEFAULTS)) == [Verdict.NOT_REPRODUCED]
    s = stability(stable, ["seed", "f_comm"], "contiguous", "best_effort_contiguous", DEFAULTS)
    assert s["ratio"] < 0.1 and s["pairs"] == 16


def test_gap_claim_gives_every_verdict():
    hom = hom_runs(PAPER)  # basic / local = 2.5
    wider = {**PAPER, "basic": 20.0}
    narrower = {**PAPER, "basic": 5.0}
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(wider), DEFAULTS)) == [
        Verdict.REPRODUCED]
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(narrower), DEFAULTS)) == [
        Verdict.CONTRADICTED]
    assert verdicts(gap_larger_heterogeneous(PUB, hom, het_runs(PAPER), DEFAULTS)) == [
        Verdict.NOT_REPRODUCED]
    c = gap_larger_heterogeneous(PUB, hom, het_runs(wider), DEFAULTS)[0]
    assert "heterogeneous +400.0 % vs homogeneous +150.0 %" in c.ours
    assert "larger in 16/16 pairs" in c.ours


def test_ordering_claim_gives_every_verdict():
    assert verdicts(no_ordering_effect(PUB, het_runs(PAPER), DEFAULTS)) == [Verdict.REPRODUCED]
    effect = het_runs(PAPER, by_ordering={"o1": 1.0, "o2": 1.3, "o3": 0.8, "o4": 1.1})
    assert verdicts(no_ordering_effect(PUB, effect, DEFAULTS)) == [Verdict.CONTRADICTED]
    # An effect in the high set only.
    runs = pd.concat([het_runs(PAPER).query("set == 'low'"), effect.query("set == 'high'")])
    assert verdicts(no_ordering_effect(PUB, runs, DEFAULTS)) == [Verdict.PARTLY]
    # A wide spread that a paired test cannot tell from noise: not reproduced.
    noisy = het_runs(FLAT, noise=3.0)
    assert verdicts(no_ordering_effect(PUB, noisy.query("seed == 0 and f_comm == 0"),
                                       DEFAULTS)) == [Verdict.NOT_REPRODUCED]


def test_set_claim_gives_every_verdict():
    assert verdicts(no_set_difference(PUB, het_runs(PAPER), DEFAULTS)) == [Verdict.REPRODUCED]
    differ = het_runs(PAPER, by_set={"high": 0.7})
    assert verdicts(no_set_difference(PUB, differ, DEFAULTS)) == [Verdict.CONTRADICTED]
    runs = pd.concat([differ.query("variant in ['basic', 'local']"),
                      het_runs(PAPER).query("variant not in ['basic', 'local']")])
    assert verdicts(no_set_difference(PUB, runs, DEFAULTS)) == [Verdict.PARTLY]
    one = differ.query("seed == 0 and f_comm == 0 and ordering == 'o1'")
    assert verdicts(no_set_difference(PUB, one, DEFAULTS)) == [Verdict.NOT_REPRODUCED]
    assert no_set_difference(PUB, het_runs(PAPER).query("set == 'high'"), DEFAULTS) == []


def test_no_effect_rule():
    assert no_effect({"a": 1.0, "b": 1.04}, 0.5, DEFAULTS)["outcome"] == "holds"
    assert no_effect({"a": 1.0, "b": 1.2}, 0.01, DEFAULTS)["outcome"] == "opposite"
    assert no_effect({"a": 1.0, "b": 1.2}, 0.01, {**DEFAULTS, "spread": 0.3})["outcome"] == "holds"
    assert no_effect({"a": 1.0, "b": 1.2}, 0.5, DEFAULTS)["outcome"] == "neither"


def test_claim_texts_state_each_rule_with_the_grids_thresholds():
    texts = claim_texts({"alpha": 0.01, "share": 0.9, "spread": 0.1})
    assert set(texts) == set(PUB["claims"])
    assert texts["basic_worst"]["claim"] == "(a) basic has the worst makespan of the five variants"
    assert ">= 90 % of the pairs and a two-sided sign test p < 0.01;" in texts["basic_worst"]["criterion"]
    assert texts["no_set_difference"]["criterion"].startswith(
        "per variant: the sets' mean makespans within 10 % of their mean;")


def test_every_claim_of_the_published_file_has_a_criterion():
    names = {fn.__name__ for fn in CRITERIA}
    assert names == set(PUB["claims"])
    found = claims(PUB, hom_runs(PAPER, models=("printed", "griffon")), het_runs(PAPER), DEFAULTS)
    # a-c, f per model; d, e per model and heterogeneous; g, h heterogeneous.
    assert len(found) == 4 * 2 + 2 * 3 + 2
    assert {c.paper for c in found} == {"dutot"}
    # (e): no noise, no stability to compare; (f): equal gaps.
    assert all(c.verdict is Verdict.REPRODUCED for c in found
               if not c.claim.startswith(("(e)", "(f)")))


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
    assert set(df["scale"]) == {"smoke"} and len(df) == 4 + 2 * 2 + 2
    assert len(runs_frame(build(hom.to_dict("records"), "homogeneous"))) == len(hom)
