"""Tests of :mod:`simlib.policies._seeding_kernel` (compiled seeding).

``first_uniforms(words, k)`` must give exactly the doubles numpy's
``Generator(PCG64(SeedSequence(words))).random(k)`` gives: words of one,
several and more than four 32-bit parts, zeros, long ints, several lengths
of output. Then paper Z's pair draws, which run on it, are compared path
against path.
"""
from __future__ import annotations

import importlib
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.studies.zeng import slowdowns as S

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._seeding_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))


def numpy_uniforms(words, k):
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words))).random(k).tolist()


# Word sizes around the 32-bit boundaries SeedSequence splits at.
WORD = st.one_of(st.integers(0, 3), st.integers(0, 2**32 - 1), st.integers(2**32 - 2, 2**33),
                 st.integers(0, 2**130))


@settings(max_examples=400, deadline=None)
@given(words=st.lists(WORD, min_size=1, max_size=12), k=st.integers(0, 40))
def test_first_uniforms_are_numpys(words, k):
    assert kernel.first_uniforms(words, k) == numpy_uniforms(words, k)


def test_first_uniforms_seeded_sweep():
    # Paper Z's own shape: run coordinates, the stream constant, two job ids.
    rng = np.random.default_rng(12)
    for _ in range(3000):
        words = [*rng.integers(0, 50, rng.integers(1, 4)).tolist(), S.COSCHEDULING_STREAM,
                 *rng.integers(0, 20_000, 2).tolist()]
        assert kernel.first_uniforms(words) == numpy_uniforms(words, 2)


def test_numpy_integers_are_words():
    words = [np.int64(3), np.uint32(2**32 - 1), 7]
    assert kernel.first_uniforms(words) == numpy_uniforms([3, 2**32 - 1, 7], 2)


def test_no_words_is_numpys_empty_entropy():
    assert kernel.first_uniforms([]) == numpy_uniforms([], 2)


@pytest.mark.parametrize("words, k, error, message", [
    ([1, -1], 2, ValueError, "must be >= 0"),
    ([1], -1, ValueError, "k must be >= 0"),
    ([1.5], 2, TypeError, "integer"),            # numpy refuses a float too
    ([1], 2**61 + 1, MemoryError, "do not fit"),  # not a wrapped-around malloc
])
def test_bad_input_is_refused(words, k, error, message):
    with pytest.raises(error, match=message):
        kernel.first_uniforms(words, k)


def test_pair_draws_are_the_same_on_both_paths(monkeypatch):
    from simlib.policies.kernels import KERNEL_ENV
    values = {}
    for path in ("compiled", "python"):
        monkeypatch.setenv(KERNEL_ENV, path)
        sl = S.CoschedulingSlowdowns(S.TABLE4, seed=[3, 1])
        assert (sl.kernel is None) == (path == "python")
        values[path] = [sl(a, b) for a in range(40) for b in range(40) if a != b]
        values[path + " function"] = [S.coscheduling_slowdown(S.TABLE4, [3, 1], a, a + 1)
                                      for a in range(200)]
    assert values["compiled"] == values["python"]
    assert values["compiled function"] == values["python function"]
    assert len(set(values["compiled"])) == len(values["compiled"])  # every pair its own draw


def test_pair_slowdowns_pickle_without_their_kernel():
    # A module does not pickle: the memo and the table travel, the kernel is
    # chosen again on the other side.
    import pickle
    sl = S.CoschedulingSlowdowns(S.TABLE4, seed=4)
    first = sl(1, 2)
    copy = pickle.loads(pickle.dumps(sl))
    assert copy.memo == sl.memo and copy(1, 2) == first and copy(2, 1) == sl(2, 1)
    assert (copy.kernel is None) == (sl.kernel is None)
