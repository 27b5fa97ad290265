"""Paper Z through the Snakemake pipeline: config checks before any job, the
planned DAG at full scale, and a smoke run of every Z artifact.

The fixture config leaves paper Z out (to keep the other pipeline tests
short); these tests enable it and leave the other papers out. Runs happen in
temporary directories (``--directory``); the repository's results/ and
paper_figures/ are never touched.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from helpers_pipeline import job_counts, snakemake, write_yaml
from simlib.claims import Verdict, read_claims
from simlib.cube import read_cube

pytestmark = pytest.mark.pipeline

Z = "paper_figures/zeng"
ONLY_Z = """\
studies:
  zeng: {enabled: true}
  dutot: {enabled: false}
  baseline: {enabled: false}
  kumar_fig1: {enabled: false}
  utrera: {enabled: false}
  kumar: {enabled: false}
lublin: {validation: null}
"""


@pytest.fixture(scope="module")
def only_z(tmp_path_factory):
    return write_yaml(tmp_path_factory.mktemp("cfg") / "only_zeng.yaml", ONLY_Z)


@pytest.mark.parametrize("override, message", [
    ("studies: {zeng: {workloads: [W1, W9]}}", "config studies.zeng.workloads[1]: 'W9' is not a workload"),
    ("studies: {zeng: {scojo_pect: {short_slice: 3600.0}}}", "config studies.zeng.scojo_pect"),
    ("studies: {zeng: {workload: {rounding: up}}}", "config studies.zeng.workload.rounding"),
])
def test_bad_zeng_config_is_rejected_before_any_job(tmp_path, only_z, override, message):
    cfg = write_yaml(tmp_path / "override.yaml", override)
    code, out = snakemake(tmp_path, "-n", "--configfile", only_z, cfg, "--config", "scale=smoke",
                          check=False)
    assert code != 0 and "ConfigError" in out
    assert message in out, out[-3000:]
    assert not (tmp_path / "data").exists()


def test_full_scale_plans_the_papers_runs(tmp_path, only_z):
    _, out = snakemake(tmp_path, "-n", "--configfile", only_z, "--config", "scale=full")
    stats = job_counts(out)
    # 2 workloads x 10 seeds (the least n for a CI-based verdict), each on the multi-core and
    # the single-core machine.
    assert stats["zeng_workload"] == 20 and stats["zeng_simulate"] == 40
    # Every G-LOMARC-TS variant of a (workload, seed) in one job.
    assert stats["zeng_simulate_glts"] == 20 and stats["zeng_aggregate"] == 1
    # Figs. 8-9: one job per (value, seed), 10 block sizes and 9 slack factors besides
    # Table 6's; the DAG stays far below 2,000 jobs.
    assert stats["zeng_sweep"] == (10 + 9) * 10 and stats["zeng_aggregate_sweep"] == 2
    assert stats["total"] < 2000


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, only_z):
    wd = tmp_path_factory.mktemp("zeng_smoke")
    snakemake(wd, "--configfile", only_z, "--config", "scale=smoke")
    return wd


def test_smoke_run_builds_the_cube(smoke):
    cube = read_cube(smoke / "results/zeng.smoke.nc")
    assert dict(cube.sizes) == {"workload": 2, "machine": 2, "seed": 2}
    assert np.isfinite(cube["rr_all"].values).all() and (cube["rr_all"].values >= 1).all()
    assert cube.attrs["scale"] == "smoke" and cube["makespan"].attrs["units"] == "s"
    # The single-core machine has no self slowdown: its RR and T_i-RR agree.
    single = cube.sel(machine="single_core")
    np.testing.assert_allclose(single["rr_all"], single["rr_t_all"])


def test_smoke_run_builds_the_glts_cube_paired_with_ssp(smoke):
    cube = read_cube(smoke / "results/zeng_glts.smoke.nc")
    assert list(cube["scheduler"].values) == ["SSP", "GLTS", "CST", "CSTWS", "FBO", "NS", "NH"]
    assert dict(cube.sizes) == {"workload": 2, "scheduler": 7, "seed": 2}
    # SSP's numbers are those of the part-1 runs (same workloads and seeds).
    part1 = read_cube(smoke / "results/zeng.smoke.nc").sel(machine="multicore")
    np.testing.assert_array_equal(cube["rr_all"].sel(scheduler="SSP").values,
                                  part1["rr_all"].values)
    assert np.isnan(cube["groups"].sel(scheduler="SSP").values).all()
    assert (cube["jobs_per_group"].sel(scheduler=["CST", "CSTWS"]).fillna(2).values <= 2).all()
    assert "| RR improvement of GLTS vs SSP, medium jobs (%) | 34.9 |" in \
        (smoke / Z / "headline.md").read_text()


def test_smoke_run_builds_the_sweep_cubes_paired_with_the_main_runs(smoke):
    glts = read_cube(smoke / "results/zeng_glts.smoke.nc")
    blocks = read_cube(smoke / "results/zeng_block_size.smoke.nc")
    assert list(blocks["variant"].values) == ["GLTS", "FBO", "NS", "NH"]
    assert blocks["block_size"].values.tolist() == [8, 12, 16]
    # Table 6's block size (16) is the W2 run of Figs. 6-7; NH the same at every block size.
    for v in ("GLTS", "FBO", "NS", "NH"):
        np.testing.assert_array_equal(blocks["rr_all"].sel(variant=v, block_size=16).values,
                                      glts["rr_all"].sel(workload="W2", scheduler=v).values)
    nh = blocks["rr_all"].sel(variant="NH").values
    assert (nh == nh[0]).all()
    slack = read_cube(smoke / "results/zeng_f_slack.smoke.nc")
    assert slack["f_slack"].values.tolist() == [1.0, 1.5, 2.0] and slack.attrs["workload"] == "W1"
    np.testing.assert_array_equal(slack["rr_all"].sel(variant="GLTS", f_slack=1.5).values,
                                  glts["rr_all"].sel(workload="W1", scheduler="GLTS").values)
    assert "| GLTS | 8 | sweep |" in (smoke / Z / "sweep_block_size.md").read_text()


def test_smoke_run_writes_every_artifact_claims_and_index(smoke):
    readme = (smoke / Z / "README.md").read_text()
    assert "**Scale: smoke**" in readme and "Interpretations chosen" in readme
    for link in re.findall(r"\]\(([^)]+)\)", readme):
        assert (smoke / Z / link).resolve().exists() or link.startswith("../../"), link
    claims = read_claims(smoke / Z / "claims.csv")
    # SSP's RR once per RR bound of the grid (10, 60, 600 s), the others once;
    # part 2: GLTS vs SSP, CST, CSTWS and the core utilization, six counters
    # (W2's "25 % more" among them), the sweeps (optimum block size, GLTS best
    # there, F_slack plateau) and the two worked examples.
    assert set(claims["paper"]) == {"zeng"} and len(claims) == 4 + 3 + 4 + 6 + 3 + 2
    assert set(claims["verdict"]) <= {v.value for v in Verdict}
    # The worked examples are exact at any scale.
    examples = claims[claims["source"].str.contains("Fig. 5|Fig. 1", regex=True)]
    assert list(examples["verdict"]) == ["reproduced", "reproduced"]
    # ... and are consistency checks (our code against our own examples): listed apart, not counted.
    assert list(examples["kind"]) == ["consistency check"] * 2
    assert set(claims["unit"]) == {"seed (workload)", "-"} and "" not in set(claims["key"])
    counted = claims[claims["kind"] == "claim"]["verdict"].value_counts()
    line = next(x for x in readme.splitlines() if x.startswith("Counts: "))
    assert sum(int(n) for n in re.findall(r": (\d+)", line)) == counted.sum() == len(claims) - 2
    assert "## Consistency checks" in readme
    for name in ("ssp_rr.png", "gantt_day.png", "table4.png", "fig6_rr.png",
                 "fig7_core_utilization.png", "fig8_block_size.png", "fig9_f_slack.png",
                 "fig1_node_usage.png", "fig5_group.png"):
        assert (smoke / Z / name).stat().st_size > 20_000, name
    assert "## G-LOMARC-TS's order of tests (Fig. 3, reconstructed)" in readme
    assert "Case 5: J at 4 processes per node" in readme
    assert "| MAX_SL | 1.25 |" in (smoke / Z / "published_tables.md").read_text()
    index = (smoke / "paper_figures/README.md").read_text()
    assert "## zeng" in index and f"[`{Z}/gantt_day.png`]" in index
    assert "[zeng](zeng/README.md)" in (smoke / "paper_figures/CLAIMS.md").read_text()


def test_smoke_run_writes_the_reading_x_claim_matrix(smoke):
    readme = (smoke / Z / "README.md").read_text()
    assert "## Group matchmaking as the paper states it: the switches" in readme
    assert "## The reading x claim matrix" in readme and "### Verdicts per reading" in readme
    for key in ("case4_last", "rematch", "group_non_type_backfilling", "group_self_slowdown"):
        assert f"| `{key}` |" in readme
    frame = pd.read_csv(smoke / Z / "readings.csv")
    readings = list(dict.fromkeys(frame["reading"]))
    assert readings[0] == "main" and "stacked" in readings and "case4_competes" in readings
    # Every reading judges the same claims.
    assert frame.groupby("reading").size().nunique() == 1
    cube = read_cube(smoke / "results/zeng_readings.smoke.nc")
    # The main reading is the main runs, paired by seed.
    glts = read_cube(smoke / "results/zeng_glts.smoke.nc")
    np.testing.assert_array_equal(cube["rr_all"].sel(reading="main", scheduler="GLTS").values,
                                  glts["rr_all"].sel(scheduler="GLTS").values)
