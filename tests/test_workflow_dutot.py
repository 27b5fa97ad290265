"""Paper D through the Snakemake pipeline: config checks, the planned DAG at
full scale (the paper's 12,000 runs), and a smoke run of every D artifact on
the synthetic CEA-Curie fixture (tests/helpers_pipeline.py).

The fixture config leaves paper D out (it needs SimGrid); these tests
enable it and leave the other papers out. Runs happen in temporary
directories (``--directory``); the repository's results/ and
paper_figures/ are never touched.
"""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers_pipeline import FIXTURE_CURIE, job_counts, pending, snakemake, write_yaml
from simlib.claims import Verdict, read_claims
from simlib.cube import read_cube

pytestmark = pytest.mark.pipeline

D = "paper_figures/dutot"
ONLY_D = """\
studies:
  dutot: {enabled: true}
  baseline: {enabled: false}
  kumar_fig1: {enabled: false}
  utrera: {enabled: false}
  kumar: {enabled: false}
lublin: {validation: null}
"""


@pytest.fixture(scope="module")
def only_d(tmp_path_factory):
    return write_yaml(tmp_path_factory.mktemp("cfg") / "only_dutot.yaml", ONLY_D)


@pytest.mark.parametrize("override, message", [
    ("studies: {dutot: {variants: [basic, nearest]}}",
     "config studies.dutot.variants[1]: 'nearest' is not one of"),
    ("studies: {dutot: {heterogeneous: {sets: [high, mid]}}}",
     "config studies.dutot.heterogeneous.sets[1]: unknown set 'mid'"),
    ("studies: {dutot: {workload: {max_size: 64}}}",
     "config studies.dutot.workload.max_size: 64 is above the clusters' 16 nodes"),
    ("studies: {dutot: {homogeneous: {models: {smoke: [printed, real]}}}}",
     "config studies.dutot.homogeneous.models.smoke[1]: 'real' is not one of"),
])
def test_bad_dutot_config_is_rejected_before_any_job(tmp_path, only_d, override, message):
    cfg = write_yaml(tmp_path / "override.yaml", override)
    code, out = snakemake(tmp_path, "-n", "--configfile", only_d, cfg, "--config", "scale=smoke",
                          check=False)
    assert code != 0 and "ConfigError" in out
    assert message in out, out[-3000:]
    assert not (tmp_path / "data").exists()


@pytest.mark.simgrid
def test_full_scale_plans_the_papers_runs_in_140_simulation_jobs(tmp_path, only_d):
    _, out = snakemake(tmp_path, "-n", "--configfile", only_d, "--config", "scale=full")
    stats = job_counts(out)
    # One job per (platform, seed): 20 seeds on each of the three readings of
    # the homogeneous platform (3 x 4,000 runs of 5 variants x 40 F_comm), 10
    # seeds on each of the 8 heterogeneous platforms (8,000 runs of 5 variants
    # x 20 F_comm).
    assert stats["dutot_simulate"] == 3 * 20 + 8 * 10
    assert stats["dutot_workload"] == 20 and stats["dutot_eligible"] == 1
    assert stats["dutot_aggregate"] == 2
    assert sum(stats.values()) < 2000


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, only_d):
    """One smoke-scale run of paper D on the synthetic CEA-Curie log."""
    wd = tmp_path_factory.mktemp("dutot_smoke")
    snakemake(wd, "--configfile", only_d, "--config", "scale=smoke")
    return wd


@pytest.mark.simgrid
def test_smoke_run_builds_both_cubes(smoke):
    hom = read_cube(smoke / "results/dutot_homogeneous.smoke.nc")
    assert dict(hom.sizes) == {"model": 3, "variant": 5, "seed": 1, "f_comm": 2}
    assert list(hom["model"].values) == ["base", "griffon", "printed"]
    het = read_cube(smoke / "results/dutot_heterogeneous.smoke.nc")
    assert dict(het.sizes) == {"set": 2, "ordering": 4, "variant": 5, "seed": 1, "f_comm": 2}
    for cube in (hom, het):
        assert np.isfinite(cube["makespan"].values).all()
        assert (cube["jobs"].values == 40).all()
        assert cube.attrs["scale"] == "smoke" and cube["makespan"].attrs["units"] == "s"
    # Communication costs time: every variant's makespan grows with F_comm.
    assert (hom["makespan"].sel(f_comm=2e8) > hom["makespan"].sel(f_comm=0.0)).all()
    # Without communication, a job lasts ret_j * F_comp / speed on any platform.
    pool = json.loads((smoke / "data/dutot/eligible.json").read_text())
    assert pool["trace"] == "CEA-Curie" and pool["filter_counts"]["eligible"] >= 40
    assert pool["cleaning_counts"]["jobs_in"] == FIXTURE_CURIE[2]


@pytest.mark.simgrid
def test_smoke_run_writes_every_artifact_claims_and_index(smoke):
    readme = (smoke / D / "README.md").read_text()
    assert "**Scale: smoke**" in readme and "the paper's own picks cannot be recovered" in readme
    links = re.findall(r"\]\(([^)]+)\)", readme)
    for link in links:
        assert (smoke / D / link).resolve().exists(), link
    claims = read_claims(smoke / D / "claims.csv")
    assert set(claims["paper"]) == {"dutot"} and set(claims["scale"]) == {"smoke"}
    assert set(claims["verdict"]) <= {v.value for v in Verdict}
    # a-e per homogeneous model and heterogeneous, f per model, g and h once.
    models = int((claims["key"] == "gap_larger_heterogeneous").sum())
    assert models >= 1 and len(claims) == 5 * (models + 1) + models + 2
    assert set(claims["unit"]) == {"seed (workload)"} and (claims["n"] != "").all()
    for name in ("fig1_homogeneous_printed.png", "fig1_homogeneous_griffon.png",
                 "fig1_homogeneous_base.png",
                 "fig3_heterogeneous.png", "fig3_heterogeneous_by_set.png",
                 "fig3_heterogeneous_by_ordering.png", "platforms.png"):
        assert (smoke / D / name).stat().st_size > 20_000, name
    xml = (smoke / D / "platforms/het-high-o4.xml").read_text()
    assert xml.count("<cluster ") == 8 and 'radical="0-15"' in xml
    assert "| c6 | low |" in (smoke / D / "table1.md").read_text()
    index = (smoke / "paper_figures/README.md").read_text()
    assert "## dutot" in index and f"[`{D}/fig3_heterogeneous.png`]" in index
    assert "[dutot](dutot/README.md)" in (smoke / "paper_figures/CLAIMS.md").read_text()


@pytest.mark.simgrid
def test_report_files_dutot_artifacts_under_the_paper(smoke, only_d):
    out = smoke / "report.zip"
    snakemake(smoke, "--report", out, "--configfile", only_d, "--config", "scale=smoke")
    with zipfile.ZipFile(out) as zf:
        html = zf.read("report/report.html").decode()
    m = re.search(r"^\s*var categories = (\{.*\});\s*$", html, re.M)
    categories = json.loads(m.group(1))
    mine = categories["Dutot et al."]
    assert f"{D}/fig1_homogeneous_printed.png" in mine["Figures"]
    assert "results/report/results/dutot_heterogeneous.smoke.nc.html" in mine["Cubes"]
    assert f"results/report/{D}/README.md.html" in mine["README"]


@pytest.mark.simgrid
def test_second_run_is_a_no_op_and_a_figure_edit_reruns_no_simulation(smoke, only_d):
    assert pending(smoke, "--configfile", only_d, "--config", "scale=smoke") == {}
    # A homogeneous model's parameters rerun only that platform's runs.
    changed = write_yaml(Path(smoke) / "griffon.yaml",
                         "studies: {dutot: {homogeneous: {griffon: {bw: 2.5e+8}}}}")
    todo = pending(smoke, "--configfile", only_d, changed, "--config", "scale=smoke")
    sims = {p for p, rule in todo.items() if rule == "dutot_simulate"}
    assert sims and all("/hom-griffon/" in p for p in sims)
    assert "dutot_workload" not in todo.values()
