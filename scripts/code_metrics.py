#!/usr/bin/env python3
"""Size and shape of simlib's code: the numbers issue 35 tracks.

Prints the Python lines under ``simlib/studies/``, every function longer
than ``--max-lines`` (its body without its docstring; a function whose body
is mostly one literal, a data table, is left out), and, when radon is
installed, every block with cyclomatic complexity graded E or F.

    python scripts/code_metrics.py            # report
    python scripts/code_metrics.py --check    # exit 1 when a limit is exceeded
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def line_count(folder: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in python_files(folder))


def _body_lines(node: ast.AST) -> int:
    """Lines of a function's body, its docstring left out."""
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if not body:
        return 0
    return body[-1].end_lineno - body[0].lineno + 1


def _is_data_table(node: ast.AST) -> bool:
    """A body that is (mostly) one literal of plain values (no calls): a table
    of data, not logic."""
    literals = (ast.Dict, ast.List, ast.Tuple, ast.Set)
    biggest = 0
    for sub in ast.walk(node):
        if isinstance(sub, literals) and not any(isinstance(x, ast.Call) for x in ast.walk(sub)):
            biggest = max(biggest, sub.end_lineno - sub.lineno + 1)
    return biggest >= 0.6 * max(_body_lines(node), 1)


def long_functions(folder: Path, limit: int) -> list[tuple[str, int]]:
    out = []
    for path in python_files(folder):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _body_lines(node)
                if n > limit and not _is_data_table(node):
                    out.append((f"{_name(path)}:{node.lineno} {node.name}", n))
    return sorted(out, key=lambda x: -x[1])


def complex_blocks(folder: Path, grades: str = "EF") -> list[str] | None:
    try:
        from radon.complexity import cc_rank, cc_visit
    except ImportError:
        return None
    out = []
    for path in python_files(folder):
        for block in cc_visit(path.read_text()):
            if cc_rank(block.complexity) in grades:
                out.append(f"{_name(path)}:{block.lineno} {block.fullname} "
                           f"{cc_rank(block.complexity)} ({block.complexity})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--check", action="store_true", help="exit 1 when a limit is exceeded")
    args = ap.parse_args(argv)
    simlib = ROOT / "simlib"
    print(f"simlib/studies/ Python lines: {line_count(simlib / 'studies')}")
    print(f"simlib/ Python lines: {line_count(simlib)}")
    longs = long_functions(simlib, args.max_lines)
    print(f"functions over {args.max_lines} lines (body, docstring excluded): {len(longs)}")
    for where, n in longs:
        print(f"  {n:4d} {where}")
    blocks = complex_blocks(simlib)
    if blocks is None:
        print("blocks graded E/F: not measured (pip install radon)")
    else:
        print(f"blocks graded E/F (radon): {len(blocks)}")
        for b in blocks:
            print(f"  {b}")
    return 1 if args.check and (longs or blocks) else 0


if __name__ == "__main__":
    sys.exit(main())
