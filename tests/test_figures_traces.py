"""Tests of simlib.figures.traces (the trace characterization table)."""
from __future__ import annotations

import doctest
import logging
import math

import pandas as pd

from simlib.figures import traces as T
from simlib.workload.prepare import prepare_trace

LOG = logging.getLogger(__name__)
#: Ten serial jobs, 10 s apart, 5 s each (avg_cpu_time missing).
TEN_JOBS = "".join(f"{i + 1} {100 + 10 * i} -1 5 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   for i in range(10))


def prepared(tmp_path, name: str, first_job: int) -> str:
    """The info file prepare_trace writes for the ten jobs (5 kept from first_job)."""
    (tmp_path / f"{name}.swf").write_text(TEN_JOBS)
    prepare_trace(tmp_path / f"{name}.swf", 4, trace=name, scale="smoke",
                  swf=tmp_path / f"{name}.p.swf", cleaning_log=tmp_path / f"{name}.txt",
                  info=tmp_path / f"{name}.json", first_job=first_job, n_jobs=5)
    return tmp_path / f"{name}.json"


def test_characterize_traces_tables(tmp_path, caplog):
    infos = {"B": prepared(tmp_path, "B", 0), "A": prepared(tmp_path, "A", 2)}
    caplog.set_level(logging.INFO, logger=LOG.name)
    table = T.characterize_traces(infos, scale="default", csv=tmp_path / "t.csv",
                                  md=tmp_path / "t.md", log=LOG)
    assert table[["trace", "part"]].values.tolist() == [
        ["B", "whole cleaned trace"], ["B", "smoke subset"],
        ["A", "whole cleaned trace"], ["A", "smoke subset"]]
    assert table["jobs"].tolist() == [10, 5, 10, 5]
    assert math.isnan(table["cpu_util_mean"].iloc[0])  # null in the JSON: missing again
    csv = pd.read_csv(tmp_path / "t.csv", index_col="workload")
    assert list(csv.index) == ["B (cleaned)", "B (subset)", "A (cleaned)", "A (subset)"]
    assert list(csv.columns[:2]) == ["trace", "part"]
    assert b"\r" not in (tmp_path / "t.csv").read_bytes()
    md = (tmp_path / "t.md").read_text().splitlines()
    assert md[0] == "# Trace characterization" and md[2].startswith("Scale: **default**.")
    assert md[4].split("|")[1].strip() == "quantity"
    jobs_row = next(line for line in md if line.startswith("| jobs "))
    assert [c.strip() for c in jobs_row.split("|")[2:-1]] == ["10", "5", "10", "5"]
    assert any(line.startswith("| cpu_util_mean ") and "| - |" in line for line in md)
    assert caplog.messages == ["wrote 4 rows"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("t.")) == ["t.csv",
                                                                                     "t.md"]


def test_examples():
    assert doctest.testmod(T).failed == 0
