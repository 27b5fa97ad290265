"""Tests of simlib.studies.utrera.tables: the tables from the cubes."""
import math
from pathlib import Path

import numpy as np
import pytest

from simlib.cube import build_cube
from simlib.studies.utrera import tables as R
from simlib.studies.utrera.published import load_published

PUBLISHED = Path(__file__).resolve().parents[1] / "config/published/utrera.yaml"


@pytest.fixture(scope="module")
def pub():
    return load_published(PUBLISHED)


def test_mean_ci_student_t():
    m, h, n = R.mean_ci([1.0, 2.0, 3.0, np.nan])
    # t_{0.975, 2} = 4.302653; sd = 1.
    assert (m, n) == (2.0, 3) and h == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert R.mean_ci([5.0, 5.0, 5.0]) == (5.0, 0.0, 3)
    m, h, n = R.mean_ci([7.0])
    assert m == 7.0 and math.isnan(h) and n == 1
    assert R.mean_ci([])[2] == 0


def _table1_cube():
    recs = []
    for p, f in (("easy", 1.0), ("fcfs_malleable", 0.5)):
        for load in (0.3, 0.9):
            for s in range(3):
                recs.append({"policy": p, "load": load, "seed": s, "mean_wait": f * (100 + s),
                             "mean_response": f * (200 + s), "utrera_slowdown": f * (3 + s)})
    return build_cube(recs, ["policy", "load", "seed"],
                      ["mean_wait", "mean_response", "utrera_slowdown"])


def test_table1_frame_with_published(pub):
    t1 = R.table1_frame(_table1_cube(), pub)
    row = t1[(t1["load"] == 0.9) & (t1["policy"] == "easy") & (t1["metric"] == "mean_wait")].iloc[0]
    assert row["mean"] == 101.0 and row["n"] == 3
    assert (row["paper_S"], row["paper_R"]) == (175.0, 162.0)
    assert row["rel_diff_S"] == pytest.approx(101 / 175 - 1)
    assert list(dict.fromkeys(t1["metric"])) == ["mean_wait", "mean_response", "utrera_slowdown"]


def _traces_cube(values):
    """values: {(trace, policy): {metric: [per seed]}}."""
    recs = []
    for (t, p), mets in values.items():
        n = len(next(iter(mets.values())))
        for s in range(n):
            recs.append({"trace": t, "policy": p, "seed": s, **{m: v[s] for m, v in mets.items()}})
    metrics = sorted({m for mets in values.values() for m in mets})
    return build_cube(recs, ["trace", "policy", "seed"], metrics)


def test_gains_frame_per_trace_mean_and_pooled():
    cube = _traces_cube({
        ("A", "easy"): {"mean_response": [100.0, 100.0]},
        ("A", "fcfs_malleable"): {"mean_response": [60.0, 80.0]},
        ("B", "easy"): {"mean_response": [1000.0, 1000.0]},
        ("B", "fcfs_malleable"): {"mean_response": [1000.0, 1000.0]},
    })
    g = R.gains_frame(cube, ["mean_response"]).set_index("trace")["mean"]
    assert g["A"] == pytest.approx(30.0) and g["B"] == 0.0
    assert g["mean of traces"] == pytest.approx(15.0)
    # Pooled: per seed, (1100 - 1060) / 1100 and (1100 - 1080) / 1100.
    assert g["pooled"] == pytest.approx(100 * 30 / 1100)


def test_orders_frame_ranks():
    cube = _traces_cube({("A", p): {"mean_response": [v, v]} for p, v in
                         (("fm", 5.0), ("fm:order=longest", 4.0), ("fm:order=shortest", 6.0))})
    df = R.orders_frame(cube, {"oldest": "fm", "longest": "fm:order=longest",
                               "shortest": "fm:order=shortest"}, ["mean_response"])
    assert dict(zip(df["order"], df["rank"])) == {"oldest": 2, "longest": 1, "shortest": 3}
