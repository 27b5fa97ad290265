"""Helpers shared by the pipeline's entry-point scripts.

The scripts are thin: they read the ``snakemake`` object, call simlib, and
write outputs. This module gives them a log file per job and a few writers
(JSON, Markdown tables) whose formatting must not depend on optional
packages. Every output is written atomically (:mod:`simlib.io`): a script
that is killed, or outlives a killed Snakemake, never leaves a partial file.
"""
from __future__ import annotations

import contextlib
import json
import logging
import math
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
    t0 = time.perf_counter()
    logger.info("rule %s, wildcards %s", snakemake.rule, dict(snakemake.wildcards.items()))
    try:
        yield logger
    except BaseException:
        logger.exception("failed")
        raise
    else:
        logger.info("done in %.2f s", time.perf_counter() - t0)
    finally:
        logger.removeHandler(handler)
        handler.close()


def repo_root(snakemake) -> Path:
    """The repository: scripts live in ``<repo>/workflow/scripts``."""
    return Path(snakemake.scriptdir).resolve().parents[1]


def format_number(x, digits: int = 4) -> str:
    """Compact human-readable number for tables (``nan`` shown as ``-``)."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (hasattr(x, "dtype") and getattr(x.dtype, "kind", "") in "iu"):
        return str(int(x))
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(xf):
        return "-"
    if xf == int(xf) and abs(xf) < 1e15:
        return str(int(xf))
    return f"{xf:.{digits}g}"


def markdown_table(df, index: bool = True, digits: int = 4) -> str:
    """Render a DataFrame as a GitHub Markdown table (no extra dependency).

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"a": [1.5]}), index=False))
    | a |
    |---:|
    | 1.5 |
    """
    frame = df.reset_index() if index else df
    cols = [str(c) for c in frame.columns]
    numeric = [frame[c].dtype.kind in "iuf" for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for row in frame.itertuples(index=False):
        cells = [format_number(v, digits) if n else str(v) for v, n in zip(row, numeric)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
