"""Tests of :mod:`simlib.policies._intervals_kernel` (the jobs table's allocation text).

``intervals_of`` must give :func:`simlib.runner.intervals` of each
allocation: blocks of consecutive ids in order, whatever order the ids come
in, negative and very large ids, empty allocations, tuples and ranges.
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
