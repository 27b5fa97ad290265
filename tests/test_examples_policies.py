"""The example policies of ``examples/policies/`` and their guide, docs/writing_a_policy.md.

Each example runs from the shell as the guide shows (``simlib simulate
--policy-module examples/policies/X.py``) and its decisions are checked on
traces made for them: SJF-EASY starts a short job ahead of a long one that
EASY starts first; EASY-small never backfills a job wider than
``max_cpus``; a bad ``max_cpus`` is a ConfigError. Both keep EASY's
compiled loop and give the same jobs table on the engine's loop.
"""
from __future__ import annotations

import doctest
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers_examples import EXAMPLE_FILES, example_class

from simlib.engine.simulator import Simulator
from simlib.errors import ConfigError
from simlib.platform import Platform
from simlib.workload.swf import SWF_FIELDS, Workload, write_swf

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "writing_a_policy.md"
SIMLIB = shutil.which("simlib", path=str(Path(sys.executable).parent))


def simlib(*args, cwd=REPO, env=None):
    """Run the console script (from the repository, as the guide does)."""
    assert SIMLIB, "the simlib console script is not installed next to this Python"
    proc = subprocess.run([SIMLIB, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def write_trace(path: Path, rows, cpus: int) -> Path:
    """An SWF file of ``(submit, procs, runtime, requested)`` rows, MaxProcs ``cpus``."""
    table = [[i + 1, s, -1, r, p, -1, -1, p, q] + [-1] * 9 for i, (s, p, r, q) in enumerate(rows)]
    write_swf(Workload(pd.DataFrame(table, columns=SWF_FIELDS),
                       header=["; Version: 2.2", f"; MaxProcs: {cpus}"]), path)
    return path


def starts(tmp_path: Path, trace: Path, policy: str, *options) -> dict[int, float]:
    """job id -> start time of a run of ``simlib simulate`` with the example's module."""
    out = tmp_path / f"{policy}.csv"
    module = [] if policy == "easy" else ["--policy-module",
                                          EXAMPLE_FILES[policy].relative_to(REPO)]
    code, stdout, err = simlib("simulate", trace, *module, "--policy", policy, *options,
                               "-o", out)
    assert (code, err) == (0, ""), err
    assert "compiled EASY loop)" in stdout
    jobs = pd.read_csv(out)
    return dict(zip(jobs["job_id"], jobs["starting_time"]))


def test_sjf_easy_starts_a_short_job_before_a_long_one_that_easy_starts_first(tmp_path):
    # 4 CPUs held until 100; then a long job (1) and a short one (2) wait,
    # both 4 CPUs wide. EASY (FCFS) starts the long one at 100; SJF the short.
    trace = write_trace(tmp_path / "t.swf", [(0, 4, 100, 100), (1, 4, 1000, 1000),
                                             (2, 4, 10, 10)], 4)
    assert starts(tmp_path, trace, "easy") == {1: 0.0, 2: 100.0, 3: 1100.0}
    assert starts(tmp_path, trace, "sjf_easy") == {1: 0.0, 2: 110.0, 3: 100.0}


def test_easy_small_backfills_only_jobs_of_at_most_max_cpus(tmp_path):
    # 8 CPUs, 4 held until 100; job 2 (8 CPUs) is the head. Job 3 (3 CPUs)
    # and job 4 (1 CPU) both end before the shadow time: EASY backfills both,
    # EASY-small with max_cpus=2 only job 4.
    trace = write_trace(tmp_path / "t.swf", [(0, 4, 100, 100), (1, 8, 100, 100),
                                             (2, 3, 50, 50), (3, 1, 50, 50)], 8)
    assert starts(tmp_path, trace, "easy") == {1: 0.0, 2: 100.0, 3: 2.0, 4: 3.0}
    assert starts(tmp_path, trace, "easy_small", "--param", "max_cpus=2") == {
        1: 0.0, 2: 100.0, 3: 200.0, 4: 3.0}
    # Its default, 16, lets job 3 through.
    assert starts(tmp_path, trace, "easy_small")[3] == 2.0


@pytest.fixture(scope="module")
def lublin_trace(tmp_path_factory):
    """A Lublin-Feitelson workload of 600 jobs at load 0.9 on 64 CPUs (``simlib generate``)."""
    path = tmp_path_factory.mktemp("lublin") / "w.swf"
    code, _, err = simlib("generate", "lublin", "--jobs", 600, "--load", 0.9, "--cpus", 64,
                          "--seed", 3, "-o", path)
    assert code == 0, err
    return path


def backfilled(jobs: pd.DataFrame) -> pd.DataFrame:
    """Jobs started while an earlier-submitted job still waited (in FCFS order: backfilled).

    Job ids are in submission order; the workload has no job of zero
    length, so a job that passes another starts strictly before it.
    """
    jobs = jobs.sort_values("job_id")
    start = jobs["starting_time"].to_numpy()
    latest_before = np.maximum.accumulate(start)
    return jobs[np.r_[False, latest_before[:-1] > start[1:]]]


def table(tmp_path, trace, policy, *options, env=None) -> pd.DataFrame:
    out = tmp_path / "jobs.csv"
    module = [] if policy == "easy" else ["--policy-module", EXAMPLE_FILES[policy]]
    code, _, err = simlib("simulate", trace, *module, "--policy", policy, *options, "-o", out,
                          env=env)
    assert code == 0, err
    return pd.read_csv(out)


def test_easy_small_on_a_lublin_workload(tmp_path, lublin_trace):
    wide = backfilled(table(tmp_path, lublin_trace, "easy"))
    assert (wide["requested_number_of_resources"] > 4).any()  # EASY does backfill wide jobs
    small = backfilled(table(tmp_path, lublin_trace, "easy_small", "--param", "max_cpus=4"))
    assert len(small) and (small["requested_number_of_resources"] <= 4).all()


@pytest.mark.parametrize("policy", ["sjf_easy", "easy_small"])
def test_the_compiled_and_engine_loops_give_the_same_table(tmp_path, lublin_trace, policy):
    import os
    compiled = table(tmp_path, lublin_trace, policy, env={**os.environ,
                                                          "SIMLIB_KERNELS": "compiled"})
    engine = table(tmp_path, lublin_trace, policy, env={**os.environ, "SIMLIB_KERNELS": "python"})
    pd.testing.assert_frame_equal(compiled, engine, check_exact=True)
    easy = table(tmp_path, lublin_trace, "easy")
    assert not compiled["starting_time"].equals(easy["starting_time"])  # a policy of its own


@pytest.mark.parametrize("value, message", [
    ("0", "easy_small: max_cpus must be an integer > 0, not 0"),
    ("-3", "easy_small: max_cpus must be an integer > 0, not -3"),
    ("2.5", "easy_small: parameter max_cpus must be an integer, not 2.5"),
    ("yes", "easy_small: parameter max_cpus must be an integer, not True"),
])
def test_a_bad_max_cpus_is_a_config_error(tmp_path, value, message):
    trace = write_trace(tmp_path / "t.swf", [(0, 1, 10, 10)], 4)
    code, out, err = simlib("simulate", trace, "--policy-module", EXAMPLE_FILES["easy_small"],
                            "--policy", "easy_small", "--param", f"max_cpus={value}")
    assert (code, out) == (2, "") and message in err
    with pytest.raises(ConfigError, match=re.escape(message)):
        example_class("easy_small")(max_cpus=float(value) if "." in value else
                                    (True if value == "yes" else int(value)))


@pytest.mark.parametrize("name", ["sjf_easy", "easy_small"])
def test_the_examples_keep_the_compiled_loop_and_their_doctests_pass(name):
    cls = example_class(name)
    assert cls.compiled_problem() is None
    module = sys.modules[cls.__module__]
    assert doctest.testmod(module).failed == 0


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_guides_smallest_policy_runs():
    from simlib.engine.job import Job
    from simlib.policies import POLICIES

    code = python_blocks(GUIDE.read_text(encoding="utf-8"))[0]
    namespace: dict = {}
    try:
        exec(compile(code, str(GUIDE), "exec"), namespace)
        cls = POLICIES["widest_first"]
    finally:
        POLICIES.pop("widest_first", None)   # leave the registry as it was
    jobs = [Job(0, 1, 0.0, 2, 10.0, 10.0), Job(1, 2, 1.0, 1, 10.0, 10.0),
            Job(2, 3, 1.0, 4, 10.0, 10.0)]
    sim = Simulator(Platform.homogeneous(4), jobs, cls(), debug=True)
    sim.run()
    assert [j.start for j in jobs] == [0.0, 20.0, 10.0]   # the widest waiting job first


def test_the_guide_shows_the_pipeline_contract_and_the_real_command_line():
    text = GUIDE.read_text(encoding="utf-8")
    assert ("policy_modules: [examples/policies/sjf_easy.py, examples/policies/easy_small.py]\n"
            "extra_policies:\n  sjf_easy: {}\n  easy_small: {max_cpus: 16}\n") in text
    for line in re.findall(r"^simlib (?:simulate|policies) .*$", text, flags=re.M):
        for option in re.findall(r"--[a-z-]+", line):
            code, out, _ = simlib(line.split()[1], "--help")
            assert option in out, f"{option} of {line!r} is not an option"
