"""Paper K's workload sets (simlib.studies.kumar.workloads): every load and
seed of a variant, seeds paired across variants."""
from __future__ import annotations

import json
import math

import pytest

from helpers_kumar_study import make_sets

from simlib.studies.kumar.plan import workload_file
from simlib.workload.cwf import read_cwf, split_commands


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Workload sets of three variants of the load sweep, generated once."""
    return make_sets(tmp_path_factory.mktemp("kumar_sets"))


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
    wl = read_cwf(workload_file(dirs["ps02"], 0.9, 1))
    assert len(wl.jobs) == 40


def test_variants_differing_in_p_d_share_jobs_and_arrivals(sets):
    _, dirs = sets
    a, _ = split_commands(read_cwf(workload_file(dirs["ps02"], 0.6, 1)))
    b, _ = split_commands(read_cwf(workload_file(dirs["het_pd05_ps02"], 0.6, 1)))
    for col in ("submit_time", "run_time", "requested_procs"):
        assert (a.jobs[col].to_numpy() == b.jobs[col].to_numpy()).all(), col
    assert (a.jobs["requested_start"] == -1).all()
    assert (b.jobs["requested_start"] >= 0).any()
