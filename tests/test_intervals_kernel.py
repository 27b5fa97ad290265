"""Tests of :mod:`simlib.policies._intervals_kernel` (the jobs table's text).

``intervals_of`` must give :func:`simlib.runner.intervals` of each
allocation: blocks of consecutive ids in order, whatever order the ids come
in, negative and very large ids, empty allocations, tuples and ranges.
``csv_rows`` must write what the ``%``-format writer of
:func:`simlib.io.csv_text` and pandas' ``to_csv`` write.
"""
from __future__ import annotations

import importlib
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.runner import intervals

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._intervals_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))

IDS = st.one_of(st.integers(0, 64), st.integers(-2**62, 2**62))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(IDS, max_size=50, unique=True), max_size=30))
def test_intervals_of_is_intervals_of_each(allocs):
    assert kernel.intervals_of(allocs) == [intervals(a) for a in allocs]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2000), min_size=1, max_size=2000, unique=True))
def test_long_allocations_sorted_or_not(ids):
    # Longer than the kernel's first buffer; in order and shuffled.
    assert kernel.intervals_of([ids, sorted(ids)]) == [intervals(ids)] * 2


def test_the_extreme_64_bit_ids():
    # Written digit by digit: the most negative id has no positive twin.
    low, high = -2**63, 2**63 - 1
    assert kernel.intervals_of([[low], [high], [low + 1, low], [high, high - 1]]) == [
        str(low), str(high), f"{low}-{low + 1}", f"{high - 1}-{high}"]


def test_other_sequences_and_empty_input():
    assert kernel.intervals_of([(4, 3), range(7, 10), []]) == ["3-4", "7-9", ""]
    assert kernel.intervals_of([]) == []
    assert kernel.intervals_of([[]]) == [""]


def test_a_text_longer_than_the_first_buffer():
    allocs = [[i, i + 2] for i in range(0, 10**9, 10**9 // 20_000)]
    assert kernel.intervals_of(allocs) == [f"{a} {b}" for a, b in allocs]


def test_ids_that_are_not_integers_are_refused():
    with pytest.raises(TypeError):
        kernel.intervals_of([[1, "2"]])
    with pytest.raises(OverflowError):
        kernel.intervals_of([[2**70]])


FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.integers(-2**60, 2**60).map(float),
                   st.sampled_from([0.0, -0.0, 2.0**53, 2.0**53 - 1, -2.0**53, 1e16, 1e-5]))
TEXTS = st.text(st.characters(blacklist_characters=',"\r\n', blacklist_categories=("Cs",)),
                max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(FLOATS, min_size=n, max_size=n),
    st.lists(st.integers(-2**63, 2**63 - 1), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(TEXTS, min_size=n, max_size=n),
    st.sampled_from(["\n", "\r\n"]))))
def test_csv_rows_write_what_the_python_writer_and_pandas_write(table):
    import numpy as np
    import pandas as pd

    from simlib.io import csv_text

    floats, ints, bools, texts, end = table
    df = pd.DataFrame({"f": np.array(floats, dtype=np.float64), "i": np.array(ints, dtype=np.int64),
                       "b": bools, "s": texts, "c": "same%", "f_const": -1.0})
    assert csv_text(df, end, compiled=True) == csv_text(df, end, compiled=False) \
        == df.to_csv(index=False, lineterminator=end)


def test_csv_rows_rejects_what_it_cannot_write():
    import numpy as np

    with pytest.raises(ValueError, match="shorter"):
        kernel.csv_rows([(1, np.array([1]))], 2, "\n")
    with pytest.raises(ValueError, match="list of str"):
        kernel.csv_rows([(3, ("a",))], 1, "\n")
    with pytest.raises(TypeError):
        kernel.csv_rows([(3, [1])], 1, "\n")
    with pytest.raises(ValueError, match="kind"):
        kernel.csv_rows([(9, "x")], 1, "\n")
    assert kernel.csv_rows([(1, np.array([], dtype=np.int64)), (0, "x")], 0, "\n") == ""
