"""Helpers shared by the pipeline's entry-point scripts.

The scripts are thin: they read the ``snakemake`` object, call simlib, and
write outputs. This module gives them a log file per job and re-exports the
JSON writer of :mod:`simlib.io` (Markdown tables come from the one
renderer, :mod:`simlib.markdown`). Every output is written atomically
(:mod:`simlib.io`): a script that is killed, or outlives a killed
Snakemake, never leaves a partial file.

A step that fails on bad input or is interrupted ends with one line on
stderr and no Python traceback (:func:`job_log`); Snakemake's own error
report follows, naming the rule and its log file.
"""
from __future__ import annotations

import contextlib
import logging
import resource
import sys
import time
from pathlib import Path

from simlib.errors import SimlibError
from simlib.io import write_json, write_text  # noqa: F401 (write_json: for the scripts)

#: Exit status of a step that failed on bad input (a SimlibError), as simlib's CLI.
EXIT_ERROR = 2
#: Exit status of a step stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


def _one_line(exc: BaseException) -> str:
    return " ".join((str(exc) or type(exc).__name__).split())


def _quiet_interrupt_hook(kind, value, tb, _previous=sys.excepthook):
    # Ctrl-C outside job_log (a script's imports): the one line, not a
    # traceback. The interpreter then ends itself by SIGINT, which shells
    # report as 130.
    if issubclass(kind, KeyboardInterrupt):
        # Snakemake defines `snakemake` before the script's own code runs.
        rule = getattr(getattr(sys.modules.get("__main__"), "snakemake", None), "rule", None)
        print(f"{rule}: interrupted" if rule else "interrupted", file=sys.stderr, flush=True)
        return
    _previous(kind, value, tb)


sys.excepthook = _quiet_interrupt_hook


@contextlib.contextmanager
def job_log(snakemake):
    """Log to the rule's ``log:`` file; end a failed step in one line.

    Bad input (a :class:`~simlib.errors.SimlibError`: a config value, a
    trace, a download that failed) exits with status 2 and Ctrl-C with 130,
    each after one line on stderr, ``<rule>: <reason>`` or ``<rule>:
    interrupted``, and no traceback: the user's problem is the input or
    the interruption, not our code. The log file (kept by Snakemake on
    failure) gets the same line. Any other exception -- a bug -- is logged
    with its traceback and re-raised, into Snakemake's error report.

    Examples
    --------
    >>> with job_log(snakemake) as log:          # doctest: +SKIP
    ...     log.info("reading %s", snakemake.input[0])
    """
    path = Path(snakemake.log[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger(f"pipeline.{snakemake.rule}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = logging.FileHandler(path, mode="w", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    t0, cpu0 = time.perf_counter(), time.process_time()
    logger.info("rule %s, wildcards %s", snakemake.rule, dict(snakemake.wildcards.items()))
    try:
        yield logger
    except KeyboardInterrupt:
        logger.error("interrupted")
        print(f"{snakemake.rule}: interrupted", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except SimlibError as exc:
        # The reason alone, in the log too: the profile shows failed logs
        # (show-failed-logs), and a traceback there would read as a crash.
        logger.error("failed: %s: %s", type(exc).__name__, _one_line(exc))
        print(f"{snakemake.rule}: {_one_line(exc)}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_ERROR) from None
    except BaseException:
        logger.exception("failed")
        raise
    else:
        # benchmarks/bench_pipeline.py sums these lines per study.
        cpu = time.process_time()  # this process's CPU time, start-up and imports included
        # Paper D's SimGrid runs happen in forked children, which process_time
        # does not see; every child has been waited for by now.
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
        logger.info("done in %.2f s (CPU %.2f s, %.2f s with start-up, %.2f s in child processes)",
                    time.perf_counter() - t0, cpu - cpu0, cpu, child.ru_utime + child.ru_stime)
    finally:
        logger.removeHandler(handler)
        handler.close()


def repo_root(snakemake) -> Path:
    """The repository: scripts live in ``<repo>/workflow/scripts``."""
    return Path(snakemake.scriptdir).resolve().parents[1]
