"""Tests of simlib.markdown: Markdown tables whose bytes depend on the values only."""
import doctest
import math

import numpy as np
import pandas as pd

import simlib.markdown as markdown_module
from simlib.markdown import format_number, markdown_table


def test_format_number():
    assert format_number(None) == "-" and format_number(math.nan) == "-"
    assert format_number(True) == "True" and format_number(np.int64(7)) == "7"
    assert format_number(3.0) == "3" and format_number(2.0 / 3) == "0.6667"
    assert format_number(2.0 / 3, digits=2) == "0.67" and format_number("abc") == "abc"


def test_markdown_table_aligns_numbers_right_and_escapes_pipes():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.5, math.nan]}, index=["r1", "r2"])
    assert markdown_table(df) == ("| index | name | x |\n|---|---|---:|\n| r1 | a\\|b | 1.5 |\n"
                                  "| r2 | c | - |\n")
    assert markdown_table(df, index=False).splitlines()[1] == "|---|---:|"


def test_markdown_examples():
    assert doctest.testmod(markdown_module).failed == 0
