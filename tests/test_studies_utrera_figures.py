"""Tests of simlib.studies.utrera.figures: the figure and table steps of paper U."""
import doctest
import itertools
import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from simlib.cube import build_cube, write_cube
from simlib.io import write_json
from simlib.studies import Files, StepContext
from simlib.studies.utrera import figures
from simlib.studies.utrera.figures import fig2, long_util, pm, table1
from simlib.studies.utrera.metrics import METRIC_INFO, run_metrics
from simlib.allocations import simulate_with_allocations
from simlib.studies.utrera.transforms import toy_workload

PUBLISHED = str(Path(__file__).resolve().parents[1] / "config/published/utrera.yaml")
PNG = b"\x89PNG\r\n\x1a\n"
FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]


def ctx(inputs, outputs, params):
    return StepContext(input=Files(inputs), output=Files(outputs), params=params,
                       wildcards={}, log=logging.getLogger("test"), config={"scale": "smoke"})


def outputs(tmp_path, *names):
    ext = {"png": "png", "csv": "csv", "md": "md"}
    return {n: str(tmp_path / (f"out.{ext[n]}" if n in ext else f"{n}.csv")) for n in names}


def test_doctests():
    assert doctest.testmod(figures).failed == 0


def test_cells_say_when_there_is_no_interval():
    assert pm(1234.5678, 12.3) == "1235 ± 12"
    assert pm(0.5, float("nan")) == "0.500"


def test_fig2_step_writes_the_nine_numbers(tmp_path):
    sched = {"cpus": 10, "jobs": [list(j) for j in FIG2], "policies": {}}
    for pol in ("fcfs", "easy", "fcfs_malleable"):
        params = {"ov_max": 0.0} if pol == "fcfs_malleable" else {}
        res, seg = simulate_with_allocations(toy_workload(FIG2), pol, cpus=10,
                                             policy_params=params)
        sched["policies"][pol] = {"metrics": run_metrics(res), "segments": [
            {**r, "cpu_ids": list(r["cpu_ids"])} for r in seg.to_dict("records")]}
    write_json(sched, tmp_path / "schedules.json")
    # One other reading of the time model (step utrera_fig2_readings).
    write_json({"policies": {"fcfs_malleable:ov_zero": sched["policies"]["fcfs_malleable"]}},
               tmp_path / "readings.json")
    out = outputs(tmp_path, "png", "csv", "md", "readings_csv")
    fig2(ctx({"schedules": str(tmp_path / "schedules.json"), "published": PUBLISHED,
              "readings": str(tmp_path / "readings.json")}, out,
             {"scale": "smoke", "policies": ["fcfs", "easy", "fcfs_malleable"]}))
    # The main table, then the reading's FCFS-malleable rows under its label.
    readings = pd.read_csv(out["readings_csv"])
    assert readings["policy"].tolist()[9:] == ["fcfs_malleable:ov_zero"] * 3
    assert readings[readings["policy"] == "fcfs_malleable:ov_zero"]["match"].all()
    assert Path(out["png"]).read_bytes().startswith(PNG)
    table = pd.read_csv(out["csv"])
    assert len(table) == 9 and table["match"].all()
    md = Path(out["md"]).read_text()
    assert md.startswith("# Fig. 2: the nine numbers, ours vs published\n\nToy example on 10 CPUs")
    assert "| FCFS-malleable |" in md  # display names, not keys


def _cube(tmp_path, dims, coords, value):
    recs = []
    keys = list(coords)
    for combo in itertools.product(*coords.values()):
        rec = dict(zip(keys, combo))
        recs += [{**rec, "seed": s, **value(rec, s)} for s in (0, 1, 2)]
    cube = build_cube(recs, dims, ["mean_wait", "mean_response", "utrera_slowdown"],
                      metric_info=METRIC_INFO)
    path = tmp_path / "cube.nc"
    write_cube(cube, path)
    return str(path)


def test_table1_step_compares_gains_with_the_paper(tmp_path):
    def value(rec, s):
        f = 1.0 if rec["policy"] == "easy" else 0.5  # FCFS-malleable halves everything
        return {"mean_wait": f * 100 + s, "mean_response": f * 200 + s, "utrera_slowdown": f * 4}
    cube = _cube(tmp_path, ["policy", "load", "seed"],
                 {"policy": ["easy", "fcfs_malleable"], "load": [0.3, 0.5, 0.7, 0.9]}, value)
    fit = {"fits": [{"load": x, "mean_runtime": 40.0 + 10 * x} for x in (0.3, 0.9)]}
    (tmp_path / "fit.json").write_text(json.dumps(fit))
    out = outputs(tmp_path, "png", "csv", "md", "readings_csv")
    table1(ctx({"cube": cube, "fits": [str(tmp_path / "fit.json")], "published": PUBLISHED}, out,
               {"scale": "smoke", "fit": "runtimes", "fits": ["runtimes"], "tau": 10.0,
                "lublin": {"n_jobs": 150, "machine_size": 128}}))
    t1 = pd.read_csv(out["csv"])
    assert len(t1) == 4 * 2 * 3 and t1["paper_S"].notna().all()
    md = Path(out["md"]).read_text()
    assert "3 seeds" in md and "mean runtime per load 0.3: 43 s, 0.9: 49 s" in md
    gains = md.split("## Gain of FCFS-malleable over EASY")[1]
    assert "| utrera_slowdown | 90 % | 50 |" in gains
    assert Path(out["png"]).read_bytes().startswith(PNG)


def test_table1_step_main_fit_alternatives_and_bounded_slowdown(tmp_path):
    metrics = ["mean_wait", "mean_response", "utrera_slowdown", "mean_bounded_slowdown"]
    recs = [{"fit": fit, "policy": pol, "load": x, "seed": s, "mean_wait": 10.0 * (s + 1),
             "mean_response": 60.0 + s, "utrera_slowdown": 3.0 if pol == "easy" else 2.0,
             "mean_bounded_slowdown": (2.0 if pol == "easy" else 1.5) + (fit == "runtimes")}
            for fit in ("sizes", "runtimes") for pol in ("easy", "fcfs_malleable")
            for x in (0.3, 0.9) for s in (0, 1, 2)]
    # Another reading of the time model, run on the main fit only.
    recs += [{**r, "policy": "fcfs_malleable:ov_zero", "mean_response": 50.0}
             for r in recs if r["fit"] == "sizes" and r["policy"] == "fcfs_malleable"]
    cube = tmp_path / "cube.nc"
    write_cube(build_cube(recs, ["fit", "policy", "load", "seed"], metrics,
                          metric_info=METRIC_INFO), cube)
    fits = []
    for fit, run in (("sizes", 52.0), ("runtimes", 150.0)):
        path = tmp_path / f"{fit}.json"
        path.write_text(json.dumps({"fit": fit, "fits": [
            {"load": x, "mean_runtime": run, "mean_size": 20.0 + 80 * x,
             "machine_wide_jobs": int(100 * x)} for x in (0.3, 0.9)]}))
        fits.append(str(path))
    out = outputs(tmp_path, "png", "csv", "md", "readings_csv")
    table1(ctx({"cube": str(cube), "fits": fits, "published": PUBLISHED}, out,
               {"scale": "smoke", "fit": "sizes", "fits": ["sizes", "runtimes"], "tau": 10.0,
                "lublin": {"n_jobs": 150, "machine_size": 128}}))
    t1 = pd.read_csv(out["csv"])
    assert list(t1.columns[:2]) == ["fit", "main"] and len(t1) == 2 * 2 * 2 * 4
    assert set(t1.loc[t1["main"], "fit"]) == {"sizes"}
    bsld = t1[t1["metric"] == "mean_bounded_slowdown"]
    assert bsld["paper_S"].isna().all() and t1.loc[t1["metric"] != "mean_bounded_slowdown",
                                                    "paper_S"].notna().all()
    md = Path(out["md"]).read_text()
    main, alt = md.split("## Alternative workloads, fit: runtimes")
    assert "main fit: sizes" in main and "mean runtime per load 0.3: 52 s, 0.9: 52 s" in main
    assert "mean size per load 0.3: 44, 0.9: 92" in main
    assert "max(1, response / max(execution as run, 10 s))" in main
    assert "| bsld ours |" in main and "| 30 % | EASY backfilling | 20.0 ± 25 | 55 | 60 |" in main
    assert "mean runtime per load 0.3: 150 s" in alt and "| 30 % | EASY backfilling |" in alt
    assert "| mean_bounded_slowdown | 30 % | 25 | – | – |" in main
    assert "| mean_bounded_slowdown | 30 % | 16.7 | – | – |" in alt
    # The main reading's table holds no other reading; readings_csv: every reading, main fit.
    assert set(t1["policy"]) == {"easy", "fcfs_malleable"} and "ov_zero" not in md
    rd = pd.read_csv(out["readings_csv"])
    assert set(rd["fit"]) == {"sizes"} and rd["main"].all() and len(rd) == 3 * 2 * 4
    assert set(rd.loc[(rd["policy"] == "fcfs_malleable:ov_zero")
                      & (rd["metric"] == "mean_response"), "mean"]) == {50.0}
    pd.testing.assert_frame_equal(rd[rd["policy"] != "fcfs_malleable:ov_zero"].reset_index(
        drop=True), t1[t1["main"]].reset_index(drop=True))
    assert Path(out["png"]).read_bytes().startswith(PNG)


def test_long_util_step_states_the_long_jobs(tmp_path):
    def value(rec, s):
        return {"mean_wait": 1.0, "mean_response": 10.0 + s,
                "utrera_slowdown": 2.0 if rec["policy"] == "easy" else 1.0 + rec["long_util"]}
    cube = _cube(tmp_path, ["policy", "long_util", "seed"],
                 {"policy": ["easy", "fcfs_malleable", "fcfs_malleable:ov_zero"],
                  "long_util": [0.6, 1.0]}, value)
    info = {"trace": "SDSC-SP2", "jobs": 1000, "first_job": 27298, "selection": "densest",
            "long_jobs": 4, "long_jobs_cleaned": 81,
            "portion": {"long_jobs": 4, "long_cpu_util_mean": None}}
    (tmp_path / "info.json").write_text(json.dumps(info))
    out = outputs(tmp_path, "png", "csv", "md", "readings_csv")
    long_util(ctx({"cube": cube, "info": str(tmp_path / "info.json"), "published": PUBLISHED},
                  out, {"scale": "smoke", "trace": "SDSC-SP2", "mode": "set",
                        "min_long_jobs": 20}))
    md = Path(out["md"]).read_text()
    assert md.startswith("# Sect. 5.1: SDSC-SP2 with long jobs' CPU utilization varied (smoke")
    assert ("portion: jobs 27,298-28,297 of the cleaned log (1,000 jobs, the window of that many "
            "consecutive jobs holding the most long jobs), 4 long jobs of the cleaned log's 81") in md
    assert "Fewer than min_long_jobs = 20 long jobs" in md
    assert "n/a: none with CPU time in the trace" in md
    assert "| 60 % | 2.00 | 11.0 ± 2.5 | 1.60 | 11.0 ± 2.5 |" in md
    csv = pd.read_csv(out["csv"])
    assert set(csv["long_util"]) == {0.6, 1.0}
    # The portion's columns, read by the claim: too few long jobs, not testable here.
    assert (csv[["first_job", "last_job", "long_jobs", "min_long_jobs"]].drop_duplicates()
            .values.tolist()) == [[27298, 28297, 4, 20]]
    from simlib.studies.utrera.claims import long_util_threshold
    from simlib.studies.utrera.published import load_published
    claim = long_util_threshold(load_published(PUBLISHED), csv)
    assert claim.verdict.value == "not testable here"
    assert claim.ours.startswith("portion: SDSC-SP2 jobs 27298-28297, 4 long jobs (minimum 20); ")
    enough = long_util_threshold(load_published(PUBLISHED), csv.assign(long_jobs=20))
    assert enough.verdict.value != "not testable here"
    # Every reading's rows, with the portion's columns: the same rule per reading.
    assert set(csv["policy"]) == {"easy", "fcfs_malleable"}
    rd = pd.read_csv(out["readings_csv"])
    assert set(rd["policy"]) == {"easy", "fcfs_malleable", "fcfs_malleable:ov_zero"}
    assert long_util_threshold(load_published(PUBLISHED), rd,
                               malleable="fcfs_malleable:ov_zero").verdict.value == \
        "not testable here"


@pytest.mark.parametrize("x, text", [(float("inf"), "–"), (0.0, "0")])
def test_pm_edge_values(x, text):
    assert pm(x, 0.0) == text


def test_whole_workloads_step_compares_whole_workloads_portions_and_paper(tmp_path):
    from simlib.studies.utrera.figures import WHOLE_METRICS, whole_workloads
    metrics = list(WHOLE_METRICS)

    def cube(path, factor):
        recs = [{"trace": t, "policy": p, "seed": s,
                 **{m: factor * (2.0 if p == "easy" else 1.0) * (1 + 0.1 * s) for m in metrics}}
                for t in ("CTC-SP2", "SDSC-SP2") for p in ("easy", "fcfs_malleable")
                for s in (0, 1)]
        write_cube(build_cube(recs, ["trace", "policy", "seed"], metrics,
                              metric_info=METRIC_INFO), path)
        return str(path)

    infos = []
    for t, n in (("CTC-SP2", 25000), ("SDSC-SP2", 45000)):
        infos.append(str(tmp_path / f"{t}.json"))
        Path(infos[-1]).write_text(json.dumps({"trace": t, "first_job": 0, "jobs": n}))
    out = outputs(tmp_path, "csv", "md")
    whole_workloads(ctx({"cube": cube(tmp_path / "w.nc", 3.0),
                         "portions_cube": cube(tmp_path / "p.nc", 1.0),
                         "infos": infos, "published": PUBLISHED}, out,
                        {"scale": "smoke", "traces": ["CTC-SP2", "SDSC-SP2"],
                         "portions": {"CTC-SP2": {"first_job": 20000, "n_jobs": 5000},
                                      "SDSC-SP2": {"first_job": 40000, "n_jobs": 5000}}}))
    csv = pd.read_csv(out["csv"])
    assert len(csv) == 2 * len(metrics) * 2
    r = csv[(csv.trace == "SDSC-SP2") & (csv.metric == "utrera_mean_mpl")
            & (csv.policy == "fcfs_malleable")].iloc[0]
    assert (r.whole_mean, r.portion_mean, r.paper) == (pytest.approx(3.15), pytest.approx(1.05),
                                                       1.47)
    assert (r.whole_first_job, r.whole_jobs, r.portion_first_job, r.portion_jobs) == (
        0, 45000, 40000, 5000)
    assert csv[csv.metric == "mean_wait"]["paper"].isna().all()  # Fig. 3 prints no numbers
    md = Path(out["md"]).read_text()
    assert md.startswith("# Table 2's 'Jobs' column read as whole workloads (smoke scale)")
    assert "SDSC-SP2: whole workload = jobs 0-44,999, portion = jobs 40,000-44,999 (paper: " \
           "40K-45K)" in md
    assert "## The claims on the traces under each reading" in md
    assert "| verdict on the portions | verdict on the whole workloads |" in md
    # FCFS-malleable halves every metric on both readings: the response claim holds on both.
    row = next(line for line in md.splitlines() if line.startswith("| Fig. 3(c)"))
    assert row.split(" | ")[1:3] == ["reproduced", "reproduced"]


# ------------------------------------------------------------ extra_policies
def test_shown_policies_are_the_compared_ones_then_the_users():
    cube = build_cube([{"policy": p, "seed": 0, "mean_wait": 1.0} for p in
                       ("easy", "fcfs_malleable", "fcfs_malleable:ov0",
                        "fcfs_malleable:order=longest", "mine", "a_user")],
                      ["policy", "seed"], ["mean_wait"])
    # The cube's order (sorted): never another reading or order of FCFS-malleable.
    assert figures.shown(cube) == ["easy", "fcfs_malleable", "a_user", "mine"]


def test_table1_step_shows_a_users_policy_and_keeps_the_verdict(tmp_path):
    def value(rec, s):
        f = {"easy": 1.0, "fcfs_malleable": 0.5, "mine": 0.8}[rec["policy"].partition(":")[0]]
        return {"mean_wait": f * 100 + s, "mean_response": f * 200 + s, "utrera_slowdown": f * 4}
    pols = ["easy", "fcfs_malleable", "fcfs_malleable:ov0"]
    plain = _cube(tmp_path, ["policy", "load", "seed"], {"policy": pols, "load": [0.3, 0.9]},
                  value)
    (tmp_path / "plain.nc").write_bytes(Path(plain).read_bytes())
    users = _cube(tmp_path, ["policy", "load", "seed"],
                  {"policy": [*pols, "mine"], "load": [0.3, 0.9]}, value)
    params = {"scale": "smoke", "fit": "sizes", "fits": ["sizes"], "tau": 10.0,
              "lublin": {"n_jobs": 150, "machine_size": 128}}
    got = {}
    for name, cube in (("plain", str(tmp_path / "plain.nc")), ("users", users)):
        out = {k: v.replace("out.", f"{name}.").replace(f"{k}.csv", f"{name}_{k}.csv")
               for k, v in outputs(tmp_path, "png", "csv", "md", "readings_csv").items()}
        table1(ctx({"cube": cube, "fits": [], "published": PUBLISHED}, out, params))
        got[name] = out
    t1 = pd.read_csv(got["users"]["csv"])
    assert set(t1["policy"]) == {"easy", "fcfs_malleable", "mine"}
    assert t1.loc[t1["policy"] == "mine", "paper_S"].isna().all()
    md = Path(got["users"]["md"]).read_text()
    assert "| 30 % | mine | 81.0 ± 2.5 | – | – | 161 ± 2.5 | – | – | 3.20 | – | – |" in md
    # The readings' rows hold no user's policy, and the paper's rows are unchanged.
    rd = pd.read_csv(got["users"]["readings_csv"])
    assert "mine" not in set(rd["policy"])
    pd.testing.assert_frame_equal(rd, pd.read_csv(got["plain"]["readings_csv"]))
    paper = t1[t1["policy"] != "mine"].reset_index(drop=True)
    pd.testing.assert_frame_equal(paper, pd.read_csv(got["plain"]["csv"]))
    from simlib.studies.utrera.claims import table1_gains
    from simlib.studies.utrera.published import load_published
    pub = load_published(PUBLISHED)
    assert table1_gains(pub, t1) == table1_gains(pub, paper)
    assert Path(got["users"]["png"]).read_bytes() != Path(got["plain"]["png"]).read_bytes()


def test_long_util_step_shows_a_users_policy(tmp_path):
    def value(rec, s):
        return {"mean_wait": 1.0, "mean_response": 10.0 + s,
                "utrera_slowdown": {"easy": 2.0, "mine": 1.5}.get(rec["policy"], 1.2)}
    cube = _cube(tmp_path, ["policy", "long_util", "seed"],
                 {"policy": ["easy", "fcfs_malleable", "fcfs_malleable:ov_zero", "mine"],
                  "long_util": [0.6, 1.0]}, value)
    info = {"trace": "SDSC-SP2", "jobs": 1000, "first_job": 0, "long_jobs": 30,
            "portion": {"long_jobs": 30, "long_cpu_util_mean": 0.9}}
    (tmp_path / "info.json").write_text(json.dumps(info))
    out = outputs(tmp_path, "png", "csv", "md", "readings_csv")
    long_util(ctx({"cube": cube, "info": str(tmp_path / "info.json"), "published": PUBLISHED},
                  out, {"scale": "smoke", "trace": "SDSC-SP2", "mode": "set",
                        "min_long_jobs": 20}))
    csv = pd.read_csv(out["csv"])
    assert set(csv["policy"]) == {"easy", "fcfs_malleable", "mine"}
    assert "| mine slowdown |" in Path(out["md"]).read_text()
    rd = pd.read_csv(out["readings_csv"])
    assert set(rd["policy"]) == {"easy", "fcfs_malleable", "fcfs_malleable:ov_zero"}
    from simlib.studies.utrera.claims import long_util_threshold
    from simlib.studies.utrera.published import load_published
    pub = load_published(PUBLISHED)
    assert long_util_threshold(pub, csv) == long_util_threshold(
        pub, csv[csv["policy"] != "mine"])
