"""The ``simlib`` command line.

Subcommands are contributed by modules: each provider is a function
``register(subparsers)`` that adds its parser with ``subparsers.add_parser``
and sets ``func=<callable(args) -> int>`` as a default. To add a subcommand,
write such a function in your module and append its dotted path to
:data:`SUBCOMMAND_PROVIDERS` (one line). Providers are imported lazily, so a
broken optional module cannot take ``simlib diff`` down with it.

Exit status: 0 success, 1 "differences found" style negative results,
2 usage errors and unreadable input (argparse's convention), 130 after
Ctrl-C (128 + SIGINT, as shells report it), which ends any subcommand with
the one line ``simlib <command>: interrupted`` and no traceback (outputs are
written atomically, :mod:`simlib.io`, so none is left half written).

Run as ``simlib ...`` (console script) or ``python -m simlib.cli ...``.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys
from typing import Callable, Sequence

from simlib import __version__

__all__ = ["main", "build_parser", "register_diff", "SUBCOMMAND_PROVIDERS", "EXIT_INTERRUPTED"]

EXIT_OK, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


def _load_provider(spec) -> Callable[[argparse._SubParsersAction], None]:
    if callable(spec):
        return spec
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)


# --------------------------------------------------------------------------
# simlib diff
# --------------------------------------------------------------------------
_DIFF_EPILOG = """\
tolerances:
  --rtol R and --atol A apply to every variable; --rtol VAR=R and --atol VAR=A
  (repeatable) to variable VAR only, e.g. --rtol 1e-12 --rtol mean_wait=1e-9.

output:
  text (default): a summary per variable (cells compared, cells differing,
  max |A-B|, max relative difference |A-B|/max(|A|,|B|), tolerances), the
  coordinate values only one cube has ("policy: only in B: easy_small"), then
  at most --max-rows rows of differences, values with the digits that tell
  them apart. Where coordinates differ, the shared ones are still compared.
  --json: one JSON object on stdout: {"a", "b", "equal": bool, "rtol",
  "atol" (the global tolerances), "variables": {name: {"status", "cells",
  "differing", "max_abs", "max_rel", "rtol", "atol"}}, "only_in": {coord:
  {"A": [...], "B": [...]}}, "cells": [{"variable", "coords", "a", "b",
  "abs", "rel"}] (every differing cell), "structure": [{"kind", "name", "a",
  "b", "detail"}] (dimension, coordinate and variable differences), "attrs":
  [{"name", "a", "b"}] (with --attrs)}; NaN is null.

exit status:
  0  the cubes are equal within tolerance
  1  they differ (values, dimensions, coordinates, variables, or attributes
     with --attrs)
  2  error: a file is missing or unreadable, or a bad option (message on stderr)
"""


def _tolerance(text: str) -> tuple[str | None, float]:
    """``"1e-9"`` -> ``(None, 1e-9)``; ``"mean_wait=1e-9"`` -> ``("mean_wait", 1e-9)``.

    Examples
    --------
    >>> _tolerance("mean_wait=1e-9")
    ('mean_wait', 1e-09)
    """
    name, sep, value = text.rpartition("=")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a number or VARIABLE=NUMBER") from None
    if sep and not name:
        raise argparse.ArgumentTypeError(f"{text!r}: no variable name before '='")
    return (name or None), number


def register_diff(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib diff A.nc B.nc [--rtol [VAR=]R]... [--atol [VAR=]A]... [--attrs]
    [--max-rows N] [--json]``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_diff(p.add_subparsers(dest="command"))
    >>> p.parse_args(["diff", "a.nc", "b.nc", "--rtol", "1e-9", "--rtol", "w=0.1"]).rtol
    [(None, 1e-09), ('w', 0.1)]
    """
    p = subparsers.add_parser(
        "diff",
        help="compare two result cubes (netCDF) within a tolerance",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Compare two result cubes: dimensions, coordinates, variables and values.\n"
            "Values x, y are equal when |x-y| <= atol + rtol*max(|x|,|y|); NaN equals NaN.\n"
            "Provenance attributes (commit, config hash) are ignored."
        ),
        epilog=_DIFF_EPILOG,
    )
    p.add_argument("a", metavar="A.nc", help="first cube (e.g. the golden one)")
    p.add_argument("b", metavar="B.nc", help="second cube (e.g. the fresh one)")
    p.add_argument("--rtol", type=_tolerance, action="append", default=[], metavar="[VAR=]R",
                   help="relative tolerance, for every variable or for VAR (repeatable; default 0)")
    p.add_argument("--atol", type=_tolerance, action="append", default=[], metavar="[VAR=]A",
                   help="absolute tolerance, for every variable or for VAR (repeatable; default 0)")
    p.add_argument("--attrs", action="store_true",
                   help="also compare attributes (units, descriptions), except provenance")
    p.add_argument("--max-rows", type=int, default=50,
                   help="rows of the differences table to print (default 50; text output only)")
    p.add_argument("--json", action="store_true",
                   help="print the comparison as JSON (structure below) instead of text")
    p.set_defaults(func=_run_diff)


def _split_tolerances(pairs: list[tuple[str | None, float]]) -> tuple[float, dict[str, float]]:
    """The global tolerance (the last one given; 0 by default) and the per-variable ones."""
    default, per_variable = 0.0, {}
    for name, value in pairs:
        if name is None:
            default = value
        else:
            per_variable[name] = value
    return default, per_variable


def _diff_report(args, comparison, rtol: float, atol: float) -> str:
    from simlib.cube import format_comparison

    if args.json:
        import json

        doc = {"a": str(args.a), "b": str(args.b), "rtol": rtol, "atol": atol,
               **comparison.to_dict()}
        return json.dumps(doc, indent=2, allow_nan=False)
    tol = f"rtol={rtol:g}, atol={atol:g}"
    if comparison.equal:
        return f"{args.a} and {args.b} are equal within {tol}\n" + format_comparison(comparison)
    return (f"{args.a} (A) and {args.b} (B) differ ({tol}):\n"
            + format_comparison(comparison, max_rows=args.max_rows))


def _run_diff(args: argparse.Namespace) -> int:
    # Imported here so `simlib --version` stays fast (xarray is slow to import).
    from simlib.cube import CubeReadError, compare_cubes, read_cube

    (rtol, var_rtol), (atol, var_atol) = _split_tolerances(args.rtol), _split_tolerances(args.atol)
    if any(not (t >= 0) for t in (rtol, atol, *var_rtol.values(), *var_atol.values())):
        print("simlib diff: --rtol and --atol must be non-negative", file=sys.stderr)
        return EXIT_ERROR
    try:
        a = read_cube(args.a)
        b = read_cube(args.b)
    except CubeReadError as exc:
        print(f"simlib diff: {exc}", file=sys.stderr)
        return EXIT_ERROR
    unknown = sorted((set(var_rtol) | set(var_atol)) - {str(v) for v in (*a.data_vars, *b.data_vars)})
    if unknown:
        print(f"simlib diff: tolerance for {', '.join(map(repr, unknown))}, a variable neither "
              f"{args.a} nor {args.b} has", file=sys.stderr)
        return EXIT_ERROR
    try:
        comparison = compare_cubes(a, b, rtol=rtol, atol=atol, check_attrs=args.attrs,
                                   var_rtol=var_rtol, var_atol=var_atol)
    except Exception as exc:  # cubes read_cube accepts but diff cannot compare: still exit 2
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"simlib diff: cannot compare {args.a} and {args.b}: {reason}", file=sys.stderr)
        return EXIT_ERROR
    print(_diff_report(args, comparison, rtol, atol))
    return EXIT_OK if comparison.equal else EXIT_DIFFERENT


#: Subcommand providers in help order: ``"module:function"`` paths (imported
#: lazily) or, for this module's own commands, the functions themselves.
SUBCOMMAND_PROVIDERS: list = [
    register_diff,
    "simlib.commands:register",
]


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered subcommand.

    Examples
    --------
    >>> "diff" in build_parser().format_help()
    True
    """
    parser = argparse.ArgumentParser(
        prog="simlib",
        description="Deterministic simulation of parallel job scheduling (four-paper reproduction).",
    )
    parser.add_argument("--version", action="version", version=f"simlib {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for spec in SUBCOMMAND_PROVIDERS:
        _load_provider(spec)(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``simlib`` command line; returns the exit status.

    ``argv`` None means this process's own command line (``sys.argv``): the
    process is then expected to exit next (see the end of the function).

    Examples
    --------
    >>> main(["diff", "/nonexistent-a.nc", "/nonexistent-b.nc"])
    2
    """
    args = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        status = int(args.func(args))
    except KeyboardInterrupt:
        # Ctrl-C wherever it lands (imports, parsing, a subcommand without a
        # boundary of its own): the user asked to stop; a traceback would
        # read as a crash.
        command = getattr(args, "command", None)
        print(f"simlib{f' {command}' if command else ''}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if argv is None:
        # This process's own command line, which ends next: what is still
        # alive (a simulation's jobs and engine form reference cycles) is
        # left to the OS instead of the interpreter's final collection, which
        # would traverse and free it (~0.1 s after a 50,000-job run). Outputs
        # are closed by then (finalizers at exit are not guaranteed anyway),
        # and stdout and stderr are flushed at exit as usual.
        gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(main())
