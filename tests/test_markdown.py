"""Tests of simlib.markdown: the one table renderer, whose bytes depend on the values only."""
import doctest
import math

import numpy as np
import pandas as pd

import simlib.markdown as markdown_module
from simlib.markdown import format_cell, markdown_table


def test_format_cell():
    assert format_cell(None) == "-" and format_cell(math.nan) == "-"
    assert format_cell(math.inf, missing="–") == "–"
    assert format_cell(True) == "True" and format_cell(np.bool_(False)) == "False"
    assert format_cell(np.int64(7)) == "7" and format_cell(10**16) == "10000000000000000"
    assert format_cell(3.0) == "3" and format_cell(2.0 / 3) == "0.6667"
    assert format_cell(np.float32(0.5)) == "0.5"
    assert format_cell(2.0 / 3, digits=2) == "0.67" and format_cell("abc") == "abc"
    # Integral floats: as integers by default, or to the significant digits.
    assert format_cell(12345.0) == "12345" and format_cell(12345.0, integers=False) == "1.234e+04"
    assert format_cell(1e20) == "1e+20"
    # Text cannot break the table.
    assert format_cell("a|b\nc") == "a\\|b c"


def test_markdown_table_aligns_numbers_right_and_escapes_pipes():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.5, math.nan]}, index=["r1", "r2"])
    assert markdown_table(df, index=True) == (
        "| index | name | x |\n|---|---|---:|\n| r1 | a\\|b | 1.5 |\n| r2 | c | - |\n")
    assert markdown_table(df).splitlines()[1] == "|---|---:|"


def test_markdown_table_columns_headers_and_alignment():
    df = pd.DataFrame({"n": [3, 4], "x": [1.23456, 2.0], "t": ["a", "b"]})
    text = markdown_table(df, ["t", "x"], headers={"x": "x (s)"}, digits=3)
    assert text.splitlines() == ["| t | x (s) |", "|---|---:|", "| a | 1.23 |", "| b | 2 |"]
    assert markdown_table(df, align="left").splitlines()[1] == "|---|---|---|"
    assert markdown_table(df, align={"t": "right", "n": "left"}).splitlines()[1] == "|---|---:|---:|"
    # Numbers in a text column are formatted as numbers, NaN as missing.
    mixed = pd.DataFrame({"v": ["a", 0.123456, math.nan]})
    assert markdown_table(mixed, missing="–").splitlines()[2:] == ["| a |", "| 0.1235 |", "| – |"]


def test_markdown_examples():
    assert doctest.testmod(markdown_module).failed == 0
