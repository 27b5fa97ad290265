"""Tests of simlib.table (numpy columns standing in for a DataFrame)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simlib.table import Table, duplicated


def test_rows_columns_and_items():
    t = Table({"a": [1, 2, 3], "b": np.array([0.5, 1.5, 2.5]), "s": ["x", "y", "z"]})
    assert len(t) == 3 and t.columns == ("a", "b", "s") and not t.empty
    assert t["a"].dtype == np.int64 and t["s"].dtype == object
    assert t["s"].tolist() == ["x", "y", "z"]
    assert Table({}).empty and len(Table({"a": []})) == 0


def test_bad_columns_are_refused():
    with pytest.raises(ValueError, match="'b' has 2 rows"):
        Table({"a": [1], "b": [1, 2]})
    with pytest.raises(ValueError, match="not one-dimensional"):
        Table({"a": [[1, 2]]})


def test_assign_and_take_make_new_tables():
    t = Table({"a": [1, 2, 3], "b": [4, 5, 6]})
    u = t.assign(a=[7.0, 8.0, 9.0], c=[0, 0, 0])
    assert u.columns == ("a", "b", "c") and u["a"].dtype == np.float64
    assert t["a"].tolist() == [1, 2, 3]  # the original is unchanged
    assert t.take(np.array([True, False, True]))["b"].tolist() == [4, 6]
    assert t.take([2, 0])["a"].tolist() == [3, 1]


def test_frame_round_trip_keeps_values_and_dtypes():
    frame = pd.DataFrame({"i": np.array([3, -1], dtype=np.int64), "f": [0.25, np.nan],
                          "s": ["p", "q"]})
    back = Table.from_frame(frame).to_frame()
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert isinstance(back.index, pd.RangeIndex)


def test_concat_is_pandas_concat():
    a = pd.DataFrame({"i": np.array([3, -1], dtype=np.int64), "f": [0.25, np.nan], "s": ["p", "q"]})
    b = pd.DataFrame({"i": np.array([7], dtype=np.int64), "f": [1.5], "s": ["r"]})
    got = Table.concat([Table.from_frame(a), Table.from_frame(b)]).to_frame()
    pd.testing.assert_frame_equal(got, pd.concat([a, b], ignore_index=True), check_exact=True)
    with pytest.raises(ValueError, match="differ"):
        Table.concat([Table.from_frame(a), Table.from_frame(b[["f", "i", "s"]])])
    with pytest.raises(ValueError, match="no tables"):
        Table.concat([])


@pytest.mark.parametrize("seed", range(5))
def test_duplicated_is_pandas_duplicated(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 30, size=60)
    assert duplicated(values).tolist() == pd.Series(values).duplicated().tolist()
    floats = np.where(rng.random(60) < 0.2, np.nan, rng.integers(0, 20, size=60) / 4)
    assert duplicated(floats).tolist() == pd.Series(floats).duplicated().tolist()


def test_duplicated_of_nothing():
    assert duplicated(np.array([], dtype=np.int64)).tolist() == []
