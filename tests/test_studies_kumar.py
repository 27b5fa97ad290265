"""Paper K's study glue (simlib.studies.kumar): grid, checks, workload sets,
simulation chunks, cubes, the C_s pick, published numbers, Fig. 2."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers_kumar_study import STUDY, config, cs_cube

from simlib.errors import ConfigError
from simlib.studies import kumar as K
from simlib.workload.cwf import read_cwf, split_commands

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "config/published/kumar.yaml"


# ------------------------------------------------------------------ plan
def test_plan_resolves_the_scale_and_defaults():
    plan = K.KumarPlan.from_config(config("default"))
    assert plan.seeds == 3 and plan.loads == (0.5, 0.7, 0.9) and plan.cs_values == (1, 2, 3)
    assert plan.cs_sweep["pick"] == {"metric": "mean_wait", "rule": "argmin"}
    assert plan.purpose_loads("cs") == [0.9]
    assert plan.p_s("het_pd09_ps05") == 0.5
    assert plan.params("elastic_het").size_scale == "log2"
    # 3 C_s-sweep workloads x 3 policies + 7 load-sweep workloads x 3 policies.
    assert len(plan.jobs()) == 9 + 21


def test_which_policies_take_the_pick():
    plan = K.KumarPlan.from_config(config())
    assert [p for p in STUDY["policies"] if plan.cs_dependent(p)] == [
        "delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"]
    fixed = K.KumarPlan.from_config(config(policies={**STUDY["policies"],
                                                     "delayed_los": {"cs": 4}}))
    assert not fixed.cs_dependent("delayed_los")
    assert fixed.simulation_spec("load", "ps02", "delayed_los")["cs"] is None
    assert {r["cs"] for r in fixed.runs("load", "ps02", "delayed_los")} == {4}


def test_simulation_specs_and_runs():
    plan = K.KumarPlan.from_config(config())
    sweep = plan.simulation_spec("cs", "ps05", "delayed_los")
    assert sweep["cs"] == [1, 3] and sweep["loads"] == [0.9]
    assert [(r["seed"], r["cs"]) for r in K.spec_runs(sweep)] == [(0, 1), (0, 3), (1, 1), (1, 3)]
    ref = plan.simulation_spec("cs", "ps05", "easy")
    assert [r["cs"] for r in K.spec_runs(ref)] == [None, None]
    picked = plan.simulation_spec("load", "het_pd05_ps02", "hybrid_los")
    assert picked["cs"] == "pick" and picked["p_s"] == 0.2
    assert [(r["load"], r["cs"]) for r in K.spec_runs(picked, 6)] == [
        (0.6, 6), (0.6, 6), (0.9, 6), (0.9, 6)]
    with pytest.raises(ConfigError, match="pick"):
        K.spec_runs(picked)


def test_generation_spec_pairs_seeds_across_variants_not_sweeps():
    plan = K.KumarPlan.from_config(config())
    a = plan.generation_spec("load", "ps02")
    b = plan.generation_spec("load", "het_pd05_ps02")
    assert a["entropy_prefix"] == b["entropy_prefix"] == [7, 1]
    assert plan.generation_spec("cs", "ps02")["entropy_prefix"] == [7, 0]


def test_subtree_depends_only_on_its_sweep():
    plan = K.KumarPlan.from_config(config())
    other = K.KumarPlan.from_config(config(cs_values={"smoke": [1, 2, 5], "default": [1],
                                                      "full": [1]}))
    assert plan.subtree("load") == other.subtree("load")
    assert plan.subtree("cs") != other.subtree("cs")


# ---------------------------------------------------------------- checks
def published():
    return K.load_published(PUBLISHED)


def test_check_config_accepts_the_repository_grid():
    import yaml
    grid = yaml.safe_load((REPO / "config/grids/kumar.yaml").read_text())
    K.check_config({"studies": grid["studies"]}, published())
    K.check_config(config(), published())


@pytest.mark.parametrize("changes, message", [
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps03": ["easy"]}},
     "config studies.kumar.load_sweeps.ps03: unknown workload 'ps03'"),
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps02": ["easy", "eazy"]}},
     "config studies.kumar.load_sweeps.ps02[1]: policy 'eazy' is not in"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "swept": "easy"}},
     "config studies.kumar.cs_sweep.swept: 'easy' has no C_s parameter"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "workloads": ["ps02", "ps05", "ps08", "elastic_batch"]}},
     "have the same P_S = 0.5"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "workloads": ["ps05", "ps08"]}},
     "needs a C_s picked for P_S = 0.2"),
    ({"generator": {"size_scale": "cubic"}},
     "config studies.kumar.workloads.ps02: Kumar parameter 'size_scale'"),
    ({"workloads": {**STUDY["workloads"], "ps05": {"p_s": 1.5}}},
     "config studies.kumar.workloads.ps05: Kumar parameter 'p_s' = 1.5"),
    ({"load_sweeps": {k: v for k, v in STUDY["load_sweeps"].items() if k != "ps08"}},
     "paper K's fig8 needs workload 'ps08'"),
    ({"load_sweeps": {**STUDY["load_sweeps"], "ps02": ["easy", "delayed_los"]}},
     "Table IV compares los"),
    ({"cs_sweep": {**STUDY["cs_sweep"], "pick": {"rule": "median"}}},
     "cs_sweep.pick.rule: 'median'"),
])
def test_check_config_names_the_offending_key(changes, message):
    with pytest.raises(ConfigError, match=None) as err:
        K.check_config(config(**changes), published())
    assert message in str(err.value)


def test_check_config_without_the_study_does_nothing():
    K.check_config({"studies": {"baseline": {}}})


# ------------------------------------------------------------- workloads
@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Workload sets of two variants of the load sweep, generated once."""
    root = tmp_path_factory.mktemp("kumar_sets")
    plan = K.KumarPlan.from_config(config())
    out = {}
    for w in ("ps02", "het_pd05_ps02", "elastic_het"):
        d = root / w
        K.generate_set(plan.generation_spec("load", w), d)
        out[w] = d
    return plan, out


def test_generate_set_writes_every_load_and_seed(sets):
    plan, dirs = sets
    doc = json.loads((dirs["ps02"] / "index.json").read_text())
    assert [(e["load"], e["seed"]) for e in doc["entries"]] == [(0.6, 0), (0.6, 1), (0.9, 0),
                                                                 (0.9, 1)]
    for e in doc["entries"]:
        assert (dirs["ps02"] / e["file"]).exists()
        assert abs(e["offered_load"] / e["load"] - 1) <= 0.01
        assert e["entropy"] == [7, 1, e["seed"]]
    assert doc["workload"] == "ps02" and doc["params"]["p_s"] == 0.2
    assert math.isclose(doc["expected_n_bar"], 179.0, rel_tol=1e-3)
    wl = read_cwf(K.workload_file(dirs["ps02"], 0.9, 1))
    assert len(wl.jobs) == 40


def test_variants_differing_in_p_d_share_jobs_and_arrivals(sets):
    _, dirs = sets
    a, _ = split_commands(read_cwf(K.workload_file(dirs["ps02"], 0.6, 1)))
    b, _ = split_commands(read_cwf(K.workload_file(dirs["het_pd05_ps02"], 0.6, 1)))
    for col in ("submit_time", "run_time", "requested_procs"):
        assert (a.jobs[col].to_numpy() == b.jobs[col].to_numpy()).all(), col
    assert (a.jobs["requested_start"] == -1).all()
    assert (b.jobs["requested_start"] >= 0).any()


def test_simulate_set_records_one_run_per_load_and_seed(sets):
    plan, dirs = sets
    spec = plan.simulation_spec("load", "het_pd05_ps02", "hybrid_los")
    picks = {"by_p_s": {"0.2": 2}}
    records, jobs = K.simulate_set(spec, dirs["het_pd05_ps02"], picks=picks)
    assert [(r["load"], r["seed"], r["cs"]) for r in records] == [
        (0.6, 0, 2), (0.6, 1, 2), (0.9, 0, 2), (0.9, 1, 2)]
    for r in records:
        assert r["jobs"] == 40 and r["cs_used"] == 2.0 and r["policy"] == "hybrid_los"
        assert r["dedicated_jobs"] > 0 and 0 <= r["dedicated_on_time"] <= 1
        assert r["mean_wait"] >= 0 and 0 < r["utilization"] <= 1
        assert r["kumar_slowdown"] >= 1
        assert math.isnan(r["commands_applied"])  # no ECC processor
    assert len(jobs) == 4 * 40
    assert list(jobs.columns[:4]) == ["load", "seed", "cs", "job_id"]
    with pytest.raises(ConfigError, match="P_S = 0.2"):
        K.simulate_set(spec, dirs["het_pd05_ps02"], picks={"by_p_s": {"0.5": 3}})


def test_elastic_policies_apply_the_commands(sets):
    plan, dirs = sets
    spec = plan.simulation_spec("load", "elastic_het", "easy_de")
    records, _ = K.simulate_set(spec, dirs["elastic_het"])
    doc = json.loads((dirs["elastic_het"] / "index.json").read_text())
    issued = {(e["load"], e["seed"]): sum(e["commands"].values()) for e in doc["entries"]}
    assert sum(issued.values()) > 0
    for r in records:
        assert r["commands"] == issued[(r["load"], r["seed"])]
        assert 0 < r["commands_applied"] <= r["commands"] or r["commands"] == 0


def test_run_metrics_measure_dedicated_timeliness():
    from simlib.runner import simulate
    from simlib.workload.swf import SWF_FIELDS, Workload
    rows = []
    # Job 2 is submitted (t = 10) after job 1 took the whole machine (t = 0).
    for i, (submit, procs, run) in enumerate([(0, 4, 100), (10, 4, 10)]):
        r = [-1] * len(SWF_FIELDS)
        r[0], r[1], r[3], r[4], r[7], r[8] = i + 1, submit, run, procs, procs, run
        rows.append(r)
    jobs = pd.DataFrame(rows, columns=list(SWF_FIELDS))
    jobs["requested_start"] = [-1, 50]   # job 2: dedicated, wants t = 50
    wl = Workload(jobs)
    pol = K.make_policy("easy_d")
    res = simulate(wl, pol, cpus=4)
    m = K.run_metrics(res, wl, 4, pol)
    # The machine is busy until 100: the dedicated job starts 50 s late.
    assert m["dedicated_jobs"] == 1 and m["dedicated_on_time"] == 0.0
    assert m["dedicated_mean_delay"] == 50.0
    assert m["kumar_slowdown"] == pytest.approx((45 + 55) / 55)


# ----------------------------------------------------------------- cubes
def test_build_cube_repeats_cs_independent_policies_along_cs():
    recs = [{"workload": "ps05", "policy": "easy", "load": 0.9, "seed": 0, "cs": None,
             "mean_wait": 5.0, "cs_used": math.nan},
            {"workload": "ps05", "policy": "delayed_los", "load": 0.9, "seed": 0, "cs": 2,
             "mean_wait": 3.0, "cs_used": 2.0}]
    cube = K.build_kumar_cube(recs, "cs", [1, 2])
    assert dict(cube.sizes) == {"workload": 1, "policy": 2, "cs": 2, "seed": 1}
    assert cube["mean_wait"].sel(policy="easy").values.ravel().tolist() == [5.0, 5.0]
    dl = cube["mean_wait"].sel(policy="delayed_los").values.ravel()
    assert np.isnan(dl[0]) and dl[1] == 3.0
    assert "cs_used" not in cube
    load = K.build_kumar_cube(recs[:1], "load")
    assert dict(load.sizes) == {"workload": 1, "policy": 1, "load": 1, "seed": 1}
    assert load["mean_wait"].attrs["units"] == "s"


# ------------------------------------------------------------------ pick
def test_pick_cs_argmin_and_near_best():
    cube = cs_cube(best=3)
    df = K.pick_cs(cube)
    assert df["cs"].tolist() == [3, 3, 3] and df["best_cs"].tolist() == [3, 3, 3]
    # Every seed is scaled by the same factor: differences to the best are
    # exact, so only the best itself is "near".
    assert df["near_best"].tolist() == [[3], [3], [3]]
    util = K.pick_cs(cube, metric="utilization")
    assert util["cs"].tolist() == [1, 1, 1]  # all equal: smallest C_s wins ties


def test_pick_cs_one_se_prefers_the_smallest_close_cs():
    from simlib.cube import build_cube
    recs = []
    # Seed offsets -2..2: standard error sqrt(2.5 / 5) = 0.707 at every C_s.
    for c, m in ((1, 100.0), (2, 89.6), (3, 89.3), (4, 89.0)):
        for s, d in enumerate((-2, -1, 0, 1, 2)):
            recs.append({"workload": "w", "policy": "delayed_los", "cs": c, "seed": s,
                         "mean_wait": m + d})
    cube = build_cube(recs, ["workload", "policy", "cs", "seed"], ["mean_wait"])
    assert K.pick_cs(cube)["cs"].item() == 4
    assert K.pick_cs(cube, rule="one_se")["cs"].item() == 2   # 89.6 <= 89.0 + 0.707
    with pytest.raises(ConfigError, match="rule"):
        K.pick_cs(cube, rule="best")


def test_picks_document_keys_by_p_s():
    df = K.pick_cs(cs_cube(best=2))
    doc = K.picks_document(df, {"ps02": 0.2, "ps05": 0.5, "ps08": 0.8}, metric="mean_wait")
    assert doc["by_p_s"] == {"0.2": 2, "0.5": 2, "0.8": 2}
    assert doc["by_workload"]["ps05"] == 2 and doc["metric"] == "mean_wait"
    json.dumps(doc)  # JSON-ready


# ------------------------------------------------------------- published
def test_load_published_reads_the_repository_file():
    pub = published()
    assert pub["tables"]["IV"]["values"]["los"]["mean_wait"] == 31.88
    assert pub["tables"]["VII"]["new"] == "hybrid_los_e"
    assert pub["cs_optimum"]["values"] == [7, 8]
    assert len(pub["table3"]["values"]) == 12


@pytest.mark.parametrize("text, message", [
    ("paper: x\n", "key 'table3' missing"),
    (PUBLISHED.read_text().replace("  source: \"Table III", "  sauce: \"Table III"),
     "table3.source missing"),
    (PUBLISHED.read_text().replace("mean_wait: 31.88", "mean_wait: lots"),
     "tables.IV.values.los.mean_wait must be a number"),
    (PUBLISHED.read_text().replace("    new: delayed_los\n", "    new: delayed\n"),
     "tables.IV.new: not a registered policy"),
    ("[1, 2", "cannot read published numbers"),
])
def test_load_published_names_the_bad_key(tmp_path, text, message):
    p = tmp_path / "k.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        K.load_published(p)
    assert message in str(err.value) and str(p) in str(err.value)


# -------------------------------------------------------------- examples
def test_fig2_example_los_starts_the_seven_delayed_los_the_four_and_six():
    s = K.fig2_example()
    los = s["los"].set_index("job_id")
    dl = s["delayed_los"].set_index("job_id")
    assert los["starting_time"].tolist() == [0.0, 10.0, 10.0]
    assert dl["starting_time"].tolist() == [10.0, 0.0, 0.0]
    busy = {k: int(df.loc[df["starting_time"] == 0, "requested_number_of_resources"].sum())
            for k, df in s.items()}
    assert busy == {"los": 7, "delayed_los": 10}
    # With C_s = 0 Delayed-LOS is LOS.
    assert K.fig2_example(cs=0)["delayed_los"]["starting_time"].tolist() == [0.0, 10.0, 10.0]


def test_artifact_list_names_every_figure_once():
    plan = K.KumarPlan.from_config(config())
    arts = K.artifact_list(plan)
    files = [a["file"] for a in arts]
    assert len(files) == len(set(files))
    for spec in K.FIGURES.values():
        assert f"{spec['file']}.png" in files and f"{spec['file']}.svg" in files
    # ps02's C_s sweep is not a paper figure but is drawn (it sets Fig. 7's C_s).
    assert "cs_sweep_ps02.png" in files and "cs_sweep_ps05.png" not in files
    assert {a["rule"] for a in arts} == {"fig1", "examples", "figures", "tables", "pick"}
    assert not any(a["rule"] == "fig1" for a in K.artifact_list(plan, fig1=False))
