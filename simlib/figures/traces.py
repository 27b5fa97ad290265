"""The trace characterization table: what the studies simulate, per trace.

:func:`characterize_traces` is the pipeline's ``characterize_traces`` rule
as a function from files to files: it stacks the characterizations that
:func:`simlib.workload.prepare.prepare_trace` records (the whole cleaned
trace and the part a scale simulates) into one CSV and one Markdown table
(``paper_figures/traces/characterization.{csv,md}``).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from simlib.io import write_csv, write_text
from simlib.markdown import markdown_table
from simlib.workload.prepare import characterization_table

__all__ = ["characterize_traces"]


def characterize_traces(infos: Mapping[str, object], *, scale: str, csv, md,
                        log=None) -> pd.DataFrame:
    """The trace characterization table (rule ``characterize_traces``).

    Two rows per trace, from the ``info`` files of
    :func:`~simlib.workload.prepare.prepare_trace`: the whole cleaned trace
    and the part simulated at the scale (before load rescaling). Written as
    CSV (one row per (trace, part)) and as Markdown (one column per row,
    with a paragraph saying what the quantities are).

    Parameters
    ----------
    infos : mapping of str to path
        Trace name -> its ``prepare_trace`` info file, in table order.
    scale : str
        The scale, named in the Markdown.
    csv, md : path
        Outputs.
    log : logging.Logger, optional
        Gets the number of rows.

    Returns
    -------
    pandas.DataFrame
        The CSV's table: columns ``trace``, ``part``, then
        :data:`~simlib.workload.prepare.CHARACTERIZATION_COLUMNS`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from simlib.workload.prepare import prepare_trace
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.swf").write_text("1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\\n")
    >>> _ = prepare_trace(d / "t.swf", 8, trace="T", scale="smoke", swf=d / "T.swf",
    ...                   cleaning_log=d / "T.txt", info=d / "T.json")
    >>> table = characterize_traces({"T": d / "T.json"}, scale="smoke", csv=d / "c.csv",
    ...                             md=d / "c.md")
    >>> table[["trace", "part", "jobs"]].values.tolist()
    [['T', 'whole cleaned trace', 1], ['T', 'smoke subset', 1]]
    """
    rows = {}
    for trace, path in infos.items():
        facts = json.loads(Path(path).read_text())
        for part in ("cleaned", "subset"):
            # JSON wrote NaN as null; the table shows it as missing again.
            row = {k: (float("nan") if v is None else v)
                   for k, v in facts["characterization"][part].items()}
            row["trace"] = trace
            row["part"] = "whole cleaned trace" if part == "cleaned" else f"{facts['scale']} subset"
            rows[f"{trace} ({part})"] = row
    table = characterization_table(rows)
    # Identify rows by (trace, part) first; the workload label is the index.
    front = ["trace", "part"]
    table = table[front + [c for c in table.columns if c not in front]]
    write_csv(table, csv, lineterminator="\n")
    text = [
        "# Trace characterization",
        "",
        f"Scale: **{scale}**. Per trace: the whole cleaned trace, and the subset simulated at "
        f"this scale (before load rescaling). Offered load = sum(size x runtime) / "
        f"(machine CPUs x submit span); cpu_util_mean = mean of field 6 / field 4 where both are "
        f"present; req_cpus_ratio = mean requested CPUs / machine CPUs; runtimes in seconds.",
        "",
        markdown_table(table.drop(columns=["trace", "part"]).T.rename_axis("quantity"),
                       index=True),
    ]
    write_text(md, "\n".join(text), encoding="utf-8")
    if log is not None:
        log.info("wrote %d rows", len(table))
    return table
