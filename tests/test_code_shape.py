"""The shape limits of simlib's code (issue 35), measured by scripts/code_metrics.py:
no function body over 80 lines and no block graded E or F by radon."""
from __future__ import annotations

import importlib.util

import pytest

from helpers_pipeline import REPO

spec = importlib.util.spec_from_file_location("code_metrics", REPO / "scripts" / "code_metrics.py")
code_metrics = importlib.util.module_from_spec(spec)
spec.loader.exec_module(code_metrics)


def test_no_function_is_over_80_lines():
    assert code_metrics.long_functions(REPO / "simlib", 80) == []


def test_no_block_is_graded_e_or_f():
    blocks = code_metrics.complex_blocks(REPO / "simlib")
    if blocks is None:
        pytest.skip("radon is not installed (pip install radon; it is in the test extras)")
    assert blocks == []


def test_the_measure_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(81))
    (tmp_path / "m.py").write_text(f'def f():\n    """Doc."""\n{body}\n\n\ndef g():\n    return [\n'
                                   + "".join(f"        {i},\n" for i in range(90)) + "    ]\n")
    assert [(w.split()[-1], n) for w, n in code_metrics.long_functions(tmp_path, 80)] == [("f", 81)]
