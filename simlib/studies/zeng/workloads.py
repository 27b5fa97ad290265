"""Paper Z's workloads: Lublin jobs adjusted to 4-core nodes (Sections 4.8, 5.1).

The paper runs its schedulers on the Lublin–Feitelson model, whole-sample
(typeless) parameters, with the arrival parameter ``aarr`` (the paper's
α) set per workload (Table 5, :data:`ALPHA`: W1's "normal load" raises
lublin99's 10.2303 so that the load is about 5 % lower, the scheduler's
overhead; W2's "high load" has shorter inter-arrival times), on a
machine of M = 128 nodes of two dual-core CPUs. The Lublin model
sizes jobs for single-core nodes; Section 4.8 keeps every runtime and
scales the sizes with the job's self slowdowns (formula 7,
:func:`~simlib.studies.zeng.slowdowns.adjusted_size`), which also fixes
its processes per node (formula 8).

:func:`generate` makes one workload as a table, one row per job;
:func:`write_workload` / :func:`read_workload` store it (gzip CSV, rows
described by ``workload.schema.json`` beside this module, :data:`SCHEMA`);
:func:`table5` measures Table 5's quantities on it.

Where the paper is silent (the README's interpretations): submit times
(whole seconds) and runtimes (at least 1 s) are those of
:func:`simlib.workload.lublin.generate_lublin`; sizes are capped at ``ppn *
machine_nodes`` processes so that every job fits the machine (formula 7
exceeds it for a job of 128 nodes whose self slowdowns multiply to less
than 1, ``SL_sno`` below 1 being in Table 4); estimates are exact by
default (Section 3 assumes "roughly correct runtime estimation by the system").
"""
from __future__ import annotations

import gzip
import math
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.errors import TraceFormatError
from simlib.io import write_csv
from simlib.schema import load_schema
from simlib.workload.estimates import apply_estimates
from simlib.workload.lublin import LublinParams, generate_lublin

from .slowdowns import TABLE4, TABLE6, _seed_words, adjusted_size, ppn, self_slowdown_at
from .slowdowns import self_slowdowns as _self_slowdowns

__all__ = ["COLUMNS", "JOB_TYPES", "ALPHA", "CORES_PER_NODE", "ESTIMATE_STREAM", "SCHEMA",
           "generate", "check_workload", "write_workload", "read_workload", "table5"]

#: Columns of a workload table and file, in order (see :data:`SCHEMA`).
COLUMNS = ("job_id", "submit", "orig_size", "size", "runtime", "estimate", "sl_scr", "sl_sno",
           "ppn", "type")
#: Scojo-PECT's job types (Section 5.1), shortest first.
JOB_TYPES = ("short", "medium", "long")
#: Table 5's arrival parameter α (Lublin's ``aarr``) per workload.
ALPHA = {"W1": 10.33, "W2": 9.83}
#: Cores per node of the paper's machine (two dual-core CPUs).
CORES_PER_NODE = 4
#: Stream constant of random runtime estimates ("ZEN" + 3; see
#: :mod:`simlib.studies.zeng.slowdowns` for the others).
ESTIMATE_STREAM = 0x5A454E03
#: JSON schema of one row of a workload file.
SCHEMA = Path(__file__).resolve().with_name("workload.schema.json")

_INT = np.int64


# ---------------------------------------------------------------- Generation

def _estimates(workload, spec, seed) -> np.ndarray:
    """Runtime estimates of the Lublin jobs under the model ``spec`` names (the grid's
    schema allows ``exact`` and ``factor``)."""
    if spec == "exact" or spec.get("model") == "exact":
        # The runtime itself (at least 1 s), as the table's runtime column.
        return workload.jobs["run_time"].to_numpy().clip(min=1).astype(_INT)
    # Mu'alem & Feitelson's f-model: the runtime times U[1, f] (or f).
    ss = np.random.SeedSequence([*_seed_words(seed), ESTIMATE_STREAM])
    w = apply_estimates(workload, spec, seed=ss, where="zeng.estimates")
    return w.jobs["requested_time"].to_numpy().astype(_INT)


def generate(alpha: float, n_jobs: int, seed, *, machine_nodes: int = 128,
             max_sl: float = TABLE6["max_sl"], self_sl2: float = TABLE6["self_sl2"],
             table4: Mapping = TABLE4, rounding: str = "nearest", estimates="exact",
             arrival_clock: str = "exact", short_max: float = 600,
             medium_max: float = 10800) -> pd.DataFrame:
    """One adjusted Lublin workload of paper Z: a table, columns :data:`COLUMNS`, one
    row per job in submit order.

    The Lublin jobs are seeded with ``seed`` itself, so the plain Lublin
    workload of the same seed has the same submit times, sizes
    (``orig_size``) and runtimes; the self slowdowns (from ``table4``) and
    random estimates (``{model: factor, f, mode}``,
    :func:`simlib.workload.estimates.factor_estimates`) draw from streams of
    their own. Job types by runtime: ``short`` up to ``short_max``,
    ``medium`` up to ``medium_max`` (the scheduler checks that ``short_max <
    medium_max``), else ``long``."""
    _seed_words(seed)   # fail early, naming the seed
    params = LublinParams.typeless(aarr=alpha).for_machine(machine_nodes)
    lublin = generate_lublin(params, n_jobs=n_jobs, machine_size=machine_nodes,
                             arrival_clock=arrival_clock, seed=seed)
    jobs, n = lublin.jobs, len(lublin.jobs)
    orig = jobs["requested_procs"].to_numpy().astype(_INT)
    runtime = jobs["run_time"].to_numpy().clip(min=1).astype(_INT)
    estimate = _estimates(lublin, estimates, seed)
    sl_scr, sl_sno = _self_slowdowns(table4, n, seed)
    size = adjusted_size(orig, sl_scr, sl_sno, max_sl, self_sl2, rounding)
    # Formula 8 on the new size; the cap keeps every job within the machine.
    p = ppn(size, sl_scr, sl_sno, max_sl, self_sl2)
    size = np.minimum(size, p * machine_nodes).astype(_INT)
    return pd.DataFrame({
        "job_id": np.arange(1, n + 1, dtype=_INT), "submit": jobs["submit_time"].to_numpy().astype(float),
        "orig_size": orig, "size": size, "runtime": runtime, "estimate": estimate,
        "sl_scr": sl_scr, "sl_sno": sl_sno, "ppn": np.asarray(p, dtype=_INT),
        "type": pd.Series(np.where(runtime <= short_max, "short",
                                   np.where(runtime <= medium_max, "medium", "long")), dtype="str"),
    }, columns=list(COLUMNS))


# ---------------------------------------------------------------- Checking, writing, reading

def _first_problem(values: pd.Series, rule: Mapping) -> tuple[int, str] | None:
    """The first row breaking one column's schema rule, and why; None if every row keeps it.

    A row's reason is the first test it fails, from "is there a value" to "is it in range"."""
    numeric = values.dtype.kind in "iuf"
    text = None if numeric else values.astype(str).to_numpy().astype(str)
    missing = values.isna().to_numpy()
    tests = [(missing if numeric else missing | (np.char.strip(text) == ""), lambda i: "missing value")]
    if rule["type"] == "string":
        tests.append((~np.isin(text, rule["enum"]) if text is not None else np.ones(len(values), bool),
                      lambda i: f"{values.iloc[i]!r} is not one of {rule['enum']}"))
    else:
        num = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(num)
        tests.append((~ok, lambda i: f"{values.iloc[i]!r} is not a finite number"))
        if rule["type"] == "integer":
            tests.append((ok & (num != np.floor(np.where(ok, num, 0))),
                          lambda i: f"{values.iloc[i]!r} is not a whole number"))
        if "minimum" in rule:
            tests.append((ok & (num < rule["minimum"]), lambda i: f"{num[i]:g} is below {rule['minimum']}"))
        if "exclusiveMinimum" in rule:
            tests.append((ok & (num <= rule["exclusiveMinimum"]),
                          lambda i: f"{num[i]:g} must be > {rule['exclusiveMinimum']}"))
        if "enum" in rule:
            tests.append((ok & ~np.isin(num, rule["enum"]),
                          lambda i: f"{num[i]:g} is not one of {rule['enum']}"))
    bad = np.column_stack([mask for mask, _ in tests])
    rows = np.flatnonzero(bad.any(axis=1))
    return None if rows.size == 0 else (int(rows[0]), tests[int(np.argmax(bad[rows[0]]))][1](rows[0]))


def check_workload(frame: pd.DataFrame, where="<workload>") -> pd.DataFrame:
    """Check every row of a workload table (columns :data:`COLUMNS`); return it with
    int64, float64 and text columns.

    The per-column rules are read from :data:`SCHEMA` (type, minimum,
    exclusive minimum, allowed values); the rules between rows are coded
    here: ``job_id`` is 1, 2, ... in order, ``submit`` never decreases, a
    job of size 1 has ``ppn`` 1. Cells may be numbers or text (as read
    from a file). The first problem raises TraceFormatError, naming
    ``where``, the line in a file (row ``i``, counted from 0, is line
    ``i + 2``, after the header), the column and the reason."""
    header = list(frame.columns)
    for col in COLUMNS:
        if col not in header:
            raise TraceFormatError(where, 1, col, f"missing column; header is {header}")
    for col in header:
        if col not in COLUMNS:
            raise TraceFormatError(where, 1, col, f"unexpected column; expected {list(COLUMNS)}")
    if len(frame) == 0:
        raise TraceFormatError(where, None, None, "no jobs")
    frame = frame.reset_index(drop=True)
    rules = load_schema(SCHEMA)["properties"]
    _raise_first([(*p, col) for col in COLUMNS if (p := _first_problem(frame[col], rules[col]))],
                 where)
    typed = {"integer": lambda v: pd.to_numeric(v).astype(float).astype(_INT),
             "number": lambda v: pd.to_numeric(v).astype(float), "string": lambda v: v.astype("str")}
    out = pd.DataFrame({col: typed[rules[col]["type"]](frame[col]) for col in COLUMNS})
    # Rules between rows (a row schema cannot state them).
    checks = [
        ("job_id", out["job_id"].to_numpy() != np.arange(1, len(out) + 1),
         lambda i: f"job ids must be 1, 2, ... in file order: expected {i + 1}, got "
                   f"{out['job_id'].iloc[i]}"),
        ("submit", np.r_[False, np.diff(out["submit"].to_numpy()) < 0],
         lambda i: f"{out['submit'].iloc[i]:g} is before the previous job's "
                   f"{out['submit'].iloc[i - 1]:g}: jobs must be in submit order"),
        ("ppn", (out["size"].to_numpy() == 1) & (out["ppn"].to_numpy() != 1),
         lambda i: f"a job of size 1 has ppn 1 (formula 8), got {out['ppn'].iloc[i]}"),
    ]
    _raise_first([(i := int(np.argmax(bad)), why(i), col) for col, bad, why in checks if bad.any()],
                 where)
    return out


def _raise_first(problems: list, where) -> None:
    """TraceFormatError for the (row, reason, column) of the first row (the first column on a tie)."""
    if problems:
        i, reason, col = min(problems, key=lambda p: p[0])
        raise TraceFormatError(where, i + 2, col, reason)


def write_workload(df: pd.DataFrame, path) -> Path:
    """Write a workload table as gzip CSV, atomically, after checking it
    (:func:`check_workload`: nothing is written when it fails).

    The gzip header carries no time stamp, so equal tables give equal
    bytes. Floats are written in their shortest exact form, so
    :func:`read_workload` gives back an identical table."""
    table = check_workload(df, f"{path} (not written)")
    return write_csv(table, path, index=False, compression={"method": "gzip", "mtime": 0})


def read_workload(path) -> pd.DataFrame:
    """Read and check (:func:`check_workload`) a workload file of :func:`write_workload`,
    gzip-compressed or plain CSV (recognised by the gzip magic bytes).

    Raises FileNotFoundError, or TraceFormatError for a file that is not a
    readable CSV table or for its first bad row (file, line, column, reason)."""
    path = Path(path)
    with open(path, "rb") as f:
        zipped = f.read(2) == b"\x1f\x8b"
    try:
        # Text cells, no NA guessing and blank lines kept: every cell and
        # line number reaches check_workload as it is in the file.
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, skip_blank_lines=False,
                          compression="gzip" if zipped else None)
    except pd.errors.EmptyDataError:
        raise TraceFormatError(path, 1, None, "empty file (no header line)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError, zlib.error,
            gzip.BadGzipFile) as exc:
        raise TraceFormatError(path, None, None, f"not a readable CSV table: {exc}") from None
    return check_workload(raw, path)


# ---------------------------------------------------------------- Table 5
def _pct(part, whole) -> float:
    return float(100.0 * part / whole) if whole else math.nan


def _pow2(x: np.ndarray) -> np.ndarray:
    return (x >= 1) & ((x & (x - 1)) == 0)


def table5(df: pd.DataFrame, machine_nodes: int = 128) -> dict:
    """Table 5's quantities measured on one workload table (shares in percent).

    Shares of the jobs by type (Table 5: 64, 19.5, 16.5), of medium and long
    (54, 46), of the work by type (0.5, 26.0, 73.5; *work* is ``orig_size *
    runtime``, the Lublin job's node-seconds, which formula 7 meant to
    keep); of the Lublin (``*_orig``) and adjusted (``*_adjusted``) sizes,
    serial jobs (24; formula 7 keeps them serial, so both agree) and powers
    of two (1 included: 75; >= 2 of all jobs, and of the parallel ones);
    jobs per formula-8 PPN. ``load_*``: our readings of the printed "Load"
    (10.6 for W1, 13.0 for W2, no unit), over the submit span ``span_s``,
    with M = ``machine_nodes`` and a job of PPN ``p`` running for ``runtime
    * self_slowdown_at(p)``: jobs per hour, node load of the Lublin jobs on M
    single-core nodes, node and core loads under space sharing, and
    process-seconds without slowdown over the cores."""
    n = len(df)
    kind = df["type"].astype(str).to_numpy()
    orig = df["orig_size"].to_numpy().astype(_INT)
    size = df["size"].to_numpy().astype(_INT)
    p = df["ppn"].to_numpy().astype(_INT)
    run = df["runtime"].to_numpy().astype(float)
    submit = df["submit"].to_numpy().astype(float)
    slow = np.asarray(self_slowdown_at(p, df["sl_scr"].to_numpy(float),
                                       df["sl_sno"].to_numpy(float)), dtype=float)
    work = orig * run
    counts = {t: int((kind == t).sum()) for t in JOB_TYPES}
    ml = counts["medium"] + counts["long"]
    span = float(submit.max() - submit.min()) if n else 0.0
    M = int(machine_nodes)

    def per_span(x):
        return float(x / span) if span > 0 else math.nan

    out = {"n_jobs": n, "span_s": span}
    out.update({f"{t}_pct": _pct(counts[t], n) for t in JOB_TYPES})
    out["medium_of_medium_long_pct"] = _pct(counts["medium"], ml)
    out["long_of_medium_long_pct"] = _pct(counts["long"], ml)
    out.update({f"work_{t}_pct": _pct(work[kind == t].sum(), work.sum()) for t in JOB_TYPES})
    for label, s in (("orig", orig), ("adjusted", size)):
        out[f"serial_pct_{label}"] = _pct((s == 1).sum(), n)
        out[f"pow2_pct_{label}"] = _pct(_pow2(s).sum(), n)
        out[f"pow2_parallel_pct_{label}"] = _pct((_pow2(s) & (s > 1)).sum(), n)
        out[f"pow2_among_parallel_pct_{label}"] = _pct((_pow2(s) & (s > 1)).sum(), (s > 1).sum())
    out.update({f"ppn{k}_pct": _pct((p == k).sum(), n) for k in (1, 2, 4)})
    out["load_jobs_per_hour"] = per_span(3600.0 * (n - 1))
    out["load_node_lublin"] = per_span(work.sum() / M)
    nodes = -(-size // p)
    out["load_node_ssp"] = per_span((nodes * run * slow).sum() / M)
    out["load_core_ssp"] = per_span((size * run * slow).sum() / (M * CORES_PER_NODE))
    out["load_processes"] = per_span((size * run).sum() / (M * CORES_PER_NODE))
    return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}


def workload_step(ctx) -> None:
    """Step ``zeng_workload``: one (workload, seed) file and its Table 5 numbers (JSON)."""
    from simlib.io import write_json
    p, seed = dict(ctx.params), int(ctx.wildcards["seed"])
    alpha, jobs = p.pop("alpha"), p.pop("jobs")
    frame = generate(alpha, int(jobs), seed, **p)
    write_workload(frame, ctx.output.workload)
    write_json({"workload": ctx.wildcards["workload"], "seed": seed, "alpha": alpha,
                "jobs": int(jobs), **table5(frame, p["machine_nodes"])}, ctx.output.info)
    ctx.log.info("%s seed %d: %d jobs", ctx.wildcards["workload"], seed, len(frame))
