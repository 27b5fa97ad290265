"""Paper K's verdict discipline (issue 38): every graded criterion of
simlib.studies.kumar.report can say reproduced, not reproduced, contradicted
(where the claim has a direction) and inconclusive (where it rests on a
test), on hand-made cubes; minimum effects; the C_s optimum on a falling
curve; the like-for-like ECC claim pairs the same jobs under a reading."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers_kumar_study import config, cs_cube, load_cube, noisy_cs_cube, with_gains

from simlib.claims import Verdict
from simlib.studies.kumar import report as R
from simlib.studies.kumar.cubes import pick_cs
from simlib.studies.kumar.plan import CS_INF, KumarPlan
from simlib.studies.kumar.published import load_published

REPO = Path(__file__).resolve().parents[1]
V = Verdict


@pytest.fixture(scope="module")
def published():
    return load_published(REPO / "config/published/kumar.yaml")


@pytest.fixture(scope="module")
def plan():
    return KumarPlan.from_config(config())


@pytest.fixture(scope="module")
def effects(published, plan):
    return R.claims_settings(published, plan)["min_effect"]


NOISY = [6.0, -5.0, 4.0, -3.0]                    # 4 seeds, mean ~0: undecided
SMALL = [0.10, 0.11, 0.09, 0.10, 0.12, 0.10, 0.09, 0.11, 0.10, 0.10]   # significant, tiny
NULL12 = [1.0, -1.0, 0.5, -0.5, 0.2, -0.2, 0.3, -0.3, 0.1, -0.1, 0.4, -0.4]


# --- minimum effects ---------------------------------------------------------------------

def test_min_effects_come_from_the_published_tables_and_the_grid(published, plan, effects):
    fraction = plan.spec["claims"]["min_effect_fraction"]
    lowest = min(v["utilization"] for t in published["tables"].values()
                 for v in t["values"].values())
    assert effects["utilization"] == pytest.approx(fraction * lowest)
    assert set(effects) == {"utilization", "mean_wait", "kumar_slowdown"}
    half = R.claims_settings(published, KumarPlan.from_config(
        config(claims={"min_effect_fraction": 0.5})))["min_effect"]
    assert half["mean_wait"] == pytest.approx(2 * effects["mean_wait"])


def test_outperforms_needs_the_minimum_effect_in_each_metric(effects):
    # A consistent but tiny gain (0.1 %) in every seed: significant, but below every minimum.
    c = R.outperforms(with_gains(SMALL), "ps02", "delayed_los", "los", "load", "s", "claim",
                      "fig7", effects)
    assert c.verdict is V.NOT_REPRODUCED and "holds in 0 of 3 metrics" in c.ours
    # Large in wait and slowdown, tiny in utilization: a majority of the cases, partly.
    cube = with_gains([10.0 + 0.1 * s for s in range(10)], metrics=("mean_wait", "kumar_slowdown"))
    b = cube["utilization"].sel(workload="ps02", policy="los").values
    cube["utilization"].loc[dict(workload="ps02", policy="delayed_los")] = b * (
        1 + np.asarray(SMALL)[None, :] / 100)
    c = R.outperforms(cube, "ps02", "delayed_los", "los", "load", "s", "claim", "fig7", effects)
    assert c.verdict is V.PARTLY and "holds in 2 of 3 metrics" in c.ours
    # With a zero minimum effect the same tiny utilization gain counts.
    c = R.outperforms(cube, "ps02", "delayed_los", "los", "load", "s", "claim", "fig7",
                      dict.fromkeys(effects, 0.0))
    assert c.verdict is V.REPRODUCED


def test_outperforms_says_every_word(effects):
    def verdict(gains):
        return R.outperforms(with_gains(gains), "ps02", "delayed_los", "los", "load", "s",
                             "claim", "fig7", effects).verdict
    assert verdict([10.0, 11.0, 12.0]) is V.REPRODUCED
    assert verdict([-10.0, -11.0, -12.0]) is V.CONTRADICTED
    assert verdict(NOISY) is V.INCONCLUSIVE
    assert verdict(NULL12) is V.NOT_REPRODUCED
    c = R.outperforms(with_gains(NOISY), "ps02", "delayed_los", "los", "load", "s", "claim",
                      "fig7", effects)
    assert c.unit and c.n == "4" and c.key == "outperforms:fig7:ps02:delayed_los>los"


def test_correlated_loads_are_not_units(effects):
    # One seed only, but many loads: the loads of a seed share its workload, so the test
    # has one unit and cannot decide (counted per load it would look like 6 agreeing cases).
    cube = load_cube(loads=(0.5, 0.6, 0.7, 0.8, 0.9, 1.0), seeds=(0,))
    for m in ("mean_wait", "kumar_slowdown"):
        cube[m].loc[dict(workload="ps02", policy="delayed_los")] = cube[m].sel(
            workload="ps02", policy="los").values * 0.8
    c = R.outperforms(cube, "ps02", "delayed_los", "los", "load", "s", "claim", "fig7", effects)
    assert c.verdict is V.INCONCLUSIVE and c.n == "1"


def test_easy_over_los_says_every_word(effects):
    w = effects["mean_wait"]

    def verdict(gains, min_effect=w):
        cube = with_gains(gains, workload="ps05", new="easy", base="los", metrics=("mean_wait",))
        return R.easy_over_los("easy_outperforms_los", cube, "ps05", 0.5, min_effect).verdict
    assert verdict([10.0, 11.0, 12.0]) is V.REPRODUCED
    assert verdict([-10.0, -11.0, -12.0]) is V.CONTRADICTED
    assert verdict(NOISY) is V.INCONCLUSIVE
    assert verdict(NULL12) is V.NOT_REPRODUCED
    assert verdict(SMALL) is V.NOT_REPRODUCED          # significant, below the minimum
    assert verdict(SMALL, 0.0) is V.REPRODUCED


# --- the C_s optimum -----------------------------------------------------------------------

def test_cs_optimum_on_a_falling_curve_is_contradicted(published, plan):
    # The wait keeps falling past 8 and is lowest at C_s = infinity (as in our default
    # runs: best C_s 20, tied with 30, 50 and infinity): the optimum lies beyond 7-8.
    falling = {c: 1000.0 - 10.0 * min(c, 25) for c in (1, 3, 5, 7, 8, 9, 12, 20)}
    falling[CS_INF] = 1000.0 - 10.0 * 25
    cs = noisy_cs_cube(falling)
    c = R.cs_optimum(published, cs, pick_cs(cs), plan)
    assert c.verdict is V.CONTRADICTED, c.ours
    # Flat past 8 (no slight increase, no further fall) with many seeds: not reproduced.
    flat = {c: 1000.0 - 10.0 * min(c, 7) for c in (1, 3, 5, 7, 8, 9, 12, 20)}
    flat[CS_INF] = flat[20]
    cs = noisy_cs_cube(flat)
    assert R.cs_optimum(published, cs, pick_cs(cs), plan).verdict is V.NOT_REPRODUCED
    # ... and with 3 seeds and a noisy curve: inconclusive.
    cs = noisy_cs_cube(flat, seeds=3, jitter=0.05)
    assert R.cs_optimum(published, cs, pick_cs(cs), plan).verdict is V.INCONCLUSIVE


def test_cs_optimum_at_7_8_with_a_slight_increase_is_reproduced(published, plan):
    # Falls until 7-8, then a slight increase and stable (the paper's Fig. 5).
    curve = {1: 1100.0, 3: 1050.0, 5: 1020.0, 7: 1000.0, 8: 1000.0, 9: 1010.0, 12: 1010.0,
             20: 1010.0, CS_INF: 1010.0}
    cs = noisy_cs_cube(curve)
    c = R.cs_optimum(published, cs, pick_cs(cs), plan)
    assert c.verdict is V.REPRODUCED and c.n == "12"


def test_cs_insensitive_says_every_word(published, plan):
    flat = {c: 1000.0 for c in (1, 2, 3, 4, 5, 6, 8)}
    assert R.cs_insensitive(published, noisy_cs_cube(flat), plan, 2.0).verdict is V.REPRODUCED
    steep = {c: 1000.0 + 100.0 * c for c in (1, 2, 3, 4, 5, 6, 8)}
    assert R.cs_insensitive(published, noisy_cs_cube(steep), plan, 2.0).verdict is V.CONTRADICTED
    noisy = noisy_cs_cube(flat, seeds=3, jitter=0.05)
    assert R.cs_insensitive(published, noisy, plan, 2.0).verdict is V.INCONCLUSIVE
    # Many seeds, a difference near the tolerance: neither within nor wholly outside.
    edge = {c: 1000.0 * (1 + (0.02 if c == 8 else 0.0)) for c in (1, 2, 3, 4, 5, 6, 8)}
    assert R.cs_insensitive(published, noisy_cs_cube(edge, jitter=0.01), plan, 1.2).verdict is \
        V.NOT_REPRODUCED


# --- equivalence and the ECC claims ----------------------------------------------------------

def test_close_to_easy_says_every_word():
    def verdict(gains, within=5.0):
        cube = with_gains(gains, workload="ps05", new="delayed_los", base="easy",
                           metrics=("mean_wait",))
        return R.delayed_los_close_to_easy(cube, "ps05", 0.5, within).verdict
    assert verdict([1.0, 1.2, 0.8]) is V.REPRODUCED
    assert verdict([20.0, 21.0, 22.0]) is V.CONTRADICTED
    assert verdict([1.0, 9.0, -4.0]) is V.INCONCLUSIVE
    assert verdict([4.0, 6.0, 3.0, 7.0, 5.0, 4.5, 5.5, 6.5, 3.5, 5.0]) is V.NOT_REPRODUCED


def _ecc_cube(without, with_ecc):
    """Improvements (% per seed) of Delayed-LOS over LOS on ps05 and of Delayed-LOS-E over
    LOS-E on elastic_batch."""
    cube = with_gains(without, workload="ps05", metrics=("mean_wait",))
    g = np.asarray(with_ecc, float)[None, :] / 100
    b = cube["mean_wait"].sel(workload="elastic_batch", policy="los_e").values
    cube["mean_wait"].loc[dict(workload="elastic_batch", policy="delayed_los_e")] = b * (1 - g)
    return cube


def test_ecc_like_for_like_says_every_word(effects):
    w = effects["mean_wait"]

    def verdict(without, with_ecc):
        return R.ecc_like_for_like(_ecc_cube(without, with_ecc), *R.ECC_SAME_P_S[0],
                                   min_effect=w).verdict
    assert verdict([20.0, 21.0, 22.0], [10.0, 10.5, 11.0]) is V.REPRODUCED
    assert verdict([10.0, 10.5, 11.0], [20.0, 21.0, 22.0]) is V.CONTRADICTED
    assert verdict([10.0, 12.0, 8.0, 9.0], [11.0, 9.0, 10.0, 10.5]) is V.INCONCLUSIVE
    base = [10.0] * 12
    assert verdict(base, [10.0 + x for x in NULL12]) is V.NOT_REPRODUCED


def test_ecc_lowers_improvements_is_paired_by_seed(effects):
    cube = _ecc_cube([20.0, 21.0, 22.0], [10.0, 10.5, 11.0])
    # ps02 stands in for Table IV's workload: copy ps05's numbers there.
    for p in ("delayed_los", "los"):
        cube["mean_wait"].loc[dict(workload="ps02", policy=p)] = cube["mean_wait"].sel(
            workload="ps05", policy=p).values
    tables = pd.DataFrame([
        dict(table="VI", base="los_e", new="delayed_los_e", workload="elastic_batch",
             metric="mean_wait", published=18.94, ours_max=10.0),
        dict(table="IV", base="los", new="delayed_los", workload="ps02", metric="mean_wait",
             published=31.88, ours_max=20.0)])
    c = R.ecc_lowers_improvements(tables, cube, "VI", "IV", "los_e", "los", effects["mean_wait"])
    assert c.verdict is V.REPRODUCED and c.n == "3"
    swapped = tables.assign(workload=["ps02", "elastic_batch"],
                            new=["delayed_los", "delayed_los_e"], base=["los_e", "los"])
    swapped["table"], swapped["base"] = ["VI", "IV"], ["los_e", "los"]
    cube2 = _ecc_cube([10.0, 10.5, 11.0], [20.0, 21.0, 22.0])
    for p in ("delayed_los", "los"):
        cube2["mean_wait"].loc[dict(workload="ps02", policy=p)] = cube2["mean_wait"].sel(
            workload="ps05", policy=p).values
    assert R.ecc_lowers_improvements(tables, cube2, "VI", "IV", "los_e", "los",
                                     effects["mean_wait"]).verdict is V.CONTRADICTED


def test_headline_says_every_word():
    def rows(verdicts, p95, seeds):
        return pd.DataFrame([dict(table="IV", base="los", new="delayed_los", metric=m,
                                  published=10.0, ours_max=1.0, paper_procedure_p5=-5.0,
                                  paper_procedure_p95=p, verdict=v, seeds=seeds)
                             for m, v, p in zip(("utilization", "mean_wait", "kumar_slowdown"),
                                                verdicts, p95)])
    within, above = "within our range", "published above our range"
    assert R.headline_improvements(rows([within] * 3, [20] * 3, 20), "IV").verdict is V.REPRODUCED
    assert R.headline_improvements(rows([within, within, above], [20] * 3, 20),
                                   "IV").verdict is V.PARTLY
    assert R.headline_improvements(rows([above] * 3, [-1] * 3, 20),
                                   "IV").verdict is V.CONTRADICTED
    assert R.headline_improvements(rows([above] * 3, [5] * 3, 3), "IV").verdict is V.INCONCLUSIVE
    assert R.headline_improvements(rows([above] * 3, [5] * 3, 20),
                                   "IV").verdict is V.NOT_REPRODUCED


def test_long_runs_say_every_word():
    def verdict(points):
        t = pd.DataFrame([dict(workload="ps02", new="los", base="easy", load=0.5 + i / 10,
                               difference=0.0, ci_low=-1.0, ci_high=1.0, saturated=False,
                               point=p, seeds_long=4, seeds_500=20)
                          for i, p in enumerate(points)])
        return R.long_runs_equivalent(t, 10000, 10.0).verdict
    assert verdict(["equivalent"] * 3) is V.REPRODUCED
    assert verdict(["equivalent", "equivalent", "different"]) is V.PARTLY
    assert verdict(["different"] * 3) is V.CONTRADICTED
    assert verdict(["inconclusive", "inconclusive", "equivalent"]) is V.INCONCLUSIVE
    assert verdict(["different", "different", "equivalent"]) is V.NOT_REPRODUCED


def test_every_claim_sets_unit_n_and_key(published, plan):
    from helpers_kumar_study import fig1_cube
    from simlib.studies.kumar.tables import tables_frame
    load = load_cube(seeds=(0, 1, 2))
    cs = cs_cube(cs=(1, 3, 5, 7, 8, 9), best=7)
    found = R.claims(published=published, load_cube=load, cs_cube=cs, fig1_cube=fig1_cube(),
                     picks=pick_cs(cs), tables=tables_frame(load, published), plan=plan)
    assert found
    for c in found:
        assert c.unit and c.n != "" and c.key, c
    keys = [c.key for c in found]
    assert len(keys) == len(set(keys))


# --- the readings: the like-for-like ECC claim pairs the same jobs ---------------------------

LINEAR = {"size_linear": {"description": "linear sizes", "generator": {"size_scale": "linear"},
                          "workloads": ["ps05", "elastic_batch"]}}


def _sizes(directory, load, seed):
    from simlib.studies.kumar.plan import workload_file
    from simlib.workload.cwf import read_cwf
    jobs = read_cwf(workload_file(directory, load, seed)).jobs
    jobs = jobs[jobs["requested_procs"] > 0]   # the elastic commands' records left out
    return sorted(zip(jobs["submit_time"], jobs["requested_procs"], jobs["run_time"]))


def test_size_linear_pairs_elastic_batch_with_ps05_on_the_same_jobs(tmp_path):
    from simlib.studies.kumar.study import _check_readings
    from simlib.studies.kumar.workloads import generate_set
    plan = KumarPlan.from_config(config(readings=LINEAR))
    _check_readings(plan)
    assert {"size_linear@ps05", "size_linear@elastic_batch"} <= set(
        plan.purpose_workloads("readings"))
    made = {}
    for name, purpose in (("size_linear@ps05", "readings"), ("size_linear@elastic_batch", "readings"),
                          ("ps05", "load")):
        entries = generate_set(plan.generation_spec(purpose, name), tmp_path / name)
        made[name] = {(e["load"], e["seed"]): e["n_bar"] for e in entries}
    # Under the reading, the baseline and the elastic workload of a seed have the same jobs ...
    assert made["size_linear@ps05"] == made["size_linear@elastic_batch"]
    for load in plan.loads:
        for seed in range(plan.seeds):
            assert _sizes(tmp_path / "size_linear@ps05", load, seed) == _sizes(
                tmp_path / "size_linear@elastic_batch", load, seed)
    # ... which the main reading's ps05 (log2 sizes) does not: comparing with it pairs other jobs.
    assert made["ps05"] != made["size_linear@ps05"]


def test_a_reading_must_rerun_both_workloads_of_the_ecc_comparison():
    from simlib.errors import ConfigError
    from simlib.studies.kumar.study import _check_readings
    one = {"size_linear": {**LINEAR["size_linear"], "workloads": ["elastic_batch"]}}
    with pytest.raises(ConfigError, match="add 'ps05'"):
        _check_readings(KumarPlan.from_config(config(readings=one)))
    # A reading that changes neither the jobs nor ps05's policies may re-run elastic_batch alone.
    defer = {"commands_running": {"description": "defer", "generator": {},
                                  "policy_params": {"ecc_queued": "defer"},
                                  "workloads": ["elastic_batch"]}}
    _check_readings(KumarPlan.from_config(config(readings=defer)))
    # The grid's own readings pass.
    import yaml
    grid = yaml.safe_load((REPO / "config/grids/kumar.yaml").read_text(encoding="utf-8"))
    _check_readings(KumarPlan.from_config({"studies": grid["studies"], "scale": "smoke"}))


def test_the_ecc_claim_under_a_reading_reads_both_workloads_of_the_reading(published, plan,
                                                                            effects):
    from simlib.studies.kumar.readings import reading_view
    main = load_cube()
    # The reading's cube: elastic_batch and ps05 re-run, ps05's waits changed (other jobs).
    rc = main.sel(workload=["elastic_batch", "ps05"]).expand_dims(reading=["size_linear"]).copy(
        deep=True)
    rc["mean_wait"].loc[dict(workload="ps05", policy="delayed_los")] *= 0.5
    view = reading_view(main, rc, "size_linear")
    assert np.allclose(view["mean_wait"].sel(workload="ps05", policy="delayed_los"),
                       rc["mean_wait"].sel(reading="size_linear", workload="ps05",
                                           policy="delayed_los"))
    here = R.ecc_like_for_like(view, *R.ECC_SAME_P_S[0], min_effect=effects["mean_wait"])
    there = R.ecc_like_for_like(main, *R.ECC_SAME_P_S[0], min_effect=effects["mean_wait"])
    assert here.ours != there.ours and here.verdict is V.REPRODUCED
