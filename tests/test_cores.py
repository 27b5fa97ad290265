"""Tests of simlib.engine.cores: core runs against the plain list of ids they stand for."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.engine.cores import CoreRuns, FreeRuns


class SortedFree:
    """The rule the runs keep, on a plain sorted list of ids (the reference):
    a job takes the lowest free ids."""

    def __init__(self, total):
        self.free = list(range(total))

    def take(self, count):
        ids = self.free[:count]
        del self.free[:count]
        return ids

    def give_back(self, ids):
        self.free = sorted(self.free + list(ids))

    def remove(self, ids):
        wanted = set(ids)
        kept = [c for c in self.free if c not in wanted]
        if len(wanted) != len(ids) or len(self.free) - len(kept) != len(ids):
            return False
        self.free = kept
        return True


@st.composite
def operations(draw):
    total = draw(st.integers(0, 40))
    return total, draw(st.lists(st.tuples(st.sampled_from(["take", "give", "remove"]),
                                          st.integers(0, 10**6)), max_size=60))


@settings(max_examples=300, deadline=None)
@given(operations())
def test_free_runs_hand_out_the_lowest_free_ids(case):
    total, ops = case
    runs, ref = FreeRuns(total), SortedFree(total)
    held = []   # allocations taken and not yet given back
    for op, x in ops:
        if op == "take" and ref.free:
            count = 1 + x % len(ref.free)
            got, want = runs.take(count), ref.take(count)
            assert list(got) == want and len(got) == count
            held.append(got)
        elif op == "give" and held:
            a = held.pop(x % len(held))
            runs.give_back(a)
            ref.give_back(a)
        elif op == "remove":
            # Some free ids, maybe one held or named twice: refused whole.
            pool = ref.free + ([next(iter(held[0]))] if held else [])
            ids = [pool[(x >> k) % len(pool)] for k in range(x % 4)] if pool else []
            ok = ref.remove(ids)
            assert runs.remove(ids) == ok
            if ok and ids:
                held.append(list(ids))
        assert runs.ids() == ref.free and runs.count == len(ref.free)
        # Sorted, disjoint and merged: no two runs touch.
        assert all(a <= b for a, b in zip(runs.lo, runs.hi))
        assert all(runs.hi[k] + 1 < runs.lo[k + 1] for k in range(len(runs.lo) - 1))


def test_a_huge_machine_is_one_run():
    s = FreeRuns(2**40)
    a = s.take(3)
    assert (s.lo, s.hi, list(a), s.count) == ([3], [2**40 - 1], [0, 1, 2], 2**40 - 3)
    s.give_back(a)
    assert (s.lo, s.hi) == ([0], [2**40 - 1])


@given(st.lists(st.integers(0, 30), unique=True, max_size=20))
def test_core_runs_read_like_their_list(ids):
    a = CoreRuns.of(ids)
    assert list(a) == ids and len(a) == len(ids) and a == ids and list(reversed(a)) == ids[::-1]
    assert [a[i] for i in range(len(ids))] == ids and a[:3] == ids[:3]
    if ids:
        assert a[-1] == ids[-1]
    with pytest.raises(IndexError):
        a[len(ids)]
    blocks = []
    for c in sorted(ids):
        if blocks and c == blocks[-1][1] + 1:
            blocks[-1][1] = c
        else:
            blocks.append([c, c])
    assert a.intervals() == " ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in blocks)
