"""Helpers shared by the pipeline's entry-point scripts.

The scripts are thin: they read the ``snakemake`` object, call simlib, and
write outputs. This module gives them a log file per job and re-exports the
JSON writer of :mod:`simlib.io` (Markdown tables come from the one
renderer, :mod:`simlib.markdown`). Every output is written atomically
(:mod:`simlib.io`): a script that is killed, or outlives a killed
Snakemake, never leaves a partial file.
"""
from __future__ import annotations

import contextlib
import logging
import resource
import time
from pathlib import Path

from simlib.io import write_json, write_text  # noqa: F401 (write_json: for the scripts)


@contextlib.contextmanager
def job_log(snakemake):
    """Log to the rule's ``log:`` file; log and re-raise any exception.

    The traceback lands in the log file (kept by Snakemake on failure) and,
    re-raised, in Snakemake's own error report.

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
