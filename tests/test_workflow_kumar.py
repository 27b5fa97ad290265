"""Paper K through the Snakemake pipeline: config checks, the planned DAG,
a reduced smoke run of every K artifact, and incremental reruns.

Runs happen in temporary directories (``--directory``) on the synthetic
trace fixtures of :mod:`helpers_pipeline`; the repository's results/ and
paper_figures/ are never touched.
"""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from helpers_pipeline import (REPO, assert_config_rejected, job_counts, snakemake, unbatched,
                              write_yaml)
from helpers_pipeline import pending as all_pending
from simlib.cube import read_cube
from simlib.studies.kumar.plan import FIGURES

pytestmark = pytest.mark.pipeline

K = "paper_figures/kumar"
CS_DEPENDENT = {"delayed_los", "hybrid_los", "delayed_los_e", "hybrid_los_e"}


def pending(workdir, *args):
    """Output files Snakemake would (re)build for paper K's README, as {path: rule}."""
    return all_pending(workdir, f"{K}/README.md", *args)


# ----------------------------------------------------------- configuration

@pytest.mark.parametrize("override, message", [
    ("studies: {kumar: {load_sweeps: {ps03: [easy]}}}",
     "config studies.kumar.load_sweeps.ps03: unknown workload 'ps03'"),
    ("studies: {kumar: {policies: {eazy: {}}}}",
     "config studies.kumar.policies.eazy: unknown policy 'eazy'"),
    ("studies: {kumar: {policies: {los: {units: 32}}}}",
     "config studies.kumar.policies.los: unknown parameter(s) units"),
    ("studies: {kumar: {load_sweeps: {ps02: [easy, easy_d]}}}",
     "config studies.kumar.load_sweeps.ps02: Table IV compares delayed_los, which this "
     "workload does not run"),
    ("studies: {kumar: {generator: {size_scale: cubic}}}",
     "config studies.kumar.generator.size_scale: 'cubic' is not one of ['linear', 'log2']"),
    ("studies: {kumar: {cs_sweep: {pick: {rule: median}}}}",
     "config studies.kumar.cs_sweep.pick.rule: 'median' is not one of"),
    ("studies: {kumar: {seeds: {smoke: 0}}}",
     "config studies.kumar.seeds.smoke: 0 is less than the minimum of 1"),
    ("studies: {kumar: {published: nowhere.yaml}}",
     "config studies.kumar.published: no such file"),
    ("studies: {kumar: {fig1_sensitivity: {ties: [newest]}}}",
     "config studies.kumar.fig1_sensitivity.ties[0]: 'newest' is not one of"),
    ("studies: {kumar: {fig1_sensitivity: {lookaheads: [500]}}}",
     "config studies.kumar.fig1_sensitivity.lookaheads: [500] does not contain items matching"),
])
def test_bad_kumar_config_is_rejected_before_any_job(tmp_path, override, message):
    assert_config_rejected(tmp_path, override, message)


def test_dry_run_plans_paper_k_in_chunks(tmp_path):
    _, out = snakemake(tmp_path, "-n", "--config", "scale=smoke", "--configfile",
                       unbatched(tmp_path))
    stats = job_counts(out)
    # 3 C_s-sweep + 7 load-sweep + 2 long-run workload sets + one set per
    # (reading, workload) of the grid's readings; one simulation chunk per
    # (sweep, workload, policy): 3 x 3 + 7 x 3 + 2 x 3 + 3 per reading set.
    import yaml
    grid = yaml.safe_load((REPO / "config/grids/kumar.yaml").read_text())["studies"]["kumar"]
    reading_sets = sum(len(r["workloads"]) for r in grid["readings"].values())
    assert stats["kumar_workloads"] == 12 + reading_sets
    assert stats["kumar_simulate"] == 36 + 3 * reading_sets
    assert stats["kumar_aggregate"] == 4
    for rule in ("kumar_pick_cs", "kumar_fig1", "kumar_examples", "kumar_figures",
                 "kumar_tables", "kumar_report", "kumar_fig1_sensitivity"):
        assert stats[rule] == 1, rule
    # Fig. 1 sensitivity: one job per (log segment, load), every variant inside.
    assert stats["kumar_fig1_segment"] == 3 * 2
    # The default scale keeps the same number of K jobs (seeds, loads and
    # C_s values live inside the chunks): the DAG stays small.
    _, out = snakemake(tmp_path, "-n", "--config", "scale=full")
    assert job_counts(out)["kumar_simulate"] == 36 + 3 * reading_sets
    # Batched, as the smoke scale runs by default: every workload set in one
    # job; one simulation job per policy, apart from its chunks that read
    # the C_s pick (made from the C_s sweep's chunks).
    _, out = snakemake(tmp_path, "-n", "--config", "scale=smoke")
    batched = job_counts(out)
    assert batched["kumar_workloads"] == 1 and "kumar_simulate" not in batched
    sims = {r.removeprefix("kumar_simulate_"): n for r, n in batched.items()
            if r.startswith("kumar_simulate_")}
    assert set(sims.values()) == {1}
    picked = {r.removesuffix("_picked") for r in sims if r.endswith("_picked")}
    assert picked == {"delayed_los", "delayed_los_e", "hybrid_los", "hybrid_los_e"}
    assert {r.removesuffix("_picked") for r in sims} == set(grid["policies"])


# ------------------------------------------------------------- a K run

REDUCED = """\
    scale: smoke
    scales: {smoke: {trace_jobs: 300}}
    studies:
      utrera: {enabled: false}
      kumar_fig1: {loads: {smoke: [0.7, 0.9]}}
      kumar:
        fig1_sensitivity: {segments: {smoke: [[0, 200], [200, 200]]}, loads: {smoke: [0.8]}}
        long_runs: {workloads: {ps02: [easy, delayed_los]}, n_jobs: {smoke: 150},
                    seeds: {smoke: 2}}
        n_jobs: 60
        seeds: {smoke: 2}
        loads: {smoke: [0.6, 0.9]}
        cs_values: {smoke: [1, 3]}
    lublin: {validation: null}
    """


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Every K artifact of a reduced smoke grid, built once: (workdir, config)."""
    wd = tmp_path_factory.mktemp("kumar")
    cfg = write_yaml(wd / "reduced.yaml", REDUCED)
    snakemake(wd, f"{K}/README.md", "--configfile", cfg)
    return wd, cfg


def test_cubes_have_the_sweeps_dims(run):
    wd, _ = run
    cs = read_cube(wd / "results/kumar_cs.smoke.nc")
    assert dict(cs.sizes) == {"workload": 3, "policy": 3, "cs": 2, "seed": 2}
    assert cs.attrs["sweep"] == "cs" and len(cs.attrs["config_sha256"]) == 64
    # EASY does not depend on C_s: repeated along cs.
    easy = cs["mean_wait"].sel(policy="easy").values
    assert (easy[:, 0, :] == easy[:, 1, :]).all()
    load = read_cube(wd / "results/kumar_load.smoke.nc")
    assert dict(load.sizes) == {"workload": 7, "policy": 12, "load": 2, "seed": 2}
    assert (load["jobs"].sel(workload="ps02", policy="easy").values == 60).all()
    assert np.allclose(load["offered_load"].sel(workload="ps02", policy="easy").values,
                       load["load"].values[:, None], rtol=0.011)
    for m in ("mean_wait", "utilization", "kumar_slowdown"):
        assert load[m].attrs["units"] in ("s", "1")
    # Batch policies do not run on heterogeneous workloads.
    assert np.isnan(load["mean_wait"].sel(workload="het_pd05_ps02", policy="easy")).all()
    # ... which variable ran says, and why (issue 37).
    assert load["ran"].dims == ("workload", "policy") and load["ran"].sum() == 7 * 3
    assert not load["ran"].sel(workload="het_pd05_ps02", policy="easy").item()
    assert "load_sweeps" in load["ran"].attrs["description"]
    assert load.attrs["share_of_cells_run"] == 0.25


def test_long_runs_have_their_own_jobs_and_are_compared(run):
    wd, _ = run
    long = read_cube(wd / "results/kumar_long.smoke.nc")
    # The override's ps02 list replaces the grid's; ps05 keeps the grid's.
    assert dict(long.sizes) == {"workload": 2, "policy": 3, "load": 2, "seed": 2}
    assert np.isnan(long["mean_wait"].sel(workload="ps02", policy="los")).all()
    assert (long["jobs"].sel(workload="ps02", policy="easy").values == 150).all()
    load = read_cube(wd / "results/kumar_load.smoke.nc")
    picks = json.loads((wd / "results/kumar_cs_pick.smoke.json").read_text())
    for w, ps in (("ps02", "0.2"), ("ps05", "0.5")):
        assert (long["cs_used"].sel(workload=w, policy="delayed_los").values
                == picks["by_p_s"][ps]).all()
    assert (load["jobs"].sel(workload="ps02", policy="easy").values == 60).all()
    with open(wd / K / "long_runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["new"], r["base"]) for r in rows if r["workload"] == "ps02"] == [
        ("delayed_los", "easy")] * 2
    with open(wd / K / "claims.csv") as fh:
        claim = [c for c in csv.DictReader(fh) if c["figure"] == "long_runs"]
    # 150-job runs drain for long after the last arrival: every point reads
    # as saturated (the rule is meant for 10,000 jobs) and the claim says so.
    assert len(claim) == 1 and claim[0]["criterion"].startswith("per workload, policy pair")
    assert "no unsaturated point" in claim[0]["ours"] or "saturated points left out" in claim[0]["ours"]


def test_readings_re_run_the_load_sweeps_paired(run):
    wd, _ = run
    rc = read_cube(wd / "results/kumar_readings.smoke.nc")
    load = read_cube(wd / "results/kumar_load.smoke.nc")
    assert list(rc.dims)[:2] == ["reading", "workload"] and rc.attrs["sweep"] == "readings"
    # The linear size model draws larger jobs from the same seed streams.
    assert (rc["n_bar"].sel(reading="size_linear", workload="ps02", policy="easy").values
            > load["n_bar"].sel(workload="ps02", policy="easy").values).all()
    # A longer lead time changes only the requested starts: same arrivals.
    np.testing.assert_array_equal(
        rc["beta_arr"].sel(reading="lead_day", workload="het_pd05_ps02", policy="easy_d").values,
        load["beta_arr"].sel(workload="het_pd05_ps02", policy="easy_d").values)
    # Deferred commands all meet running jobs; the paper's reading does not.
    run_share = rc["commands_on_running"].sel(reading="commands_running", workload="elastic_batch")
    assert (run_share.sel(policy="easy_e").values == 1.0).all()
    assert (load["commands_on_running"].sel(workload="elastic_batch", policy="easy_e").values
            < 1.0).all()
    text = (wd / K / "readings.md").read_text()
    for part in ("## Claims under each reading", "## Tables I–II", "β_arr solved",
                 "| commands_running |"):
        assert part in text, part
    with open(wd / K / "readings.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and {"main", "size_linear", "lead_day", "commands_running"} <= set(rows[0])


def test_fig1_sensitivity_runs_every_variant_on_each_segment(run):
    wd, _ = run
    sens = read_cube(wd / "results/kumar_fig1_sensitivity.smoke.nc")
    assert dict(sens.sizes) == {"segment": 2, "load": 1, "policy": 7}
    assert list(sens["segment"].values) == ["0-199", "200-399"]
    assert (sens["jobs"].values == 200).all()
    np.testing.assert_allclose(sens["offered_load"].values, 0.8, rtol=1e-3)
    assert sens.attrs["study"] == "kumar" and len(sens.attrs["config_sha256"]) == 64
    with open(wd / K / "claims.csv") as fh:
        band = [c for c in csv.DictReader(fh) if c["figure"] == "fig1_sensitivity"]
    assert len(band) == 1 and "jobs 0-199, 200-399" in band[0]["ours"]
    readme = (wd / K / "README.md").read_text()
    assert "(fig1_sensitivity.md)" in readme and "(fig1_sensitivity.png)" in readme


def test_load_sweeps_use_the_pipelines_cs_pick(run):
    wd, _ = run
    picks = json.loads((wd / "results/kumar_cs_pick.smoke.json").read_text())
    assert set(picks["by_p_s"]) == {"0.2", "0.5", "0.8"}
    assert picks["metric"] == "mean_wait" and picks["rule"] == "argmin"
    load = read_cube(wd / "results/kumar_load.smoke.nc")
    for w, p, ps in (("ps02", "delayed_los", "0.2"), ("het_pd09_ps05", "hybrid_los", "0.5"),
                     ("elastic_het", "hybrid_los_e", "0.5"), ("ps08", "delayed_los", "0.8")):
        assert (load["cs_used"].sel(workload=w, policy=p).values == picks["by_p_s"][ps]).all()
    assert np.isnan(load["cs_used"].sel(workload="ps02", policy="los")).all()
    # The pick is the best seed mean of the C_s sweep.
    cs = read_cube(wd / "results/kumar_cs.smoke.nc")
    wait = cs["mean_wait"].sel(workload="ps05", policy="delayed_los").mean("seed")
    assert int(wait["cs"].values[int(np.argmin(wait.values))]) == picks["by_workload"]["ps05"]


def test_every_k_artifact_is_written_and_indexed(run):
    wd, _ = run
    readme = (wd / K / "README.md").read_text()
    assert "at **smoke** scale" in readme
    for spec in FIGURES.values():
        for ext in ("png", "svg"):
            path = wd / K / f"{spec['file']}.{ext}"
            assert path.exists(), path
            assert f"({spec['file']}.{ext})" in readme
    for name in ("fig1_easy_vs_los_sdsc.png", "fig2_delayed_los_example.png",
                 "table3_algorithms.md", "tables_iv_vii.md", "n_bar.md", "claims.csv",
                 "cs_pick.csv", "improvements_by_load.csv", "cs_sweep_ps02.png"):
        assert (wd / K / name).exists(), name
    assert (wd / K / "fig5_cs_sweep_ps05.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(wd / K / "tables_iv_vii.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 24 and {r["scale"] for r in rows} == {"smoke"}
    assert {r["table"] for r in rows} == {"IV", "V", "VI", "VII"}
    with open(wd / K / "claims.csv") as fh:
        claims = list(csv.DictReader(fh))
    texts = " ".join(c["claim"] for c in claims)
    assert "LOS performs worse than EASY when job sizes vary" in texts
    assert "C_s optimum lies near 7–8" in texts
    assert all(c["verdict"] for c in claims)
    fig2 = (wd / K / "fig2_delayed_los_example.csv").read_text()
    assert "los,1,7,0.0,10.0" in fig2 and "delayed_los,1,7,10.0,20.0" in fig2


def test_second_run_is_a_no_op(run):
    wd, cfg = run
    assert pending(wd, "--configfile", cfg) == {}


def test_changing_one_policy_reruns_only_its_chunks(run):
    wd, cfg = run
    changed = write_yaml(wd / "changed.yaml",
                         "studies: {kumar: {policies: {los_d: {unit: 32, lookahead: 40}}}}")
    todo = pending(wd, "--configfile", cfg, changed)
    sims = {p for p, rule in todo.items() if rule.startswith("kumar_simulate")}
    # los_d runs on the two heterogeneous workloads, in the load sweep and in
    # every reading that re-runs them (summary + jobs each).
    import yaml
    grid = yaml.safe_load((REPO / "config/grids/kumar.yaml").read_text())["studies"]["kumar"]
    het = {"het_pd05_ps02", "het_pd09_ps05"}
    in_readings = sum(len(het & set(r["workloads"])) for r in grid["readings"].values())
    assert len(sims) == 2 * (2 + in_readings) and all("/los_d/" in p for p in sims)
    assert "kumar_workloads" not in todo.values() and "kumar_pick_cs" not in todo.values()


def test_changing_the_pick_rule_reruns_only_cs_dependent_chunks(run):
    wd, cfg = run
    changed = write_yaml(wd / "pick.yaml", "studies: {kumar: {cs_sweep: {pick: {rule: one_se}}}}")
    todo = pending(wd, "--configfile", cfg, changed)
    assert "kumar_pick_cs" in todo.values()
    sims = {p for p, rule in todo.items() if rule.startswith("kumar_simulate")}
    assert sims and all(p.split("/")[4] in ("load", "long", "readings")
                        and p.split("/")[6] in CS_DEPENDENT for p in sims)
    assert "kumar_workloads" not in todo.values()
