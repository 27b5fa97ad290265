"""Tests of :mod:`simlib.policies._trace_kernel` (the readers' compiled fast path).

``table_of`` must read what the pandas path of
:func:`simlib.workload.swf._number_table` reads -- the same float64 values,
bit for bit (signed zeros, long integers, fractions rounded correctly), the
same text tokens -- and give up (None) where that path gives up: a token
that is not a plain number, a line with another number of fields. Then
whole files are read both ways by :func:`read_swf` and :func:`read_cwf`.
"""
from __future__ import annotations

import importlib
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.policies import kernels
from simlib.workload import cwf, swf

pytestmark = pytest.mark.compiled_kernel
# Left out where the kernels are not built, except in CI (see conftest.py).
KERNEL = "simlib.policies._trace_kernel"
kernel = (importlib.import_module(KERNEL) if os.environ.get("CI", "").lower() == "true"
          else pytest.importorskip(KERNEL))


def python_path():
    return mock.patch.dict(os.environ, {kernels.KERNEL_ENV: "python"})


def same(a, b):
    """Equal results of _number_table: None alike, or bit-identical values and texts."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, tuple):
        return same(a[0], b[0]) and list(a[1]) == list(b[1])
    return a.shape == b.shape and a.tobytes() == b.tobytes()


DIGITS = st.text("0123456789", min_size=1, max_size=22)
NUMBER = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.builds(lambda s, a, b: f"{s}{a}.{b}", st.sampled_from(["", "-", "+"]), DIGITS, DIGITS),
    st.builds(lambda s, a: f"{s}{a}", st.sampled_from(["-", "+", ""]), DIGITS),
    st.sampled_from(["-0", "+0", "-0.0", "0.", ".5", "-.5", "5.", "-1", "9007199254740993",
                     "123456789012345678901234567890", "0.1", "1" * 70 + ".5"]))
JUNK = st.sampled_from([".", "-", "+", "--1", "1-2", "1.2.3", "+.", "1..", "-.", "1+"])
SEP = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def bodies(draw, n_fields, text_field=-1, junk=False):
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        count = n_fields if not junk or draw(st.booleans()) else draw(st.integers(1, n_fields + 1))
        tokens = []
        for k in range(count):
            if k == text_field:
                tokens.append(draw(st.sampled_from(["S", "ET", "RT", "EP", "RP"])))
            elif junk and draw(st.integers(0, 9)) == 0:
                tokens.append(draw(JUNK))
            else:
                tokens.append(draw(NUMBER))
        lead, sep = draw(st.sampled_from(["", " ", "\t"])), draw(SEP)
        rows.append(lead + sep.join(tokens) + draw(st.sampled_from(["", " "])))
        if draw(st.integers(0, 5)) == 0:
            rows.append(draw(st.sampled_from(["", "  ", "\t"])))   # blank lines
    return ("\n".join(rows) + draw(st.sampled_from(["", "\n"]))).encode()


def pandas_table(body, n_fields, text_field=-1):
    with python_path():
        return swf._number_table(body, n_fields, text_field)


def kernel_table(body, n_fields, text_field=-1):
    parsed = kernel.table_of(body, n_fields, text_field)
    return parsed if parsed is None or text_field >= 0 else parsed[0]


@settings(max_examples=300, deadline=None)
@given(body=bodies(4))
def test_numbers_read_as_pandas_reads_them(body):
    got, want = kernel_table(body, 4), pandas_table(body, 4)
    assert want is not None
    # The kernel leaves numbers of over 63 characters to pandas.
    assert same(got, want) or (got is None and max(map(len, body.split())) > 63)
    assert same(swf._number_table(body, 4), want)


@settings(max_examples=300, deadline=None)
@given(body=bodies(3, junk=True))
def test_never_reads_what_pandas_refuses(body):
    got, want = kernel_table(body, 3), pandas_table(body, 3)
    assert got is None or same(got, want)
    assert same(swf._number_table(body, 3), want)


@settings(max_examples=200, deadline=None)
@given(body=bodies(5, text_field=2, junk=True))
def test_a_text_field_as_cwf_reads_it(body):
    got, want = kernel_table(body, 5, 2), pandas_table(body, 5, 2)
    assert got is None or same(got, want)
    assert same(swf._number_table(body, 5, 2), want)


def test_the_tokens_it_refuses_or_rounds():
    assert kernel.table_of(b"1 2\n", 3) is None and kernel.table_of(b"1 2 3 4\n", 3) is None
    assert kernel.table_of(b"1 x\n", 2) is None and kernel.table_of(b"1 .\n", 2) is None
    values, texts = kernel.table_of(b"-0 0.1 9007199254740993\n", 3)
    assert texts is None and np.signbit(values[0, 0]) and values[0, 1] == 0.1
    assert values[0, 2] == float("9007199254740993")   # rounded, as float() rounds
    assert kernel.table_of(b"1" * 64 + b".5 1\n", 2) is None   # too long for the kernel
    assert kernel.table_of(b"\n \n\t\n", 2)[0].shape == (0, 2)


@pytest.mark.parametrize("reader, text", [
    (swf.read_swf, "; Version: 2.2\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n"
                   "2 3 0 7 2 1.25 -1 2 30 -1 1 2 2 1 1 1 -1 -1\n"),
    (cwf.read_cwf, "; Version: 2.2\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1 -1 S -1\n"
                   "2 3 0 7 2 -1 -1 2 30 -1 1 2 2 1 1 1 -1 -1 40 S -1\n"
                   "2 5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 60\n"),
])
def test_files_read_alike_both_ways(tmp_path, reader, text):
    path = tmp_path / "w.trace"
    path.write_text(text)
    fast = reader(path).jobs
    with python_path():
        slow = reader(path).jobs
    assert fast.equals(slow) and list(fast.dtypes) == list(slow.dtypes)
