"""End-to-end tests of the Snakemake pipeline (Snakefile, workflow/, config/).

Every run happens in a temporary working directory (``--directory``), so
the repository's results/ and paper_figures/ are never touched, and on the
synthetic trace fixtures of :mod:`helpers_pipeline` (so no real trace and
no network is needed). The smoke pipeline runs once per module (fixture
``smoke``); the other tests are dry runs or a tiny sweep.
"""
from __future__ import annotations

import csv
import functools
import http.server
import json
import os
import re
import socket
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers_pipeline import (FIXTURE_TRACES, FIXTURE_U_PORTION, REPO, USER_POLICY_MODULE,
                              assert_config_rejected, fixture_traces_config, job_counts, pending,
                              snakemake, unbatched, write_yaml)
from simlib.cube import diff_cubes, read_cube

pytestmark = pytest.mark.pipeline

@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """Work directory holding one complete smoke-scale run."""
    wd = tmp_path_factory.mktemp("smoke")
    snakemake(wd, "--config", "scale=smoke")
    return wd


# ----------------------------------------------------------- configuration

@pytest.mark.parametrize("override, message", [
    ("studies: {baseline: {policies: {eazy: {}}}}",
     "config studies.baseline.policies.eazy: unknown policy 'eazy'"),
    ("studies: {baseline: {traces: [SDSC-SP2, NOPE-SP2]}}",
     "config studies.baseline.traces[1]: unknown trace 'NOPE-SP2'"),
    ("studies: {baseline: {policies: {easy: {depth: 3}}}}",
     "config studies.baseline.policies.easy: unknown parameter(s) depth"),
    ("studies: {baseline: {loads: {smoke: [0.5, -0.1]}}}",
     "config studies.baseline.loads.smoke[1]: -0.1 is less than or equal to the minimum of 0"),
    ("scale: huge", "config scale: 'huge' is not one of ['smoke', 'default', 'full']"),
    ("simulations: {}", "Additional properties are not allowed ('simulations' was unexpected)"),
    ("traces: {cleaning: {runtime_zero: burn}}", "config traces.cleaning:"),
    ("traces: {download: {stall_timeout: 0}}",
     "config traces.download.stall_timeout: 0 is less than or equal to the minimum of 0"),
    ("traces: {download: {deadline: soon}}",
     "config traces.download.deadline: 'soon' is not of type 'number'"),
    ("studies: {utrera: {trace_portions: {NOPE: {machine_procs: 1, first_job: {smoke: 0, default: 0, "
     "full: 0}, jobs: {smoke: 1, default: 1, full: 1}}}}}",
     "config studies.utrera.trace_portions.NOPE: unknown trace 'NOPE'"),
    ("studies: {utrera: {readings: {bad: {ov_scope: everywhere}}}}",
     "config studies.utrera.readings.bad: fcfs_malleable: ov_scope must be"),
    ("studies: {utrera: {table1: {fit: sideways}}}",
     "config studies.utrera.table1.fit: 'sideways' is not one of ['sizes', 'runtimes', 'arrivals']"),
    ("studies: {utrera: {long_util: {portion: {first_job: {smoke: sparsest, default: densest, "
     "full: densest}, jobs: {smoke: 10, default: 10, full: 10}}}}}",
     "config studies.utrera.long_util.portion.first_job.smoke: 'sparsest' does not match '^densest$'"),
    ("studies: {utrera: {whole_workloads: {scales: [smoke], traces: {NOPE: {first_job: 0, "
     "jobs: 10}}}}}",
     "config studies.utrera.whole_workloads.traces.NOPE: 'NOPE' is not in "
     "studies.utrera.trace_portions"),
    ("lublin: {validation: {param_set: nope, seed: 1}}",
     "config lublin.validation.param_set: unknown parameter set 'nope'"),
    ("simulation: {overrun: bogus}",
     "config simulation.overrun: 'bogus' is not one of ['kill', 'extend']"),
    ("studies: {kumar_fig1: {policies: {los: {lookahead: abc}}}}",
     "config studies.kumar_fig1.policies.los: los: parameter lookahead must be an integer, not 'abc'"),
    ("studies: {kumar: {policies: {los: {lookahead: 0}}}}",
     "config studies.kumar.policies.los: los: lookahead must be an integer >= 1, not 0"),
    ("studies: {baseline: {policies: {easy_tagged: {tag: 1}}}}",
     "config studies.baseline.policies.easy_tagged: unknown policy 'easy_tagged'"),
    ("scales: {full: {batch: [baseline_simulate, baseline_simulat]}}",
     "config scales.full.batch[1]: no step 'baseline_simulat' in the selected studies"),
])
def test_bad_config_is_rejected_before_any_job(tmp_path, override, message):
    assert_config_rejected(tmp_path, override, message)


def test_bad_published_numbers_are_rejected_before_any_job(tmp_path):
    """A study's published-numbers file is validated (its JSON schema) while parsing."""
    bad = tmp_path / "utrera.yaml"
    bad.write_text((REPO / "config/published/utrera.yaml").read_text().replace(
        "threshold: 0.9", "threshold: high"))
    assert_config_rejected(tmp_path, f"studies: {{utrera: {{published: '{bad}'}}}}",
                           f"{bad}: long_util.threshold: 'high' is not of type 'number'")


def test_dry_run_of_smoke_scale_plans_the_whole_grid(tmp_path):
    _, out = snakemake(tmp_path, "-n", "--config", "scale=smoke", "--configfile",
                       unbatched(tmp_path))
    stats = job_counts(out)
    # Baseline: 2 traces x 3 policies x 6 loads; paper K's Fig. 1 adds EASY
    # and LOS on SDSC-SP2 at the same loads (rescaled workloads shared): one
    # rescaled workload per (trace, load). Paper K's own rules are counted in
    # tests/test_workflow_kumar.py.
    assert stats["baseline_simulate"] == 36
    assert stats["kumar_fig1_simulate"] == 12
    assert stats["scale_load"] == 12
    # The two traces' smoke subsets, and the whole cleaned SDSC-SP2 log that
    # paper K's Fig. 1 sensitivity cuts its segments from.
    assert stats["prepare_trace"] == 2 + 1
    assert stats["baseline_aggregate"] == stats["kumar_fig1_aggregate"] == 1
    assert stats["baseline_figures"] == stats["report"] == 1
    # Paper U adds SDSC-BLUE; its trace runs are one job per (trace, policy
    # variant) with the OV seeds inside: 3 traces x (easy, fcfs_malleable,
    # 3 other orders, 3 named readings, 3 x 2 x 2 - 1 = 11 combinations of
    # the reading factors).
    assert stats["fetch_trace"] == stats["utrera_prepare_trace"] == 3
    # Sect. 5.1's own portion of SDSC-SP2; the whole workloads run at full scale only.
    assert stats["utrera_prepare_portion"] == 1
    assert "utrera_simulate_whole_workloads" not in stats
    assert stats["utrera_simulate_traces"] == 3 * (2 + 3 + 3 + 11)
    # policy x load x fit (the main 'sizes' and the alternative 'runtimes'),
    # seeds inside; and every other reading (3 named + 11 combinations) on
    # the main fit (policy 'readings': one job per load, the readings inside).
    assert stats["utrera_simulate_table1"] == 2 * 4 * 2 + 4
    assert stats["utrera_table1_workloads"] == 3 * 2  # one per Lublin seed and fit at smoke
    assert stats["lublin_workload"] == 3 + 1          # + the validation workload
    # The readings also run on Sect. 5.1's points and Fig. 2's example: one
    # job per point, the readings inside.
    assert stats["utrera_simulate_long_util"] == 3 * 3
    assert stats["utrera_fig2"] == 2
    assert stats["utrera_aggregate"] == 4
    assert stats["utrera_readme"] == stats["lublin_validation"] == 1
    # Batched, as the smoke scale runs by default: one job per policy (or
    # policy variant), the traces, loads, fits or utilizations inside.
    _, out = snakemake(tmp_path, "-n", "--config", "scale=smoke")
    batched = job_counts(out)
    assert batched["baseline_simulate"] == 3 and batched["kumar_fig1_simulate"] == 2
    # Paper U's trace variants: one job per policy (EASY; FCFS-malleable's
    # orders and readings).
    assert batched["utrera_simulate_traces_easy"] == 1
    assert batched["utrera_simulate_traces_fcfs_malleable"] == 1
    for policy in ("easy", "fcfs_malleable", "readings"):
        assert batched[f"utrera_simulate_table1_{policy}"] == 1
    assert batched["utrera_simulate_long_util_easy"] == 1
    assert batched["utrera_simulate_long_util_fcfs_malleable"] == 1
    assert batched["utrera_table1_workloads"] == batched["utrera_simulate_long_util_readings_0_6"] == 1
    # One job per trace rescales it to every load.
    assert "scale_load" not in batched
    assert batched["scale_load_SDSC_SP2"] == batched["scale_load_CTC_SP2"] == 1
    # The rest of the DAG is the same.
    kept = ["fetch_trace", "prepare_trace", "lublin_workload", "baseline_aggregate",
            "utrera_prepare_trace", "utrera_aggregate", "kumar_aggregate", "report"]
    assert {r: batched[r] for r in kept} == {r: stats[r] for r in kept}


def test_missing_trace_gives_a_clear_error_before_any_job(tmp_path):
    empty = tmp_path / "no_traces"
    empty.mkdir()
    # --config merges into the traces mapping (catalog and manifest kept).
    code, out = snakemake(tmp_path / "wd", "-n", "--config", f"traces={{source: '{empty}'}}",
                          check=False)
    assert code != 0 and "ConfigError" in out
    assert "SDSC-SP2-1998-4.2-cln.swf.gz, CTC-SP2-1996-3.1-cln.swf.gz" in out
    assert f"not found in local directory {empty}" in out
    assert "SIMLIB_TRACES=DIR" in out and "network access" in out
    assert not (tmp_path / "wd" / "data").exists()


def serve(directory):
    """A local HTTP server over ``directory``: (base URL, stop function)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()
        thread.join()
    return f"http://127.0.0.1:{server.server_address[1]}/", stop


def test_trace_fetched_from_a_url_is_verified(tmp_path):
    """traces.source may be a base URL (here a local server over the fixtures)."""
    fixtures = fixture_traces_config().parent
    url, stop = serve(fixtures)
    try:
        cfg = write_yaml(tmp_path / "url.yaml", f"traces: {{source: '{url}'}}")
        snakemake(tmp_path, "data/traces/raw/SDSC-SP2.swf.gz", "--configfile", cfg)
    finally:
        stop()
    got = tmp_path / "data/traces/raw/SDSC-SP2.swf.gz"
    assert got.read_bytes() == (fixtures / "SDSC-SP2-1998-4.2-cln.swf.gz").read_bytes()
    log = (tmp_path / "logs/traces/fetch.SDSC-SP2.log").read_text()
    assert f"from {url}" in log and "verified" in log


def pwa_mirror(tmp_path):
    """The fixtures laid out as on the archive (one folder per log), and a
    config override pointing each catalog pwa_url at a local server."""
    fixtures = fixture_traces_config().parent
    root = tmp_path / "pwa"
    for trace, (name, _) in FIXTURE_TRACES.items():
        folder = root / f"l_{trace.lower().replace('-', '_')}"
        folder.mkdir(parents=True)
        (folder / name).write_bytes((fixtures / name).read_bytes())
    return root


def test_auto_without_local_copy_downloads_from_the_archive(tmp_path):
    root = pwa_mirror(tmp_path)
    url, stop = serve(root)
    catalog = "".join(f"    {t}: {{pwa_url: '{url}l_{t.lower().replace('-', '_')}/'}}\n"
                      for t in FIXTURE_TRACES)
    cfg = write_yaml(tmp_path / "pwa.yaml",
                     "traces:\n  source: auto\n  local_dirs: [nowhere]\n  catalog:\n" + catalog)
    try:
        _, out = snakemake(tmp_path / "wd", "data/traces/raw/CTC-SP2.swf.gz", "--configfile", cfg,
                           env={"SIMLIB_TRACES": ""})
    finally:
        stop()
    name = "CTC-SP2-1996-3.1-cln.swf.gz"
    got = tmp_path / "wd/data/traces/raw/CTC-SP2.swf.gz"
    assert got.read_bytes() == (root / "l_ctc_sp2" / name).read_bytes()
    # One message naming the file, its size and where it comes from, then
    # progress lines (stderr is not a terminal here).
    assert f"trace CTC-SP2: downloading {name} (" in out and " MB) from " + url in out
    assert "the Parallel Workloads Archive [no local copy" in out
    assert f"{name}: " in out and "(100 %)" in out


def test_offline_machine_without_local_copy_gets_one_clear_error(tmp_path):
    # The archive made unreachable: its URL points at a closed local port.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    catalog = "".join(f"    {t}: {{pwa_url: 'http://127.0.0.1:{port}/l_x/'}}\n"
                      for t in FIXTURE_TRACES)
    cfg = write_yaml(tmp_path / "offline.yaml",
                     "traces:\n  source: auto\n  local_dirs: [nowhere]\n  catalog:\n" + catalog)
    code, out = snakemake(tmp_path / "wd", "--configfile", cfg, check=False,
                          env={"SIMLIB_TRACES": ""})
    assert code != 0 and "ConfigError" in out
    assert f"cannot reach 127.0.0.1:{port}" in out
    assert "Either set SIMLIB_TRACES=DIR" in out and "or run with network access" in out
    assert not (tmp_path / "wd" / "data").exists()  # before any job
    assert not (tmp_path / "wd" / "results").exists()


# ------------------------------------------------------------- smoke run

def test_smoke_run_builds_the_cube(smoke):
    cube = read_cube(smoke / "results/baseline.smoke.nc")
    assert dict(cube.sizes) == {"policy": 3, "trace": 2, "load": 6}
    assert list(cube["policy"].values) == ["conservative", "easy", "fcfs"]
    assert np.allclose(cube["load"].values, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    for name in ("mean_wait", "mean_response", "mean_bounded_slowdown", "utilization", "makespan"):
        var = cube[name]
        assert var.attrs["units"] in ("s", "1"), name
        assert np.isfinite(var.values).all(), name
    assert len(cube.attrs["config_sha256"]) == 64
    assert cube.attrs["scale"] == "smoke"
    # The rescaled workloads hit their target loads (up to rounding submit
    # times to seconds).
    assert np.allclose(cube["offered_load"].values,
                       cube["load"].values[None, None, :], rtol=1e-4)
    # Every job of the 1,500-job subsets was simulated.
    assert (cube["jobs"].values == 1500).all()
    # Backfilling never does worse than FCFS on average here.
    wait = cube["mean_wait"]
    assert (wait.sel(policy="easy") <= wait.sel(policy="fcfs")).all()


def test_smoke_run_writes_per_run_tables(smoke):
    run = smoke / "results/runs/baseline/smoke/SDSC-SP2/easy/load0.7"
    header = (run / "jobs.csv").read_text().splitlines()[0].split(",")
    for col in ("job_id", "submission_time", "requested_number_of_resources", "requested_time",
                "starting_time", "execution_time", "finish_time", "waiting_time",
                "turnaround_time", "stretch", "allocated_resources"):
        assert col in header
    assert len((run / "jobs.csv").read_text().splitlines()) == 1501


def test_smoke_run_writes_figures_tables_and_index(smoke):
    fig = smoke / "paper_figures/baseline/mean_wait_vs_load.png"
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (smoke / "paper_figures/baseline/mean_wait_vs_load.svg").read_text().lstrip().startswith("<?xml")
    with open(smoke / "paper_figures/baseline/metrics_by_load.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 36 and {r["scale"] for r in rows} == {"smoke"}
    assert "smoke scale" in (smoke / "paper_figures/baseline/metrics_by_load.md").read_text()
    char = (smoke / "paper_figures/traces/characterization.csv").read_text()
    assert "SDSC-SP2" in char and "CTC-SP2" in char
    cleaning = (smoke / "logs/traces/SDSC-SP2.smoke.cleaning.txt").read_text()
    assert "runtime_above_request" in cleaning

    index = (smoke / "paper_figures/README.md").read_text()
    assert "Scale: **smoke**" in index
    for path in ("paper_figures/baseline/mean_wait_vs_load.png",
                 "paper_figures/baseline/metrics_by_load.csv",
                 "paper_figures/traces/characterization.md",
                 "results/baseline.smoke.nc"):
        assert f"[`{path}`]" in index
        assert (smoke / path).exists()


U_ARTIFACTS = ("fig2_gantt.png", "fig2_numbers.md", "table1.png", "table1.md", "table2.md",
               "fig3.png", "fig3.md", "table3.md", "fragmentation.md", "headline_gains.md",
               "orders_ablation.png", "time_model_readings.png", "long_util.png", "long_util.md",
               "fig1_substitute.png", "claims.csv", "README.md")


def test_smoke_run_builds_the_utrera_cubes(smoke):
    fig2 = read_cube(smoke / "results/utrera_fig2.smoke.nc")
    assert np.allclose(fig2["mean_response"].sel(policy=["fcfs", "easy", "fcfs_malleable"]),
                       [14 / 3, 13 / 3, 11 / 3])
    assert np.allclose(fig2["utrera_fragmentation"].sel(policy=["fcfs", "easy", "fcfs_malleable"]),
                       [0.3, 0.3, 0.0])
    t1 = read_cube(smoke / "results/utrera_table1.smoke.nc")
    # EASY, FCFS-malleable and FCFS-malleable under the 3 named readings and
    # the 11 other combinations of the reading factors (main fit only).
    assert dict(t1.sizes) == {"fit": 2, "policy": 2 + 3 + 11, "load": 4, "seed": 3}
    main = t1.sel(policy=["easy", "fcfs_malleable"])
    # 150 jobs submitted within 2 hours at each target load, under both fits.
    assert (main["jobs"].values == 150).all()
    assert np.allclose(main["offered_load"].transpose("fit", "policy", "load", "seed").values,
                       t1["load"].values[None, None, :, None], rtol=0.01)
    readings = t1["jobs"].sel(policy=[p for p in t1["policy"].values if ":" in str(p)])
    assert (readings.sel(fit="sizes").values == 150).all()  # the main fit (grid table1.fit)
    tr = read_cube(smoke / "results/utrera_traces.smoke.nc")
    assert dict(tr.sizes) == {"trace": 3, "policy": 2 + 3 + 3 + 11, "seed": 2}
    assert tr.attrs["seed_independent_policies"] == "easy"
    easy = tr["mean_response"].sel(policy="easy").values
    assert (easy == easy[:, :1]).all()  # EASY does not depend on the OV seed
    fm = tr["mean_response"].sel(policy="fcfs_malleable").values
    assert (fm[:, 0] != fm[:, 1]).any()  # fcfs_malleable does
    assert (tr["utrera_mean_mpl"].sel(policy="easy") <= 1).all()
    assert (tr["utrera_mean_mpl"] <= 2).all()
    assert (tr["jobs"].values == FIXTURE_U_PORTION["jobs"]).all()
    lu = read_cube(smoke / "results/utrera_long_util.smoke.nc")
    assert dict(lu.sizes) == {"policy": 2 + 3 + 11, "long_util": 3, "seed": 2}
    for cube in (fig2, t1, tr, lu):
        assert cube.attrs["study"] == "utrera" and len(cube.attrs["config_sha256"]) == 64
        assert cube["utrera_slowdown"].attrs["units"] == "1"


def test_smoke_run_writes_utrera_artifacts(smoke):
    for name in U_ARTIFACTS:
        path = smoke / "paper_figures/utrera" / name
        assert path.exists(), name
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    readme = (smoke / "paper_figures/utrera/README.md").read_text()
    assert "**Scale: smoke**" in readme and "## Verdicts" in readme
    fig2_row = next(line for line in readme.splitlines() if line.startswith("| 1 | Fig. 2"))
    assert "**reproduced**" in fig2_row
    assert "Interpretation choices" in readme and "J6 starts expanded" in readme
    index = (smoke / "paper_figures/README.md").read_text()
    for path in ("paper_figures/utrera/README.md", "paper_figures/utrera/fig3.png",
                 "paper_figures/workloads/lublin_validation.png", "results/utrera_traces.smoke.nc"):
        assert f"[`{path}`]" in index
    assert (smoke / "paper_figures/workloads/lublin_validation.png").read_bytes()[:4] == b"\x89PNG"
    info = json.loads((smoke / "data/traces/utrera/CTC-SP2.smoke.json").read_text())
    assert info["machine_procs"] == 430  # paper U's CTC, not the log's 338
    assert info["first_job"] == FIXTURE_U_PORTION["first_job"]
    assert info["jobs"] == FIXTURE_U_PORTION["jobs"]


def test_smoke_run_writes_every_papers_claims_in_one_table(smoke):
    """paper_figures/CLAIMS.md: U's and K's claims files in one table, one vocabulary."""
    from simlib.claims import Verdict, read_claims
    words = {v.value for v in Verdict}
    files = {p: read_claims(smoke / f"paper_figures/{p}/claims.csv") for p in ("utrera", "kumar")}
    for p, df in files.items():
        assert set(df["paper"]) == {p} and set(df["scale"]) == {"smoke"} and len(df) >= 10, p
    lines = (smoke / "paper_figures/CLAIMS.md").read_text().splitlines()
    assert "Scale: **smoke**" in "\n".join(lines)
    head = lines.index("| paper | claim | reading | source | published | ours | verdict | unit "
                       "| n | criterion |")
    end = lines.index("## Consistency checks")
    rows = [line.split(" | ") for line in lines[head + 2:end] if line.startswith("| ")]
    counted = {p: df[df["kind"] == "claim"] for p, df in files.items()}
    assert len(rows) == sum(len(df) for df in counted.values())
    assert {r[6] for r in rows} <= words
    # Every claim of each file, in its order, linked to its paper's README
    # (papers in config order), with its unit of replication and n.
    for p, df in counted.items():
        mine = [r for r in rows if r[0] == f"| [{p}]({p}/README.md)"]
        assert [r[6] for r in mine] == df["verdict"].tolist(), p
        assert all(r[7] and r[8] for r in mine), p
    # Counts per paper and verdict, then over both (consistency checks apart).
    counts = {line.split(" | ")[0][2:]: line for line in lines[:head]
              if line.startswith("| [") or line.startswith("| all ")}
    for p, df in files.items():
        cells = counts[f"[{p}]({p}/README.md)"].rstrip(" |").split(" | ")[2:]
        assert cells == [str(int((counted[p]["verdict"] == w.value).sum())) for w in Verdict] + [
            str(len(counted[p])), str(int((df["kind"] != "claim").sum()))], p
    assert counts["all"].split(" | ")[-2] == str(sum(len(df) for df in counted.values()))
    # The papers' READMEs use the same words.
    for p in ("utrera", "kumar"):
        readme = (smoke / f"paper_figures/{p}/README.md").read_text()
        assert not re.search(r"\*\*partly\*\*|consistent|not tested\b|\bmixed\b \||"
                             r"no significant difference\) \|", readme), p
    index = (smoke / "paper_figures/README.md").read_text()
    assert "## claims" in index and "[`paper_figures/CLAIMS.md`](CLAIMS.md)" in index
    assert "[`paper_figures/utrera/claims.csv`]" in index


# Report category of each section of paper_figures/README.md, and words its
# caption must hold to name the study (simlib/templates/report_caption.rst.j2).
REPORT_SECTIONS = {
    "baseline": ("Baseline", "FCFS vs EASY"),
    "traces": ("Traces", "Traces"),
    "workloads": ("Workloads", "Lublin"),
    "utrera": ("Utrera et al.", "Paper U"),
    "kumar": ("Kumar et al.", "Paper K"),
    "claims": ("Claims", "claims"),
}


def indexed_artifacts(index):
    """{path: (section, title)} of every line of paper_figures/README.md."""
    out, section = {}, None
    for line in index.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.match(r"- \[`([^`]+)`\]\([^)]*\) — (.*?)( \(built by the pipeline, not committed\))?$",
                     line)
        if m:
            out[m.group(1)] = (section, m.group(2))
    return out


def report_data(html):
    """The results and categories Snakemake's report.html embeds as JSON."""
    def var(name):
        m = re.search(rf"^\s*var {name} = (\{{.*\}});\s*$", html, re.M)
        assert m, f"no `var {name}` in report.html"
        return json.loads(m.group(1))
    return var("results"), var("categories")


def test_report_lists_every_artifact_by_paper(smoke):
    """`snakemake --report` holds exactly the indexed artifacts, by paper.

    The list comes from the index the run wrote (not from the rules), so a
    lost report marking fails here even without the parse-time check.
    """
    index_path = "paper_figures/README.md"
    artifacts = indexed_artifacts((smoke / index_path).read_text())
    assert len(artifacts) > 50 and {s for s, _ in artifacts.values()} == set(REPORT_SECTIONS)
    out = smoke / "report.zip"
    snakemake(smoke, "--report", out, "--config", "scale=smoke")
    with zipfile.ZipFile(out) as zf:
        results, categories = report_data(zf.read("report/report.html").decode())
        # Images as they are, every other file through its HTML rendering.
        shown = {a: a if a.endswith((".png", ".svg")) else f"results/report/{a}.html"
                 for a in [*artifacts, index_path]}
        assert set(results) == set(shown.values())
        where = {p: (cat, sub) for cat, subs in categories.items()
                 for sub, paths in subs.items() for p in paths}
        assert where[shown[index_path]] == ("Index", "README")
        for path, (section, title) in artifacts.items():
            res = results[shown[path]]
            if shown[path] == path:
                # The file itself, under the name the report links to.
                assert zf.read(f"report/{res['data_uri']}") == (smoke / path).read_bytes(), path
            else:
                assert res["mime_type"] == "text/html", path
            category, words = REPORT_SECTIONS[section]
            assert where[shown[path]][0] == category, path
            assert res["labels"] == {"artifact": f"{Path(path).name} — {title}"}, path
            caption = res["caption"]
            assert words in caption and "<strong>smoke</strong>" in caption, (path, caption)
    assert where["paper_figures/utrera/fig3.png"][1] == "Figures"
    assert where["results/report/paper_figures/kumar/tables_iv_vii.md.html"][1] == "Tables"
    assert where["results/report/results/utrera_traces.smoke.nc.html"][1] == "Cubes"
    assert where["results/report/logs/traces/CTC-SP2.smoke.cleaning.txt.html"][1] == "Cleaning logs"


#: Axis labels of quantities that cannot be negative (waits, responses,
#: slowdowns, utilization); improvements and gains can.
NONNEGATIVE = re.compile(r"wait|response|slowdown|utili[sz]ation|execution", re.IGNORECASE)


def _interval_lows(fig):
    """(y label, lowest y of each band and error bar) per axes of a figure, in data units."""
    from matplotlib.collections import LineCollection, PolyCollection
    for ax in fig.axes:
        lows = []
        for c in ax.collections:
            if isinstance(c, PolyCollection):      # fill_between: a confidence band
                lows += [float(np.nanmin(p.vertices[:, 1])) for p in c.get_paths()
                         if len(p.vertices)]
            elif isinstance(c, LineCollection):    # error bars
                lows += [float(np.nanmin(seg[:, 1])) for seg in c.get_segments() if len(seg)]
        yield ax.get_ylabel(), lows


def test_no_figure_draws_an_interval_of_a_nonnegative_quantity_below_zero(smoke, monkeypatch):
    """Papers K's and U's figures redrawn from the smoke run's cubes and figure data,
    each band and error bar read back from the drawing."""
    import pandas as pd

    from simlib.cube import read_cube
    from simlib.studies.kumar import plots as K
    from simlib.studies.utrera import plots as U

    figs = []
    for module in (K, U):
        monkeypatch.setattr(module, "save_figure", lambda fig, out: figs.append(fig))
    load = read_cube(smoke / "results/kumar_load.smoke.nc")
    K.plot_load_sweep(load, [str(w) for w in load["workload"].values], "x.png",
                      scale_label="smoke")
    cs = read_cube(smoke / "results/kumar_cs.smoke.nc")
    for w in cs["workload"].values:
        K.plot_cs_sweep(cs, str(w), "x.png", scale_label="smoke")
    K.plot_fig1(read_cube(smoke / "results/kumar_fig1.smoke.nc"), "x.png", scale_label="smoke")
    data = smoke / "paper_figures/utrera"
    t1 = pd.read_csv(data / "table1.csv")
    U.plot_table1(t1[t1["main"]].drop(columns=["fit", "main"]), "x.png", scale_label="smoke",
                  n_seeds=3)
    U.plot_fig3(pd.read_csv(data / "fig3.csv"), "x.png", scale_label="smoke", n_seeds=2)
    U.plot_long_util(pd.read_csv(data / "long_util.csv"), "x.png", trace="SDSC-SP2",
                     scale_label="smoke", n_seeds=2)
    checked = []
    for fig in figs:
        for label, lows in _interval_lows(fig):
            if NONNEGATIVE.search(label) and not re.search("improvement|gain", label):
                checked += lows
                assert min(lows, default=0.0) >= 0.0, f"{label}: an interval reaches {min(lows)}"
    assert len(checked) > 20  # the bands and bars were found


def test_lublin_rule_makes_a_workload_at_a_load(smoke):
    target = "data/workloads/lublin/utrera_table1/load0.5/seed7.swf.gz"
    snakemake(smoke, target, "--config", "scale=smoke")
    info = json.loads((smoke / target.replace(".swf.gz", ".json")).read_text())
    assert info["jobs"] == 150 and info["seed"] == 7
    assert abs(info["offered_load"] / 0.5 - 1) < 0.01


def test_trace_and_lublin_rules_depend_on_the_simlib_code_they_call(smoke):
    """Their scripts only call simlib, so the simlib modules doing the work
    (and what those import) are their inputs: editing them reruns the rules.
    Not fetch_trace: its output is pinned by a checksum, whatever the code."""
    _, out = snakemake(smoke, "--detailed-summary", "--config", "scale=smoke")
    rows = list(csv.DictReader(out[out.index("output_file\t"):].splitlines(), delimiter="\t"))
    code = {}
    for row in rows:
        files = (row["input-file(s)"] or "").split(",")
        code.setdefault(row["rule"], set()).update(
            # The package's own folder is the last /simlib/ (a clone may be named simlib too).
            f.rsplit("/simlib/", 1)[1] for f in files if "/simlib/" in f)
    # The smoke scale rescales each trace in one job (scale_load_<trace>).
    assert {"workload/prepare.py", "workload/swf.py"} <= code["prepare_trace"] \
        == code["scale_load_SDSC_SP2"] == code["scale_load_CTC_SP2"]
    assert {"figures/traces.py", "markdown.py"} <= code["characterize_traces"]
    assert {"workload/lublin/calibration.py", "workload/lublin/model.py",
            "workload/estimates.py"} <= code["lublin_workload"]
    assert {"figures/workloads.py", "workload/lublin/analytic.py"} <= code["lublin_validation"]
    assert code["fetch_trace"] == set()


def test_second_run_is_a_no_op(smoke):
    _, out = snakemake(smoke, "-n", "--config", "scale=smoke")
    assert "Nothing to be done" in out


# ------------------------------------------------------- incremental reruns

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small sweep with a user policy, run once: (workdir, env, config)."""
    wd = tmp_path_factory.mktemp("tiny")
    plugins = wd / "plugins"
    plugins.mkdir()
    (plugins / "wf_test_policies.py").write_text(USER_POLICY_MODULE)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(plugins), os.environ.get("PYTHONPATH")]))}
    cfg = write_yaml(wd / "tiny.yaml", """\
        scale: smoke
        policy_modules: [wf_test_policies]
        scales: {smoke: {trace_jobs: 300}}
        studies:
          baseline:
            traces: [SDSC-SP2]
            policies: {easy_tagged: {tag: 0}}
            loads: {smoke: [0.6, 0.9]}
          utrera: {enabled: false}
          kumar: {enabled: false}
        lublin: {validation: null}
        """)
    snakemake(wd, "--configfile", cfg, env=env)
    assert pending(wd, "--configfile", cfg, env=env) == {}
    return wd, env, cfg


def test_changing_one_policys_params_reruns_only_its_runs(tiny):
    wd, env, cfg = tiny
    changed = write_yaml(wd / "changed.yaml", "studies: {baseline: {policies: {easy_tagged: {tag: 1}}}}")
    todo = pending(wd, "--configfile", cfg, changed, env=env)
    sims = {p for p, rule in todo.items() if rule == "baseline_simulate"}
    # Both loads of easy_tagged (jobs.csv + summary.json each), nothing else.
    assert len(sims) == 4 and all("/easy_tagged/" in p for p in sims)
    assert set(todo.values()) == {"baseline_simulate", "baseline_aggregate",
                                  "baseline_figures", "report", "report_pages"}


def test_batched_runs_write_the_same_files_as_one_job_per_run(tiny, tmp_path):
    """Paired: the tiny sweep again with one job per run (``batch: false``)."""
    wd, env, cfg = tiny
    snakemake(tmp_path, "--configfile", cfg, unbatched(tmp_path), env=env)
    # One job (and log) per load, against one for both loads.
    logs = "logs/baseline/baseline_simulate/smoke"
    assert sorted(p.name for p in (tmp_path / logs / "SDSC-SP2/easy_tagged").iterdir()) \
        == ["0.6.log", "0.9.log"]
    assert (wd / logs / "easy_tagged.log").exists() and not (wd / logs / "SDSC-SP2").exists()
    runs = sorted(p.relative_to(wd) for p in (wd / "results/runs").rglob("*") if p.is_file())
    assert sum("/easy_tagged/" in str(p) for p in runs) == 4
    for rel in runs:
        assert (tmp_path / rel).read_bytes() == (wd / rel).read_bytes(), rel
    cubes = [read_cube(d / "results/baseline.smoke.nc") for d in (tmp_path, wd)]
    assert diff_cubes(*cubes, check_attrs=True) == []


def test_changing_one_policys_code_reruns_only_its_runs(tiny):
    wd, env, cfg = tiny
    module = wd / "plugins/wf_test_policies.py"
    original = module.read_text()
    try:
        module.write_text(original + "\n# a change in the policy's code\n")
        todo = pending(wd, "--configfile", cfg, env=env)
    finally:
        module.write_text(original)
    sims = {p for p, rule in todo.items() if rule == "baseline_simulate"}
    assert len(sims) == 4 and all("/easy_tagged/" in p for p in sims)
    assert not any(r.startswith(("scale_load", "prepare_trace")) for r in todo.values())
