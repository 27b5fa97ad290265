"""Cloud Workload Format (CWF) of Kumar, Shae & Jamjoom (paper K, Fig. 4).

CWF is SWF (:mod:`simlib.workload.swf`) with three more fields per line:

====  =================  ====================================================
 19   requested start    dedicated job: the fixed start time it asks for (s);
                         ``-1`` for a batch job
 20   request type       ``S`` job submission; ``ET`` time extension, ``EP``
                         processors extension, ``RT`` time reduction, ``RP``
                         processors reduction (the paper's own expansions)
 21   amount             of an extension/reduction: seconds (ET, RT) or
                         processors (EP, RP); ``-1`` on an ``S`` line
====  =================  ====================================================

The paper says a request of type ET/EP/RT/RP is "an extension/reduction
request for a previously submitted job (with the same ID)".  So an elastic
control command (ECC) is a line of its own that repeats the job's id (field
1), carries the time the command is issued in the submit-time field (2),
its type (20) and amount (21), and ``-1`` everywhere else.  The full
format table, with these conventions, is ``docs/cwf_format.md``.

Validation rules (each violation is a :class:`~simlib.errors.TraceFormatError`
naming file, line, field and reason)
---------------------------------------------------------------------------
Per line
    1. exactly 21 whitespace-separated fields;
    2. fields 1-18 follow the SWF rules (numbers, integral where SWF is,
       ``-1`` the only negative time or size);
    3. ``requested_start`` is an integer, ``-1`` or ``>= 0``, at most
       2**53 (like the SWF times, :data:`~simlib.workload.swf.MAX_EXACT_TIME`);
    4. ``request_type`` is one of :data:`REQUEST_TYPES` (case-sensitive);
    5. ``amount`` is an integer, ``-1`` or ``>= 0``, at most 2**53;
    6. an ``S`` line has ``amount = -1`` and ``requested_start`` either
       ``-1`` (batch) or ``>= submit_time`` (dedicated: it cannot ask to
       start before it is submitted);
    7. a command line has ``amount >= 1``, an issue time
       (``submit_time >= 0``), ``requested_start = -1`` and ``-1`` in all of
       fields 3-18 (a command carries only id, time, type and amount).
Across lines
    8. header lines (``;``) only before the first job line;
    9. submit times do not decrease (``unsorted="reject"``), or the lines are
       sorted stably by submit time (``unsorted="sort"``) before 10-11;
    10. the ids of ``S`` lines are unique;
    11. a command names the id of an ``S`` line that comes earlier (in the
        final order): it refers to a *previously submitted* job.  A command
        at the same second as its job's submission is allowed if its line
        comes after the job's;
    12. there is at least one job line (unless ``allow_empty=True``).
Line ends, byte order mark and blank lines are handled as in SWF.

Data model
----------
:func:`read_cwf` returns a :class:`~simlib.workload.swf.Workload` whose
``jobs`` has the columns :data:`CWF_FIELDS` (the 18 SWF ones, then
``requested_start`` int64, ``request_type`` string, ``amount`` int64), one
row per line, commands included.  :func:`split_commands` separates it into
the jobs (SWF columns + ``requested_start``, what
:func:`simlib.runner.jobs_from_workload` reads) and a list of
:class:`ElasticCommand`; :func:`merge_commands` is its inverse.  The exact
round trip of SWF holds: ``read_cwf(write_cwf(w))`` gives ``w.jobs`` and
``w.header`` back exactly.
"""
from __future__ import annotations

import operator
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simlib.errors import TraceFormatError
from simlib.workload import swf as _swf
from simlib.workload.swf import SWF_DTYPES, SWF_FIELDS, Workload

__all__ = [
    "CWF_EXTRA_FIELDS", "CWF_FIELDS", "CWF_DTYPES", "SUBMISSION", "COMMAND_KINDS",
    "REQUEST_TYPES", "REQUEST_TYPE_NAMES", "TIME_KINDS", "PROCESSOR_KINDS",
    "ElasticCommand", "read_cwf", "write_cwf", "split_commands", "merge_commands",
    "command_events",
]

#: The three fields CWF adds to SWF (fields 19, 20, 21).
CWF_EXTRA_FIELDS: tuple[str, ...] = ("requested_start", "request_type", "amount")
#: All 21 CWF fields, in file order.
CWF_FIELDS: tuple[str, ...] = SWF_FIELDS + CWF_EXTRA_FIELDS

#: Request type of an ordinary job submission.
SUBMISSION = "S"
#: Request types of elastic control commands.
COMMAND_KINDS: tuple[str, ...] = ("ET", "EP", "RT", "RP")
#: Every value field 20 may take.
REQUEST_TYPES: tuple[str, ...] = (SUBMISSION,) + COMMAND_KINDS
#: The paper's expansion of each request type (Fig. 4).
REQUEST_TYPE_NAMES: dict[str, str] = {
    "S": "usual job submission",
    "ET": "time extension",
    "EP": "processors extension",
    "RT": "time reduction",
    "RP": "processors reduction",
}
#: Commands whose amount is seconds of requested (and actual) runtime.
TIME_KINDS: tuple[str, ...] = ("ET", "RT")
#: Commands whose amount is processors (parsed and kept; paper K does not
#: generate or schedule them: resource elasticity is its future work).
PROCESSOR_KINDS: tuple[str, ...] = ("EP", "RP")

_STR_DTYPE = pd.Series([], dtype=str).dtype  # pandas' default string dtype
#: Column dtypes of a CWF ``Workload.jobs``.
CWF_DTYPES: dict = {**SWF_DTYPES, "requested_start": np.dtype(np.int64),
                    "request_type": _STR_DTYPE, "amount": np.dtype(np.int64)}

_N_FIELDS = len(CWF_FIELDS)
_N_SWF = len(SWF_FIELDS)
_TYPE_COL = CWF_FIELDS.index("request_type")
_SUBMIT = SWF_FIELDS.index("submit_time")
# Fields a command line must leave at -1 (3..18, 0-based 2..17, and 19).
_COMMAND_BLANK = SWF_FIELDS[2:] + ("requested_start",)
_TYPE_SET = frozenset(REQUEST_TYPES)
#: The kernel of the fast path (through :func:`simlib.workload.swf._number_table`).
COMPILED_KERNELS = ("_trace_kernel",)
_TYPE_TOKEN = re.compile(rb"(?<!\S)(?:S|ET|EP|RT|RP)(?!\S)")


# --------------------------------------------------------------------------
# Elastic control commands
# --------------------------------------------------------------------------


def _as_int(value, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be an integer, got {value!r}") from None


@dataclass(frozen=True)
class ElasticCommand:
    """One elastic control command (ECC): a CWF line of type ET/EP/RT/RP.

    What each kind asks for (paper K, Sections III-C and IV-C: an ECC is the
    job "requesting changes to its own execution time requirements", and it
    changes "kill-by time and thus the actual job execution time"):

    ``ET`` (time extension)
        The job's requested time (user estimate, hence its kill-by time
        ``start + requested``) *and* its actual runtime grow by ``amount``
        seconds.
    ``RT`` (time reduction)
        Both shrink by ``amount`` seconds.  A running job whose reduced
        runtime has already elapsed ends at the command's time (never
        earlier).
    ``EP`` / ``RP`` (processors extension / reduction)
        ``amount`` processors more / fewer.  Kept for completeness of the
        format; paper K neither generates nor schedules them.

    A command may target a queued or a running job, batch or dedicated.
    One for a job that has already finished does nothing.

    Attributes
    ----------
    time : int
        Issue time in seconds (CWF field 2).
    job_id : int
        Id of the job it changes (CWF field 1, same as the job's ``S`` line).
    kind : {"ET", "EP", "RT", "RP"}
    amount : int
        ``>= 1``; seconds for ET/RT, processors for EP/RP.

    Examples
    --------
    >>> c = ElasticCommand(time=120, job_id=7, kind="RT", amount=30)
    >>> c.time_delta, c.procs_delta
    (-30, 0)
    """

    time: int
    job_id: int
    kind: str
    amount: int

    def __post_init__(self):
        object.__setattr__(self, "time", _as_int(self.time, "ElasticCommand.time"))
        object.__setattr__(self, "job_id", _as_int(self.job_id, "ElasticCommand.job_id"))
        object.__setattr__(self, "amount", _as_int(self.amount, "ElasticCommand.amount"))
        if self.kind not in COMMAND_KINDS:
            raise ValueError(f"ElasticCommand.kind must be one of {COMMAND_KINDS}, "
                             f"got {self.kind!r}")
        if self.amount < 1:
            raise ValueError(f"ElasticCommand.amount must be >= 1, got {self.amount}")
        if self.time < 0:
            raise ValueError(f"ElasticCommand.time must be >= 0, got {self.time}")

    @property
    def time_delta(self) -> int:
        """Signed change of requested and actual runtime, seconds.

        Examples
        --------
        >>> ElasticCommand(0, 1, "ET", 60).time_delta
        60
        """
        return {"ET": self.amount, "RT": -self.amount}.get(self.kind, 0)

    @property
    def procs_delta(self) -> int:
        """Signed change of processors (EP/RP only).

        Examples
        --------
        >>> ElasticCommand(0, 1, "RP", 32).procs_delta
        -32
        """
        return {"EP": self.amount, "RP": -self.amount}.get(self.kind, 0)


def command_events(commands: Iterable[ElasticCommand]) -> list[tuple[float, ElasticCommand]]:
    """``(time, command)`` pairs for ``simlib.runner.simulate(commands=...)``.

    Examples
    --------
    >>> command_events([ElasticCommand(5, 1, "ET", 10)])
    [(5.0, ElasticCommand(time=5, job_id=1, kind='ET', amount=10))]
    """
    return [(float(c.time), c) for c in commands]


# --------------------------------------------------------------------------
# Shared validation of parsed columns (writer and the reader's fast path)
# --------------------------------------------------------------------------


def _violations(cols: dict, check_order: bool,
                cross: bool = True) -> tuple[int, str | None, str] | None:
    """First (row, field, reason) breaking rules 3-11, or None.

    ``cols`` maps every CWF field to a numpy array (``request_type`` of
    str).  Rules 1-2 are the parsers' (or :func:`swf._column_values`') job;
    ``check_order`` adds rule 9, ``cross`` rules 10-11.
    """
    n = len(cols["job_id"])
    if n == 0:
        return None
    types = cols["request_type"]
    submit = cols["submit_time"]
    start = cols["requested_start"]
    amount = cols["amount"]
    found: list[tuple[int, int, str | None, str]] = []  # (row, rule, field, reason)

    def first(mask, rule, field, reason):
        idx = np.flatnonzero(mask)
        if idx.size:
            r = int(idx[0])
            found.append((r, rule, field, reason(r)))

    valid_type = np.fromiter((isinstance(t, str) and t in _TYPE_SET for t in types),
                             dtype=bool, count=n)
    first((start < 0) & (start != -1), 3, "requested_start",
          lambda r: f"negative value {start[r]}: only -1 (batch job) may be negative")
    first(~valid_type, 4, "request_type",
          lambda r: f"unknown request type {types[r]!r}: expected one of "
                    f"{', '.join(REQUEST_TYPES)}")
    first((amount < 0) & (amount != -1), 5, "amount",
          lambda r: f"negative value {amount[r]}: only -1 (none) may be negative")
    is_s = types == SUBMISSION
    is_cmd = valid_type & ~is_s
    first(is_s & (amount != -1), 6, "amount",
          lambda r: f"a job submission (S) has no amount: write -1, not {amount[r]}")
    first(is_s & (start != -1) & (start < submit), 6, "requested_start",
          lambda r: f"requested start time {start[r]} is before the job's submit time "
                    f"{submit[r]} (use -1 for a batch job)")
    first(is_cmd & (amount < 1), 7, "amount",
          lambda r: f"a {types[r]} command needs an amount >= 1, got {amount[r]}")
    first(is_cmd & (submit < 0), 7, "submit_time",
          lambda r: f"a {types[r]} command needs its issue time in the submit-time "
                    f"field (>= 0), got {submit[r]}")
    for name in _COMMAND_BLANK:
        first(is_cmd & (cols[name] != -1), 7, name,
              lambda r, name=name: f"a {types[r]} command line carries only job id, "
                                   f"submit time, request type and amount: {name} must be "
                                   f"-1, got {cols[name][r]}")
    if check_order:
        back = np.flatnonzero(submit[1:] < submit[:-1])
        if back.size:
            r = int(back[0]) + 1
            found.append((r, 9, "submit_time",
                          f"submit time {submit[r]} is earlier than {submit[r - 1]} "
                          f"on the previous job line: lines must be in submit order"))
    if cross:
        _cross_violations(cols, is_s, is_cmd, found)
    if not found:
        return None
    row, _, field, reason = min(found, key=lambda f: (f[0], f[1]))
    return row, field, reason


def _cross_violations(cols, is_s, is_cmd, found) -> None:
    """Rules 10-11, vectorised; appends to ``found``."""
    ids = cols["job_id"]
    types = cols["request_type"]
    s_rows = np.flatnonzero(is_s)
    if s_rows.size:
        s_ids = ids[s_rows]
        dup = pd.Series(s_ids).duplicated().to_numpy()
        if dup.any():
            r = int(s_rows[np.flatnonzero(dup)[0]])
            found.append((r, 10, "job_id", f"job id {ids[r]} is submitted (S) twice"))
        uniq, first_row = np.unique(s_ids, return_index=True)
        first_row = s_rows[first_row]
    else:
        uniq, first_row = np.zeros(0, ids.dtype), np.zeros(0, np.int64)
    c_rows = np.flatnonzero(is_cmd)
    if c_rows.size:
        pos = np.searchsorted(uniq, ids[c_rows])
        known = pos < len(uniq)
        known[known] = uniq[pos[known]] == ids[c_rows][known]
        ok = known.copy()
        ok[known] = first_row[pos[known]] < c_rows[known]
        if not ok.all():
            r = int(c_rows[np.flatnonzero(~ok)[0]])
            found.append((r, 11, "job_id",
                          f"{types[r]} command for job {ids[r]}, which has no job "
                          f"submission (S) line before it"))


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------


def read_cwf(path: str | os.PathLike, *, unsorted: str = "reject",
             allow_empty: bool = False) -> Workload:
    """Read a CWF file, plain or gzip-compressed.

    Reads as :func:`simlib.workload.swf.read_swf` does (same parameters), the
    21 CWF fields and rules instead of SWF's.

    Parameters
    ----------
    path : str or path-like
        The file (gzip detected by its magic bytes).
    unsorted : {"reject", "sort"}
        Decreasing submit times: error naming the line, or sort all lines
        (jobs and commands) stably by submit time.
    allow_empty : bool, default False
        As in :func:`~simlib.workload.swf.read_swf`.

    Returns
    -------
    Workload
        ``jobs`` with the columns :data:`CWF_FIELDS` (dtypes
        :data:`CWF_DTYPES`, RangeIndex), one row per line (commands
        included); header lines; ``path``.

    Raises
    ------
    TraceFormatError
        With path, 1-based line, field and reason, for any of the rules in
        the module docstring; with path only for a directory, corrupt gzip
        data or a file without job lines.

    Examples
    --------
    >>> w = read_cwf("workload.cwf")                     # doctest: +SKIP
    >>> jobs, commands = split_commands(w)               # doctest: +SKIP
    """
    path_str = str(path)
    header, columns = _swf._read_columns(path_str, unsorted, allow_empty, _parse_body_fast,
                                         _parse_lines)
    return Workload(jobs=_frame(columns), header=header, path=path_str)


def _frame(columns: dict) -> pd.DataFrame:
    jobs = pd.DataFrame({name: columns[name] for name in CWF_FIELDS}, columns=list(CWF_FIELDS))
    jobs["request_type"] = jobs["request_type"].astype(_STR_DTYPE)
    return jobs


def _empty_columns() -> dict:
    cols = {name: np.empty(0, SWF_DTYPES[name]) for name in SWF_FIELDS}
    cols["requested_start"] = np.empty(0, np.int64)
    cols["request_type"] = np.empty(0, dtype=object)
    cols["amount"] = np.empty(0, np.int64)
    return cols


def _sort_columns(cols: dict) -> dict:
    order = np.argsort(cols["submit_time"], kind="stable")
    if np.any(order != np.arange(len(order))):
        cols = {k: v[order] for k, v in cols.items()}
    return cols


def _parse_body_fast(body: bytes, unsorted: str) -> dict | None:
    """Vectorised parse of the job lines; ``None`` if anything is off."""
    if not body.strip():
        return _empty_columns()
    # Letters may only be whole request-type tokens; any other byte outside
    # the SWF alphabet (exponents, nan, ';') goes to the line-by-line path.
    if _TYPE_TOKEN.sub(b"", body).translate(None, _swf._BODY_BYTES):
        return None
    parsed = _swf._number_table(body, _N_FIELDS, _TYPE_COL)
    if parsed is None:
        return None
    values, texts = parsed
    types = np.array(texts, dtype=object)
    numeric = np.delete(values, _TYPE_COL, axis=1)
    if not np.isfinite(numeric).all():
        return None
    swf_part = numeric[:, :_N_SWF]
    ints = np.concatenate([swf_part[:, ~_swf._IS_FLOAT], numeric[:, _N_SWF:]], axis=1)
    if (np.abs(ints) >= _swf._EXACT_INT_LIMIT).any() or (ints != np.trunc(ints)).any():
        return None
    nonneg = swf_part[:, _swf._IS_NONNEG]
    if ((nonneg < 0) & (nonneg != -1)).any():
        return None
    cols = {name: swf_part[:, j].astype(SWF_DTYPES[name]) for j, name in enumerate(SWF_FIELDS)}
    cols["requested_start"] = numeric[:, _N_SWF].astype(np.int64)
    cols["request_type"] = types
    cols["amount"] = numeric[:, _N_SWF + 1].astype(np.int64)
    if unsorted == "sort":
        cols = _sort_columns(cols)
    if _violations(cols, check_order=unsorted == "reject") is not None:
        return None
    return cols


def _parse_extra(tokens: list[bytes], path: str, lineno: int) -> tuple[int, str, int]:
    start = _swf._parse_number(tokens[_N_SWF], "requested_start", False, True, path, lineno,
                               time=True)
    kind = tokens[_TYPE_COL].decode("utf-8", "backslashreplace")
    if kind not in REQUEST_TYPES:
        raise TraceFormatError(path, lineno, "request_type",
                               f"unknown request type {kind!r}: expected one of "
                               f"{', '.join(REQUEST_TYPES)}")
    amount = _swf._parse_number(tokens[_N_SWF + 2], "amount", False, True, path, lineno,
                                time=True)
    return start, kind, amount


def _check_line_semantics(row: list, path: str, lineno: int) -> None:
    """Rules 6-7 on one parsed line."""
    values = dict(zip(CWF_FIELDS, row))
    single = {k: np.array([v], dtype=object if k == "request_type" else np.int64)
              for k, v in values.items()}
    problem = _violations(single, check_order=False, cross=False)
    if problem is not None:
        _, field, reason = problem
        raise TraceFormatError(path, lineno, field, reason)


class _CrossChecker:
    """Rules 10-11, fed lines in their final order."""

    def __init__(self, path: str):
        self.path = path
        self.submitted: dict[int, int] = {}  # job id -> line of its S

    def feed(self, row: list, lineno: int) -> None:
        job_id, kind = row[0], row[_TYPE_COL]
        if kind == SUBMISSION:
            if job_id in self.submitted:
                raise TraceFormatError(
                    self.path, lineno, "job_id",
                    f"job id {job_id} is submitted (S) twice (first on line "
                    f"{self.submitted[job_id]})")
            self.submitted[job_id] = lineno
        elif job_id not in self.submitted:
            raise TraceFormatError(
                self.path, lineno, "job_id",
                f"{kind} command for job {job_id}, which has no job submission (S) "
                f"line before it")


def _parse_lines(data: bytes, path: str, unsorted: str):
    """Line-by-line parse that raises on the first offending line."""
    header: list[str] = []
    rows: list[list] = []
    linenos: list[int] = []
    cross = _CrossChecker(path)
    prev_submit = prev_line = None
    for lineno, tokens in _swf._body_lines(data, path, header):
        if len(tokens) != _N_FIELDS:
            missing = CWF_FIELDS[len(tokens)] if len(tokens) < _N_FIELDS else None
            hint = " (an SWF line? CWF adds requested start, request type, amount)" \
                if len(tokens) == _N_SWF else ""
            raise TraceFormatError(path, lineno, missing,
                                   f"expected {_N_FIELDS} fields, found {len(tokens)}{hint}")
        row = [_swf._parse_token(tok, j, path, lineno) for j, tok in enumerate(tokens[:_N_SWF])]
        row.extend(_parse_extra(tokens, path, lineno))
        _check_line_semantics(row, path, lineno)
        submit = row[_SUBMIT]
        if unsorted == "reject":
            if prev_submit is not None and submit < prev_submit:
                raise TraceFormatError(
                    path, lineno, "submit_time",
                    f"submit time {submit} is earlier than {prev_submit} on line "
                    f"{prev_line}: lines must be in submit order (read with "
                    f"unsorted='sort' to sort them)")
            cross.feed(row, lineno)
        prev_submit, prev_line = submit, lineno
        rows.append(row)
        linenos.append(lineno)
    if unsorted == "sort":
        order = sorted(range(len(rows)), key=lambda i: rows[i][_SUBMIT])  # stable
        rows = [rows[i] for i in order]
        for row, i in zip(rows, order):
            cross.feed(row, linenos[i])
    if not rows:
        return header, _empty_columns()
    columns = {}
    for j, name in enumerate(CWF_FIELDS):
        dtype = object if name == "request_type" else CWF_DTYPES[name]
        columns[name] = np.array([row[j] for row in rows], dtype=dtype)
    return header, columns


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------


def write_cwf(workload: Workload, path: str | os.PathLike) -> None:
    """Write a CWF workload; gzip-compressed when the name ends in ``.gz``.

    Same layout as :func:`simlib.workload.swf.write_swf` (header verbatim,
    right-aligned columns, shortest round-tripping numbers, gzip without
    time stamp, atomic replace), with the 21 CWF fields.

    Parameters
    ----------
    workload : Workload
        ``jobs`` with exactly the columns :data:`CWF_FIELDS`, obeying the
        rules :func:`read_cwf` checks (so the output always reads back).
    path : str or path-like

    Raises
    ------
    ValueError
        Naming the row and the rule broken.

    Examples
    --------
    >>> w = merge_commands(jobs_workload, [ElasticCommand(60, 1, "ET", 30)])  # doctest: +SKIP
    >>> write_cwf(w, "w.cwf")                                                 # doctest: +SKIP
    >>> read_cwf("w.cwf").jobs.equals(w.jobs)                                 # doctest: +SKIP
    True
    """
    _swf._write_text_file(path, _format_cwf(workload))


def _columns_of(jobs: pd.DataFrame) -> dict:
    """Validated numpy columns of a CWF frame (rules 2-5 as ValueError)."""
    if tuple(jobs.columns) != CWF_FIELDS:
        raise ValueError(f"jobs columns must be exactly CWF_FIELDS in order, got "
                         f"{list(jobs.columns)}")
    cols = {name: _swf._column_values(jobs[name], name) for name in SWF_FIELDS}
    for name in ("requested_start", "amount"):
        cols[name] = _swf._column_values(jobs[name], name, time=True)
    types = jobs["request_type"]
    if types.isna().any():
        row = int(np.flatnonzero(types.isna().to_numpy())[0])
        raise ValueError(f"request_type: missing value at row {row}")
    cols["request_type"] = types.to_numpy(dtype=object)
    return cols


def _format_cwf(workload: Workload) -> bytes:
    jobs = workload.jobs
    cols = _columns_of(jobs)
    head = b"".join(_header_lines(workload.header))
    if len(jobs) == 0:
        return head
    problem = _violations(cols, check_order=True)
    if problem is not None:
        row, field, reason = problem
        raise ValueError(f"row {row} (job_id {cols['job_id'][row]}), {field}: {reason}"
                         + (" (sort the lines by submit time first)"
                            if field == "submit_time" and "earlier" in reason else ""))
    cells = [_swf._format_column(cols[name]) for name in SWF_FIELDS]
    types = cols["request_type"].astype(str)
    width = max(len(t) for t in types)
    cells.append(_swf._format_column(cols["requested_start"]))
    cells.append(np.array([t.rjust(width) for t in types], dtype=f"S{width}")
                 .view(np.uint8).reshape(-1, width))
    cells.append(_swf._format_column(cols["amount"]))
    return head + _swf._join_cells(cells)


def _header_lines(header: Sequence[str]) -> list[bytes]:
    out = []
    for k, line in enumerate(header):
        if not isinstance(line, str) or not line.startswith(";") or "\n" in line or "\r" in line:
            raise ValueError(f"header line {k} must be one line starting with ';': {line!r}")
        out.append(line.encode("utf-8") + b"\n")
    return out


# --------------------------------------------------------------------------
# jobs <-> commands
# --------------------------------------------------------------------------


def split_commands(workload: Workload) -> tuple[Workload, list[ElasticCommand]]:
    """Separate a CWF workload into its jobs and its elastic control commands.

    Parameters
    ----------
    workload : Workload
        CWF columns (:data:`CWF_FIELDS`), as :func:`read_cwf` returns.

    Returns
    -------
    jobs : Workload
        The ``S`` rows with the 18 SWF columns plus ``requested_start``
        (``-1`` = batch), RangeIndex, same header and path.  This is what
        :func:`simlib.runner.jobs_from_workload` takes.
    commands : list of ElasticCommand
        In file order (non-decreasing time).  Feed them to the simulator
        with :func:`command_events`.

    Raises
    ------
    ValueError
        If the workload breaks a CWF rule.

    Examples
    --------
    >>> rows = [[1, 0, -1, 50, 32] + [-1] * 2 + [32, 50] + [-1] * 9 + [-1, "S", -1],
    ...         [1, 10] + [-1] * 17 + ["ET", 20]]
    >>> w = Workload(pd.DataFrame(rows, columns=list(CWF_FIELDS)))
    >>> jobs, cmds = split_commands(w)
    >>> len(jobs.jobs), cmds
    (1, [ElasticCommand(time=10, job_id=1, kind='ET', amount=20)])
    """
    cols = _columns_of(workload.jobs)
    problem = _violations(cols, check_order=False)
    if problem is not None:
        row, field, reason = problem
        raise ValueError(f"{workload.path or '<workload>'}: row {row}, {field}: {reason}")
    is_s = cols["request_type"] == SUBMISSION
    keep = list(SWF_FIELDS) + ["requested_start"]
    jobs = pd.DataFrame({name: cols[name][is_s] for name in keep}, columns=keep)
    c = np.flatnonzero(~is_s)
    commands = [ElasticCommand(int(t), int(j), str(k), int(a)) for t, j, k, a in zip(
        cols["submit_time"][c], cols["job_id"][c], cols["request_type"][c], cols["amount"][c])]
    return Workload(jobs=jobs, header=list(workload.header), path=workload.path), commands


def merge_commands(jobs: Workload, commands: Iterable[ElasticCommand] = ()) -> Workload:
    """Build a CWF workload from jobs and commands (inverse of split_commands).

    Parameters
    ----------
    jobs : Workload
        The 18 SWF columns, optionally ``requested_start`` (missing = all
        batch, ``-1``); extra columns are ignored.
    commands : iterable of ElasticCommand

    Returns
    -------
    Workload
        CWF columns; lines sorted stably by time, jobs before commands at
        the same second (a command at its job's submission second follows
        the job).  Header and path of ``jobs``.

    Raises
    ------
    ValueError
        If the result breaks a CWF rule (e.g. a command for an unknown job,
        or issued before its job is submitted).

    Examples
    --------
    >>> rows = [[1, 0, -1, 50, 32, -1, -1, 32, 50] + [-1] * 9]
    >>> w = merge_commands(Workload(pd.DataFrame(rows, columns=list(SWF_FIELDS))),
    ...                    [ElasticCommand(10, 1, "RT", 5)])
    >>> w.jobs["request_type"].tolist(), w.jobs["amount"].tolist()
    (['S', 'RT'], [-1, 5])
    """
    src = jobs.jobs
    missing = [name for name in SWF_FIELDS if name not in src.columns]
    if missing:
        raise ValueError(f"jobs lack SWF column(s) {missing}")
    n = len(src)
    cols = {name: _swf._column_values(src[name], name) for name in SWF_FIELDS}
    cols["requested_start"] = (_swf._column_values(src["requested_start"], "requested_start",
                                                   time=True)
                               if "requested_start" in src.columns else np.full(n, -1, np.int64))
    cols["request_type"] = np.full(n, SUBMISSION, dtype=object)
    cols["amount"] = np.full(n, -1, np.int64)
    cmds = list(commands)
    if cmds:
        m = len(cmds)
        extra = {name: np.full(m, -1, SWF_DTYPES[name]) for name in SWF_FIELDS}
        extra["job_id"] = np.array([c.job_id for c in cmds], np.int64)
        extra["submit_time"] = np.array([c.time for c in cmds], np.int64)
        extra["requested_start"] = np.full(m, -1, np.int64)
        extra["request_type"] = np.array([c.kind for c in cmds], dtype=object)
        extra["amount"] = np.array([c.amount for c in cmds], np.int64)
        cols = {k: np.concatenate([cols[k], extra[k]]) for k in cols}
    cols = _sort_columns(cols)
    problem = _violations(cols, check_order=True)
    if problem is not None:
        row, field, reason = problem
        raise ValueError(f"merged workload row {row}, {field}: {reason}")
    return Workload(jobs=_frame(cols), header=list(jobs.header), path=jobs.path)
