"""Paper K's simulations (simlib.studies.kumar.runs): chunks of runs over a
workload set, the paper's metrics, the Fig. 2 example."""
from __future__ import annotations

import gzip
import json
import logging
import math

import pandas as pd
import pytest

from helpers_kumar_study import make_sets

from simlib.errors import ConfigError
from simlib.policies import make_policy
from simlib.studies.kumar import runs as R


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Workload sets of three variants of the load sweep, generated once."""
    return make_sets(tmp_path_factory.mktemp("kumar_sets"))


def test_simulate_set_records_one_run_per_load_and_seed(sets):
    plan, dirs = sets
    spec = plan.simulation_spec("load", "het_pd05_ps02", "hybrid_los")
    picks = {"by_p_s": {"0.2": 2}}
    records, jobs = R.simulate_set(spec, dirs["het_pd05_ps02"], picks=picks)
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
        R.simulate_set(spec, dirs["het_pd05_ps02"], picks={"by_p_s": {"0.5": 3}})


def test_elastic_policies_apply_the_commands(sets):
    plan, dirs = sets
    spec = plan.simulation_spec("load", "elastic_het", "easy_de")
    records, _ = R.simulate_set(spec, dirs["elastic_het"])
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
    pol = make_policy("easy_d")
    res = simulate(wl, pol, cpus=4)
    m = R.run_metrics(res, wl, 4, pol)
    # The machine is busy until 100: the dedicated job starts 50 s late.
    assert m["dedicated_jobs"] == 1 and m["dedicated_on_time"] == 0.0
    assert m["dedicated_mean_delay"] == 50.0
    assert m["kumar_slowdown"] == pytest.approx((45 + 55) / 55)
    # Without dedicated jobs (nor commands, nor C_s) those metrics are NaN.
    wl.jobs["requested_start"] = -1
    pol = make_policy("easy")
    m = R.run_metrics(simulate(wl, pol, cpus=4), wl, 4, pol)
    assert m["dedicated_jobs"] == 0 and m["utilization"] == pytest.approx(1.0)
    assert all(math.isnan(m[k]) for k in ("dedicated_on_time", "dedicated_mean_delay",
                                          "commands_applied", "forced_starts"))


def test_fig2_example_los_starts_the_seven_delayed_los_the_four_and_six():
    s = R.fig2_example()
    los = s["los"].set_index("job_id")
    dl = s["delayed_los"].set_index("job_id")
    assert los["starting_time"].tolist() == [0.0, 10.0, 10.0]
    assert dl["starting_time"].tolist() == [10.0, 0.0, 0.0]
    busy = {k: int(df.loc[df["starting_time"] == 0, "requested_number_of_resources"].sum())
            for k, df in s.items()}
    assert busy == {"los": 7, "delayed_los": 10}
    # With C_s = 0 Delayed-LOS is LOS.
    assert R.fig2_example(cs=0)["delayed_los"]["starting_time"].tolist() == [0.0, 10.0, 10.0]


def test_simulate_step_writes_the_summary_and_the_jobs(sets, tmp_path):
    from simlib.studies import Files, StepContext
    plan, dirs = sets
    spec = plan.simulation_spec("load", "ps02", "delayed_los")
    picks = tmp_path / "picks.json"
    picks.write_text(json.dumps({"by_p_s": {"0.2": 3}}))
    sim = {"overrun": "kill", "tau": 10.0}
    out = Files(jobs=tmp_path / "jobs.csv.gz", summary=tmp_path / "summary.json")

    def run(**inputs):
        R.simulate_step(StepContext(input=Files(workloads=dirs["ps02"], **inputs), output=out,
                                    params={"spec": spec, "simulation": sim}, wildcards={},
                                    log=logging.getLogger("test"), config={}))

    run(picks=picks)
    doc = json.loads(out.summary.read_text())
    assert doc["spec"] == json.loads(json.dumps(spec)) and doc["simulation"] == sim
    assert [r["cs"] for r in doc["records"]] == [3] * 4
    jobs = pd.read_csv(out.jobs)
    assert len(jobs) == 4 * 40 and set(jobs["cs"]) == {3}
    # Reproducible bytes: the gzip header holds no time of writing.
    first = out.jobs.read_bytes()
    run(picks=picks)
    assert out.jobs.read_bytes() == first
    with gzip.open(out.jobs, "rt") as fh:
        assert fh.readline().startswith("load,seed,cs,job_id")
    # A chunk needing the pick fails without it, naming the policy.
    with pytest.raises(ConfigError, match="delayed_los on ps02: no C_s pick"):
        run()
