"""Tests of simlib.studies.utrera.claims: one criterion per claim, the reading x claim matrix."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.cube import build_cube
from simlib.claims import Verdict
from simlib.studies.utrera import claims as R
from simlib.studies.utrera.published import load_published
from simlib.studies.utrera.tables import orders_frame

PUBLISHED = Path(__file__).resolve().parents[1] / "config/published/utrera.yaml"


@pytest.fixture(scope="module")
def pub():
    return load_published(PUBLISHED)


def _traces_cube(values):
    """values: {(trace, policy): {metric: [per seed]}}."""
    recs = []
    for (t, p), mets in values.items():
        n = len(next(iter(mets.values())))
        for s in range(n):
            recs.append({"trace": t, "policy": p, "seed": s, **{m: v[s] for m, v in mets.items()}})
    metrics = sorted({m for mets in values.values() for m in mets})
    return build_cube(recs, ["trace", "policy", "seed"], metrics)


def _traces_frame(resp, sld, mpl=(0.75, 0.91), frag=(0.06, 0.0), ex=(10.0, 15.0), ci=0.0):
    rows = []
    for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2"):
        for i, p in enumerate(("easy", "fcfs_malleable")):
            for m, v in (("mean_response", resp[t][i]), ("utrera_slowdown", sld[t][i]),
                         ("utrera_mean_mpl", mpl[i]), ("utrera_fragmentation", frag[i]),
                         ("mean_execution", ex[i])):
                rows.append(dict(trace=t, policy=p, metric=m, mean=v, ci95=ci if i else 0.0, n=5))
    return pd.DataFrame(rows)


def _verdicts(out):
    return {c.claim.split(":")[0]: c.verdict.value for c in out}


def test_claims_on_traces_paper_like_results(pub):
    resp = {t: (100.0, 60.0) for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")}
    sld = {"CTC-SP2": (10.0, 5.0), "SDSC-BLUE": (10.0, 5.0), "SDSC-SP2": (10.0, 20.0)}
    v = _verdicts(R.claims(published=pub, traces=_traces_frame(resp, sld)))
    assert v["Fig. 3(c)"] == v["Fig. 3(b)"] == v["Fig. 3(d)"] == "reproduced"
    # MPL: SDSC-Blue and SDSC published 0.76/0.98 and 0.89/1.47 vs our constant 0.75/0.91.
    assert v["Table 3"] == "partly reproduced"
    assert v["Fragmentation"] == "partly reproduced"  # SDSC's EASY printed 14 %, ours 6 %


def test_claims_on_traces_respect_confidence_intervals(pub):
    resp = {t: (100.0, 90.0) for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")}
    sld = {t: (10.0, 20.0) for t in resp}
    v = _verdicts(R.claims(published=pub, traces=_traces_frame(resp, sld, ci=20.0)))
    assert v["Fig. 3(c)"] == "not reproduced"  # 90 + 20 is not below 100
    # Only SDSC's "not better" holds, which is no evidence for the claim.
    assert v["Fig. 3(d)"] == "not reproduced"


def test_claims_headline_and_fig2(pub):
    gains = pd.DataFrame({"policy": "fcfs_malleable", "trace": "mean of traces",
                          "metric": ["utrera_slowdown", "mean_response"], "mean": [10.0, 40.0],
                          "ci95": [1.0, 1.0], "n": [5, 5]})
    fig2 = pd.DataFrame([{"policy": p, "metric": m, "ours": v}
                         for p, vals in pub["fig2"]["values"].items() for m, v in vals.items()])
    fig2.loc[0, "ours"] = 14 / 3  # 4.666.. truncates to the printed 4.66
    v = _verdicts(R.claims(published=pub, gains=gains, fig2=fig2))
    assert v["Headline"] == "partly reproduced"  # positive but not within 5 points
    assert v["Fig. 2"] == "reproduced"
    fig2.loc[1, "ours"] = 3.6
    assert _verdicts(R.claims(published=pub, fig2=fig2))["Fig. 2"] == "partly reproduced"


def test_claims_long_util_threshold(pub):
    def lu(fm):
        return pd.DataFrame([dict(long_util=u, policy=p, metric="utrera_slowdown", mean=v,
                                  ci95=0.0, n=1)
                             for u, f in zip((0.6, 0.8, 0.9, 1.0), fm)
                             for p, v in (("easy", 10.0), ("fcfs_malleable", f))])
    assert _verdicts(R.claims(published=pub, long_util=lu([5, 8, 12, 15])))["Sect. 5.1"] == "reproduced"
    verdicts = _verdicts(R.claims(published=pub, long_util=lu([5, 11, 12, 15])))
    assert verdicts["Sect. 5.1"] == "partly reproduced"
    assert _verdicts(R.claims(published=pub, long_util=lu([11, 11, 12, 15])))["Sect. 5.1"] == "not reproduced"


@pytest.mark.parametrize("n_long, minimum, expected", [
    (19, 20, "not testable here"),   # below the minimum: no verdict from noise
    (20, 20, "reproduced"),          # at the minimum: the criterion decides
    (0, 0, "reproduced"),            # minimum 0: always decides
    (5, 20, "not testable here"),
])
def test_claims_long_util_needs_enough_long_jobs(pub, n_long, minimum, expected):
    rows = pd.DataFrame([dict(long_util=u, policy=p, metric="utrera_slowdown", mean=v, ci95=0.0,
                              n=1, trace="SDSC-SP2", selection="densest", first_job=18802,
                              last_job=28801, jobs=10000, long_jobs=n_long,
                              long_jobs_cleaned=81, min_long_jobs=minimum)
                         for u, f in zip((0.6, 0.8, 0.9, 1.0), (5, 8, 12, 15))
                         for p, v in (("easy", 10.0), ("fcfs_malleable", f))])
    claim = next(c for c in R.claims(published=pub, long_util=rows)
                 if c.claim.startswith("Sect. 5.1: on SDSC, FCFS"))
    assert claim.verdict.value == expected
    assert claim.ours.startswith(f"portion: SDSC-SP2 jobs 18802-28801, {n_long} long jobs "
                                 f"(minimum {minimum}); FCFS-malleable vs EASY slowdown: 60%")
    assert f"fewer than {minimum} long jobs (long_util.min_long_jobs)" in claim.criterion
    # The same numbers with no portion's columns (an older long_util.csv): the criterion alone.
    old = rows.drop(columns=["long_jobs", "min_long_jobs"])
    assert R.long_util_threshold(pub, old).verdict.value == "reproduced"


def test_claims_are_claims_of_paper_u_in_readme_order(pub):
    resp = {t: (100.0, 60.0) for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")}
    out = R.claims(published=pub, traces=_traces_frame(resp, resp))
    assert [c.paper for c in out] == ["utrera"] * 6
    assert [c.claim.split(":")[0] for c in out] == ["Fig. 3(c)", "Fig. 3(b)", "Fig. 3(d)",
                                                     "Table 3", "Fragmentation", "Sect. 5.1"]
    assert {c.figure for c in out} == {"fig3.png", "table3.md", "fragmentation.md",
                                       "slowdown_by_class.md"}
    with pytest.raises(TypeError, match="no criterion reads trace"):
        R.claims(published=pub, trace=_traces_frame(resp, resp))


# Inputs on which each criterion must fail: every rule can say "not reproduced".
def _failing_inputs(pub):
    traces = ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")
    fig2 = pd.DataFrame([{"policy": p, "metric": m, "ours": 0.5}
                         for p, vals in pub["fig2"]["values"].items() for m in vals])
    # Ours: FCFS-malleable twice EASY everywhere; the paper's S: half.
    table1 = pd.DataFrame([dict(load=x, policy=p, metric=m, mean=v, paper_S=s)
                           for x in (0.3, 0.9)
                           for m in ("mean_wait", "mean_response", "utrera_slowdown")
                           for p, v, s in (("easy", 100.0, 100.0), ("fcfs_malleable", 200.0, 50.0))])
    table2 = pd.DataFrame({"cpu_util": 0.01, "long_cpu_util": 0.01, "demand_ratio_log": 0.01},
                          index=pd.Index(traces, name="trace"))
    # Response and slowdown worse, execution shorter, MPL and fragmentation far off.
    on_traces = _traces_frame({t: (100.0, 150.0) for t in traces},
                              {"CTC-SP2": (10.0, 20.0), "SDSC-BLUE": (10.0, 20.0),
                               "SDSC-SP2": (10.0, 5.0)},
                              mpl=(3.0, 3.0), frag=(0.5, 0.5), ex=(10.0, 5.0))
    gains = pd.DataFrame({"trace": "mean of traces", "metric": ["utrera_slowdown", "mean_response"],
                          "mean": [-10.0, -20.0], "ci95": [1.0, 1.0], "n": [5, 5]})
    long_util = pd.DataFrame([dict(long_util=u, policy=p, metric="utrera_slowdown", mean=v,
                                   ci95=0.0, n=1) for u in (0.6, 0.8, 1.0)
                              for p, v in (("easy", 10.0), ("fcfs_malleable", 20.0))])
    orders = pd.DataFrame({"trace": "T", "order": ["oldest", "longest"], "metric": "m",
                           "mean": [2.0, 1.0], "ci95": [0.1, 0.1], "n": 5, "rank": [2, 1]})
    return {R.fig2_numbers: dict(fig2=fig2), R.table1_gains: dict(table1=table1),
            R.table2_workloads: dict(table2=table2), R.fig3_response: dict(traces=on_traces),
            R.fig3_execution: dict(traces=on_traces), R.fig3_slowdown: dict(traces=on_traces),
            R.table3_mpl: dict(traces=on_traces), R.fragmentation_eliminated: dict(traces=on_traces),
            R.headline_gains: dict(gains=gains), R.long_util_threshold: dict(long_util=long_util),
            # FCFS-malleable better for the short narrow jobs, worse for the others.
            R.easy_better_only_short_narrow: dict(traces=_class_frame(
                {"slowdown_short_narrow": (10.0, 2.0), "slowdown_short_wide": (1.0, 3.0),
                 "slowdown_long_narrow": (1.0, 3.0), "slowdown_long_wide": (1.0, 3.0)})),
            R.oldest_first: dict(orders=orders)}


def _class_frame(values, ci=0.1):
    """SDSC-SP2's per-class slowdowns: metric -> (EASY, FCFS-malleable)."""
    return pd.DataFrame([dict(trace="SDSC-SP2", policy=p, metric=m, mean=v[i], ci95=ci, n=5)
                         for m, v in values.items()
                         for i, p in enumerate(("easy", "fcfs_malleable"))])


def test_easy_better_only_for_short_narrow_jobs(pub):
    paper = {"slowdown_short_narrow": (2.0, 10.0), "slowdown_short_wide": (3.0, 1.0),
             "slowdown_long_narrow": (3.0, 1.0), "slowdown_long_wide": (3.0, 3.0)}
    claim = R.easy_better_only_short_narrow(pub, _class_frame(paper))
    assert claim.verdict is Verdict.REPRODUCED and "short narrow: EASY 2.0 vs 10.0" in claim.ours
    # EASY better for every class: only the short narrow case holds.
    worse = {m: (1.0, 5.0) for m in paper}
    assert R.easy_better_only_short_narrow(pub, _class_frame(worse)).verdict is Verdict.PARTLY
    # The class bounds of the runs and of the published file must agree.
    with pytest.raises(ValueError, match="job_classes"):
        R.easy_better_only_short_narrow({**pub, "job_classes": {**pub["job_classes"], "procs": 8}},
                                        _class_frame(paper))
    # Without the classes in the published file: not testable, its words from claims.yaml.
    bare = R.easy_better_only_short_narrow({k: v for k, v in pub.items() if k != "job_classes"},
                                           _class_frame(paper))
    assert (bare.verdict, bare.ours, bare.figure) == (
        Verdict.NOT_TESTABLE, "not in the published file", "slowdown_by_class.md")


def test_every_criterion_can_say_not_reproduced(pub):
    failing = _failing_inputs(pub)
    assert set(failing) == set(R.CRITERIA)  # a new criterion needs its failing case here
    for criterion, tables in failing.items():
        claim = criterion(pub, **tables)
        assert claim.verdict is Verdict.NOT_REPRODUCED, (criterion.__name__, claim.ours)
        assert claim.paper == "utrera" and claim.criterion and claim.source


def test_fig3d_is_partly_with_one_better_trace_and_reproduced_only_with_sdsc_worse(pub):
    resp = {t: (100.0, 60.0) for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")}
    one = {"CTC-SP2": (10.0, 5.0), "SDSC-BLUE": (10.0, 15.0), "SDSC-SP2": (10.0, 20.0)}
    assert _verdicts(R.claims(published=pub, traces=_traces_frame(resp, one)))["Fig. 3(d)"] == \
        "partly reproduced"
    # Better everywhere, SDSC included: the paper's pattern is not there in full.
    every = {t: (10.0, 5.0) for t in resp}
    assert _verdicts(R.claims(published=pub, traces=_traces_frame(resp, every)))["Fig. 3(d)"] == \
        "partly reproduced"


@pytest.mark.parametrize("frag, verdict", [((0.06, 0.0), "partly reproduced"),  # EASY off on SDSC
                                           ((0.06, 0.005), "partly reproduced"),
                                           ((0.06, 0.02), "not reproduced")])
def test_fragmentation_is_judged_on_the_elimination(pub, frag, verdict):
    resp = {t: (100.0, 60.0) for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")}
    assert _verdicts(R.claims(published=pub, traces=_traces_frame(resp, resp, frag=frag)))[
        "Fragmentation"] == verdict


def test_order_ablation_is_paired_by_seed(pub):
    # Seeds move every order together (shared OV draws): the CIs overlap, yet
    # "oldest" is worse than "shortest" in every seed by 1 %.
    from simlib.cube import build_cube
    recs = [{"trace": "T", "policy": p, "seed": s, "mean_response": (100.0 + 30 * s) * f,
             "utrera_slowdown": (10.0 + 3 * s) * f}
            for s in range(5) for p, f in (("a", 1.01), ("b", 1.0), ("c", 1.02), ("d", 1.03))]
    cube = build_cube(recs, ["trace", "policy", "seed"], ["mean_response", "utrera_slowdown"])
    orders = orders_frame(cube, {"oldest": "a", "shortest": "b", "longest": "c", "largest": "d"})
    old = orders[orders["order"] == "oldest"]
    assert (old["ci95"] > old["mean"] * 0.01).all() and (old["p_vs_best"] < 0.01).all()
    claim = R.oldest_first(pub, orders)
    assert claim.verdict is Verdict.NOT_REPRODUCED and "paired p" in claim.ours
    # The same means with seed-to-seed noise of either sign: not significant, partly.
    rng = np.random.default_rng(0)
    noise = {(p, s): rng.normal(0, 2) for p in "abcd" for s in range(5)}
    recs = [{**r, "mean_response": r["mean_response"] + noise[r["policy"], r["seed"]],
             "utrera_slowdown": r["utrera_slowdown"] + noise[r["policy"], r["seed"]] / 10}
            for r in recs]
    cube = build_cube(recs, ["trace", "policy", "seed"], ["mean_response", "utrera_slowdown"])
    orders = orders_frame(cube, {"oldest": "a", "shortest": "b", "longest": "c", "largest": "d"})
    assert R.oldest_first(pub, orders).verdict in (Verdict.PARTLY, Verdict.REPRODUCED)


# ------------------------------------------------------ the reading x claim matrix
def _relabel(df, label, **change):
    """FCFS-malleable's rows of a table again under ``label`` (``change``: column edits)."""
    rows = df[df["policy"] == "fcfs_malleable"].assign(policy=label, **change)
    return pd.concat([df, rows], ignore_index=True)


def test_reading_verdicts_judge_every_claim_under_every_reading(pub):
    from simlib.claims import claims_frame
    tables = _failing_inputs(pub)
    given = {k: v for d in tables.values() for k, v in d.items()}
    # Fig. 3's rows and the job classes' in one table, as time_model_readings.csv.
    given["traces"] = pd.concat([tables[R.fig3_response]["traces"],
                                 tables[R.easy_better_only_short_narrow]["traces"]])
    given["gains"] = given["gains"].assign(policy="fcfs_malleable")
    main = claims_frame(R.claims(published=pub, **given))
    assert len(main) == len(R.CRITERIA)
    # Two readings: "same" repeats the main numbers, "fig2ok" matches Fig. 2 exactly.
    exact = pd.DataFrame([{"policy": "fcfs_malleable:fig2ok", "metric": m, "ours": v}
                          for m, v in pub["fig2"]["values"]["fcfs_malleable"].items()])
    per_reading = {
        "fig2": pd.concat([_relabel(given["fig2"], "fcfs_malleable:same"), exact]),
        **{k: _relabel(_relabel(given[k], "fcfs_malleable:same"), "fcfs_malleable:fig2ok")
           for k in ("table1", "traces", "gains", "long_util")}}
    readings = {"same": "fcfs_malleable:same", "fig2ok": "fcfs_malleable:fig2ok"}
    rv = R.reading_verdicts(main, pub, readings, **per_reading)
    # A verdict for every (claim, reading), none "not run".
    assert len(rv) == len(main) * 2 and "not run" not in set(rv["verdict"])
    assert set(zip(rv["reading"], rv["claim"])) == {(r, c) for r in readings for c in main["claim"]}
    same = rv[rv["reading"] == "same"]
    main_v = dict(zip(main["claim"], main["verdict"]))
    for c, v, how in zip(same["claim"], same["verdict"], same["how"]):
        if how == "simulated":
            assert v == main_v[c], c  # the same numbers, the same rule
    # Table 2 involves no policy: the main verdict everywhere; the orders: main reading only.
    t2 = rv[rv["figure"] == "table2.md"]
    assert set(t2["verdict"]) == {main_v[t2["claim"].iloc[0]]} and set(t2["how"]) == {"policy-free"}
    orders = rv[rv["figure"] == "orders_ablation.png"]
    assert set(orders["verdict"]) == {R.MAIN_ONLY}
    # Fig. 2, Table 1 and Sect. 5.1 are judged on each reading's own rows.
    fig2 = rv[(rv["figure"] == "fig2_numbers.md")].set_index("reading")["verdict"]
    # (FCFS and EASY are off in these inputs: FCFS-malleable's three numbers alone hold.)
    assert fig2["same"] == "not reproduced" and fig2["fig2ok"] == "partly reproduced"
    assert set(rv[rv["figure"].isin(["table1.md", "long_util.png"])]["how"]) == {"simulated"}


def test_reading_verdicts_say_not_run_without_a_readings_rows(pub):
    main = pd.DataFrame({"claim": ["Fig. 2: x"], "figure": ["fig2_numbers.md"],
                         "verdict": ["reproduced"]})
    fig2 = pd.DataFrame({"policy": ["easy"], "metric": ["mean_response"], "ours": [1.0]})
    rv = R.reading_verdicts(main, pub, {"r": "fcfs_malleable:r"}, fig2=fig2)
    assert rv[["verdict", "how"]].values.tolist() == [["not run", "not run"]]


def test_fig2_numbers_read_the_readings_rows(pub):
    fig2 = pd.DataFrame([{"policy": p, "metric": m, "ours": v}
                         for p, vals in pub["fig2"]["values"].items() for m, v in vals.items()])
    fig2.loc[0, "ours"] = 14 / 3
    wrong = fig2[fig2["policy"] == "fcfs_malleable"].assign(policy="fcfs_malleable:x", ours=9.0)
    both = pd.concat([fig2, wrong], ignore_index=True)
    assert R.fig2_numbers(pub, both).verdict.value == "reproduced"
    assert R.fig2_numbers(pub, both, malleable="fcfs_malleable:x").verdict.value == \
        "partly reproduced"
