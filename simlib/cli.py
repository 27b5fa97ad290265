"""The ``simlib`` command line.

Subcommands are contributed by modules: each provider is a function
``register(subparsers)`` that adds its parser with ``subparsers.add_parser``
and sets ``func=<callable(args) -> int>`` as a default. To add a subcommand,
write such a function in your module and append its dotted path to
:data:`SUBCOMMAND_PROVIDERS` (one line). Providers are imported lazily, so a
broken optional module cannot take ``simlib diff`` down with it.

Exit status: 0 success, 1 "differences found" style negative results,
2 usage errors and unreadable input (argparse's convention).

Run as ``simlib ...`` (console script) or ``python -m simlib.cli ...``.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys
from typing import Callable, Sequence

from simlib import __version__

__all__ = ["main", "build_parser", "register_diff", "SUBCOMMAND_PROVIDERS"]

EXIT_OK, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


def _load_provider(spec) -> Callable[[argparse._SubParsersAction], None]:
    if callable(spec):
        return spec
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)


# --------------------------------------------------------------------------
# simlib diff
# --------------------------------------------------------------------------
def register_diff(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib diff A.nc B.nc [--rtol R] [--atol A]``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_diff(p.add_subparsers(dest="command"))
    >>> p.parse_args(["diff", "a.nc", "b.nc", "--rtol", "1e-9"]).rtol
    1e-09
    """
    p = subparsers.add_parser(
        "diff",
        help="compare two result cubes (netCDF) within a tolerance",
        description=(
            "Compare two result cubes: dimensions, coordinates, variables and values. "
            "Values x, y are equal when |x-y| <= atol + rtol*max(|x|,|y|); NaN equals NaN. "
            "Provenance attributes (commit, config hash) are ignored. "
            "Exit 0: equal within tolerance; 1: differences (table on stdout); "
            "2: a file is missing or unreadable (message on stderr)."
        ),
    )
    p.add_argument("a", metavar="A.nc", help="first cube (e.g. the golden one)")
    p.add_argument("b", metavar="B.nc", help="second cube (e.g. the fresh one)")
    p.add_argument("--rtol", type=float, default=0.0, help="relative tolerance (default 0)")
    p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    p.add_argument("--attrs", action="store_true",
                   help="also compare attributes (units, descriptions), except provenance")
    p.add_argument("--max-rows", type=int, default=50, help="rows of the table to print (default 50)")
    p.set_defaults(func=_run_diff)


def _run_diff(args: argparse.Namespace) -> int:
    # Imported here so `simlib --version` stays fast (xarray is slow to import).
    from simlib.cube import CubeReadError, diff_cubes, format_differences, read_cube

    if args.rtol < 0 or args.atol < 0:
        print("simlib diff: --rtol and --atol must be non-negative", file=sys.stderr)
        return EXIT_ERROR
    try:
        a = read_cube(args.a)
        b = read_cube(args.b)
    except CubeReadError as exc:
        print(f"simlib diff: {exc}", file=sys.stderr)
        return EXIT_ERROR
    try:
        diffs = diff_cubes(a, b, rtol=args.rtol, atol=args.atol, check_attrs=args.attrs)
    except Exception as exc:  # cubes read_cube accepts but diff cannot compare: still exit 2
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"simlib diff: cannot compare {args.a} and {args.b}: {reason}", file=sys.stderr)
        return EXIT_ERROR
    if not diffs:
        print(f"{args.a} and {args.b} are equal within rtol={args.rtol:g}, atol={args.atol:g}")
        return EXIT_OK
    print(f"{args.a} (A) and {args.b} (B) differ (rtol={args.rtol:g}, atol={args.atol:g}):")
    print(format_differences(diffs, max_rows=args.max_rows))
    return EXIT_DIFFERENT


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
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    status = int(args.func(args))
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
