"""Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file is a block of header comment lines (starting with ``;``, e.g.
``; MaxProcs: 338``) followed by one line per job with 18 whitespace-separated
numeric fields (:data:`SWF_FIELDS`); ``-1`` means "missing".

Conventions chosen here
-----------------------
Column dtypes
    ``float64`` for :data:`FLOAT_FIELDS` (``avg_cpu_time``, ``used_memory``),
    ``int64`` for the 16 others. The SWF definition makes both of those
    fields *averages* (CPU time and memory per processor), and four of the six
    shared traces (CTC, HPC2N, SDSC-SP2, SDSC-BLUE) do hold fractional CPU
    times (``552.21``). No shared trace has a fractional value in any other
    field, so requested memory and think time stay integral. An integral
    field may be written ``7.00`` (read as ``7``), but a fractional value
    there (``1.5``) is an error rather than a silent dtype change.
Numbers
    Plain decimal notation: optional sign, digits, optional fraction
    (``-1``, ``42``, ``552.21``, ``.5``). No exponents, ``nan`` or ``inf``.
    Integers must fit in 64 bits; a fractional field must be finite.
Non-negative fields
    :data:`NONNEGATIVE_FIELDS` are the times and sizes: ``submit_time``,
    ``wait_time``, ``run_time``, ``allocated_procs``, ``avg_cpu_time``,
    ``used_memory``, ``requested_procs``, ``requested_time``,
    ``requested_memory``. A negative value other than ``-1`` there is an
    error. Identifiers, status, preceding job and think time are not checked
    for sign (think time is a difference of times).
Times
    The integral times (:data:`TIME_FIELDS`) must lie within
    ``±2**53`` (:data:`MAX_EXACT_TIME`, about 285 million years): the
    simulator computes in float64, which is exact only up to there, so a
    larger value would be rounded silently.
Job ids
    Unique: a second line with the same ``job_id`` is an error naming both
    lines.
Order
    Submit times must not decrease from one job line to the next
    (``unsorted="reject"``, the default); ``unsorted="sort"`` sorts the jobs
    stably by submit time instead.
Layout
    Header lines come first; a ``;`` line after the first job line is an
    error. Blank (or whitespace-only) lines are ignored anywhere. Line ends
    may be ``\\n``, ``\\r\\n`` or ``\\r`` alone (universal newlines; line
    numbers in errors count any of them), and a UTF-8 byte order mark at the
    start of the file is skipped. Header lines are kept verbatim (trailing
    whitespace included, a leading indentation before ``;`` removed).
    A file without any job line (empty, blank or header only) is an error
    unless read with ``allow_empty=True``.
Exact round trip
    ``read_swf(write_swf(w))`` gives back ``w.jobs`` (same values, dtypes and
    a RangeIndex) and ``w.header`` exactly, for any workload ``write_swf``
    accepts (read one without jobs with ``allow_empty=True``); hence writing
    a re-read workload reproduces the same bytes. The writer puts integral
    values without a decimal point and fractional values with the shortest
    digits that parse back to the same float (like
    ``repr``, but never in exponent notation). Fields are right-aligned in
    columns as in the archive's files. Original bytes are *not* preserved
    (``142.00`` is written ``142``, blank lines are dropped).

Reading is vectorised (pandas' C parser plus numpy checks); only when a check
fails is the file re-scanned line by line to report the first offending line
with a :class:`~simlib.errors.TraceFormatError`.
"""
from __future__ import annotations

import gzip
import os
import re
import zlib
from io import BytesIO
from typing import TYPE_CHECKING

import numpy as np

from simlib.errors import TraceFormatError
from simlib.io import write_bytes
from simlib.table import Table, duplicated

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The 18 SWF fields, in file order, with simlib's column names.
SWF_FIELDS: tuple[str, ...] = (
    "job_id",            # 1  job number
    "submit_time",       # 2  seconds
    "wait_time",         # 3  seconds
    "run_time",          # 4  seconds
    "allocated_procs",   # 5
    "avg_cpu_time",      # 6  seconds (average over processors)
    "used_memory",       # 7  KB per processor
    "requested_procs",   # 8
    "requested_time",    # 9  seconds
    "requested_memory",  # 10 KB per processor
    "status",            # 11
    "user_id",           # 12
    "group_id",          # 13
    "executable",        # 14
    "queue",             # 15
    "partition",         # 16
    "preceding_job",     # 17
    "think_time",        # 18
)

#: Fields that may be fractional (stored as float64); all others are int64.
FLOAT_FIELDS: tuple[str, ...] = ("avg_cpu_time", "used_memory")

#: Times and sizes: negative values other than -1 (missing) are rejected.
NONNEGATIVE_FIELDS: tuple[str, ...] = (
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
)

#: Integral times in seconds: their absolute value must not exceed
#: :data:`MAX_EXACT_TIME`.
TIME_FIELDS: tuple[str, ...] = (
    "submit_time",
    "wait_time",
    "run_time",
    "requested_time",
    "think_time",
)

#: Largest time (s) that float64, the simulator's time type, holds exactly
#: together with all smaller integers: 2**53.
MAX_EXACT_TIME = 2**53

#: Column dtypes of :attr:`Workload.jobs`.
SWF_DTYPES: dict[str, np.dtype] = {
    name: np.dtype(np.float64 if name in FLOAT_FIELDS else np.int64)
    for name in SWF_FIELDS
}

UNSORTED_POLICIES = ("reject", "sort")

_N_FIELDS = len(SWF_FIELDS)
_IS_FLOAT = np.array([name in FLOAT_FIELDS for name in SWF_FIELDS])
_IS_NONNEG = np.array([name in NONNEGATIVE_FIELDS for name in SWF_FIELDS])
_IS_TIME = np.array([name in TIME_FIELDS for name in SWF_FIELDS])
_SUBMIT = SWF_FIELDS.index("submit_time")
_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
# Every byte a valid job section can contain; anything else sends the reader
# to the line-by-line path (which then names the culprit).
_BODY_BYTES = b"0123456789.+- \t\n"
#: The kernel of the readers' fast path (:func:`_number_table`).
COMPILED_KERNELS = ("_trace_kernel",)
_NUMBER = re.compile(rb"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_INTEGER = re.compile(rb"[+-]?\d+")
_INT64_DIGITS = len(str(2**63))  # more significant digits cannot fit
# Integers at or above 2**53 are not exact once parsed as float64: such
# files go through the line-by-line path, which parses them with int().
_EXACT_INT_LIMIT = 2.0**53
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_HEADER_ITEM = re.compile(r";\s*([A-Za-z_][\w-]*)\s*:(.*)\Z", re.S)
_GZIP_LEVEL = 6  # level 9 is ~6x slower for ~5% smaller files


class Workload:
    """A workload: one row per job with the 18 SWF columns, plus header.

    Attributes
    ----------
    jobs : pandas.DataFrame
        Columns exactly :data:`SWF_FIELDS` in that order; ``-1`` means missing.
        Read workloads have the dtypes of :data:`SWF_DTYPES` and a RangeIndex.
    table : simlib.table.Table
        The same columns as numpy arrays (no pandas needed).
    header : list of str
        Header comment lines verbatim, each starting with ``;``.
    path : str or None
        Where it was read from, for error messages and provenance.

    Notes
    -----
    A workload made from a :class:`~simlib.table.Table` (the readers, the
    cleaning) builds its DataFrame on the first use of ``jobs``, which from
    then on is the workload's content (changes to it are seen by ``table``);
    a run that never asks for ``jobs`` never imports pandas (see
    :mod:`simlib.table`).

    Examples
    --------
    >>> import numpy as np
    >>> from simlib.table import Table, duplicated
    >>> w = Workload(Table({name: np.array([1, 2]) for name in SWF_FIELDS}), path="w.swf")
    >>> len(w.table), w.jobs.shape
    (2, (2, 18))
    """

    def __init__(self, jobs, header: list[str] | None = None, path: str | None = None) -> None:
        self._frame = self._table = None
        self.jobs = jobs
        self.header = [] if header is None else header
        self.path = path

    @property
    def jobs(self) -> pd.DataFrame:
        if self._frame is None:
            self._frame = self._table.to_frame()
            self._table = None  # the frame is the content from now on
        return self._frame

    @jobs.setter
    def jobs(self, jobs) -> None:
        if isinstance(jobs, Table):
            self._frame, self._table = None, jobs
        else:
            self._frame, self._table = jobs, None

    @property
    def table(self) -> Table:
        return self._table if self._table is not None else Table.from_frame(self._frame)

    def __repr__(self) -> str:
        return (f"Workload({len(self.table)} jobs, {len(self.header)} header lines, "
                f"path={self.path!r})")


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------


def read_swf(path: str | os.PathLike, *, unsorted: str = "reject",
             allow_empty: bool = False) -> Workload:
    """Read an SWF file, plain or gzip-compressed.

    Parameters
    ----------
    path : str or path-like
        The file. Gzip is detected by its magic bytes, not by the name.
    unsorted : {"reject", "sort"}
        What to do when submit times decrease between job lines: raise a
        :class:`~simlib.errors.TraceFormatError` naming the line, or sort the
        jobs by submit time (stable, so equal submit times keep file order).
    allow_empty : bool, default False
        Return an empty ``jobs`` for a file without job lines instead of
        raising.

    Returns
    -------
    Workload
        ``jobs`` with the columns :data:`SWF_FIELDS` (dtypes
        :data:`SWF_DTYPES`, RangeIndex), the header lines, and ``path``.

    Raises
    ------
    TraceFormatError
        With path, 1-based line, field and reason, for a wrong field count,
        a non-numeric or out-of-range value, a fractional value in an integer
        field, a negative time or size other than -1 (see
        :data:`NONNEGATIVE_FIELDS`), a time beyond :data:`MAX_EXACT_TIME`,
        a job id used twice, decreasing submit times (when
        ``unsorted="reject"``) or a header line after the first job line;
        with path only for a directory, corrupt gzip data or a file without
        job lines (unless ``allow_empty``).

    Examples
    --------
    >>> w = read_swf("traces/KTH-SP2-1996-2.1-cln.swf.gz")  # doctest: +SKIP
    >>> len(w.jobs), max_procs(w)                           # doctest: +SKIP
    (28476, 100)
    """
    path_str = str(path)
    header, columns = _read_columns(path_str, unsorted, allow_empty, _parse_body_fast, _parse_lines)
    jobs = Table({name: columns[name] for name in SWF_FIELDS})
    if unsorted == "sort":
        order = np.argsort(jobs["submit_time"], kind="stable")
        if np.any(order != np.arange(len(order))):
            jobs = jobs.take(order)
    return Workload(jobs=jobs, header=header, path=path_str)


def _read_columns(path: str, unsorted: str, allow_empty: bool, parse_fast, parse_lines
                  ) -> tuple[list[str], dict]:
    """Header lines and parsed columns of a trace file (SWF and CWF alike).

    ``parse_fast(body, unsorted)`` is the format's vectorised parse of the
    job lines (None when anything is off), ``parse_lines(data, path,
    unsorted)`` its line-by-line parse, returning ``(header, columns)``.
    """
    if unsorted not in UNSORTED_POLICIES:
        raise ValueError(f"unsorted must be one of {UNSORTED_POLICIES}, got {unsorted!r}")
    data = _read_bytes(path)
    header, body_start = _split_header(data)
    columns = parse_fast(data[body_start:], unsorted)
    if columns is None:
        # Something is off (or merely unusual, e.g. huge integers): the slow
        # path either raises the precise error or parses the file itself.
        header, columns = parse_lines(data, path, unsorted)
    if not allow_empty and len(columns["job_id"]) == 0:
        raise _no_jobs(path, data, header)
    return header, columns


def _read_bytes(path: str) -> bytes:
    """Content of a trace file (SWF and CWF alike), ready to split on ``\\n``.

    Gunzipped if compressed; a UTF-8 byte order mark at the start dropped;
    ``\\r\\n`` and lone ``\\r`` line ends turned into ``\\n``.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except IsADirectoryError:
        raise TraceFormatError(path, None, None,
                               "is a directory, not a trace file") from None
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TraceFormatError(path, None, None,
                                   f"corrupt gzip data: {exc}") from None
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _no_jobs(path: str, data: bytes, header: list[str]) -> TraceFormatError:
    """The error for a file without job lines (shared with the CWF reader)."""
    if not data:
        what = "the file is empty"
    elif header:
        what = f"the file holds only header lines ({len(header)})"
    else:
        what = "the file holds only blank lines"
    return TraceFormatError(
        path, None, None,
        f"no jobs: {what} (read with allow_empty=True to accept that)")


def _decode_header_line(line: bytes) -> str:
    # Archive headers are ASCII; tolerate Latin-1 names rather than fail.
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def _header_text(line: bytes) -> str:
    """Header line as stored: no indentation before ``;``."""
    return _decode_header_line(line.lstrip())


def _split_header(data: bytes) -> tuple[list[str], int]:
    """Header lines and the offset of the first job line (or ``len(data)``)."""
    header: list[str] = []
    pos, n = 0, len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        if end < 0:
            end = n
        line = data[pos:end]
        stripped = line.strip()
        if stripped and not stripped.startswith(b";"):
            return header, pos
        if stripped:
            header.append(_header_text(line))
        pos = end + 1
    return header, n


def _read_csv_kwargs() -> dict:
    import pandas as pd

    kwargs = dict(sep=r"\s+", header=None, dtype=np.float64, engine="c",
                  na_filter=False)
    # pandas 2 needs round_trip for correctly rounded floats; pandas 3 always
    # rounds correctly and deprecates the option.
    if int(pd.__version__.split(".")[0]) < 3:
        kwargs["float_precision"] = "round_trip"
    return kwargs


def _parse_body_fast(body: bytes, unsorted: str) -> dict | None:
    """Vectorised parse of the job lines; ``None`` if any check fails."""
    if not body.strip():
        return _empty_columns()
    if body.translate(None, _BODY_BYTES):
        return None  # a letter, ';', exponent, nan, ... somewhere
    values = _number_table(body, _N_FIELDS)
    if values is None:
        return None  # bad token or another number of fields on some line
    # One row per field: each check and cast reads contiguous memory (half
    # the time of checking the job-per-row matrix through column masks).
    fields = np.ascontiguousarray(values.T)
    columns = {}
    for j, name in enumerate(SWF_FIELDS):
        field = fields[j]
        if _IS_FLOAT[j]:
            if not np.isfinite(field).all():
                return None  # inf: a number too large for a float64
            columns[name] = field
        else:
            if not (np.abs(field) < _EXACT_INT_LIMIT).all():  # inf fails too
                return None
            columns[name] = integral = field.astype(np.int64)  # exact below 2**53
            if (integral != field).any():
                return None  # a fraction in an integer field
        if _IS_NONNEG[j] and ((field < 0) & (field != -1)).any():
            return None
    submit = fields[_SUBMIT]
    if unsorted == "reject" and (submit[1:] < submit[:-1]).any():
        return None
    if duplicated(fields[0]).any():
        return None
    return columns


def _number_table(body: bytes, n_fields: int, text_field: int = -1):
    """The job lines as a float64 matrix (and the text field's tokens), or None.

    On the compiled kernel (:func:`simlib.policies._trace_kernel.table_of`),
    else, or where it gives up, with pandas' ``read_csv`` (a whitespace
    separator, float64 columns, the text field as str): the same numbers,
    correctly rounded. None when a line does not hold ``n_fields`` numbers
    (the text field aside). Without a text field the result is the matrix
    alone.

    Examples
    --------
    >>> _number_table(b"1 2.5\\n3 4\\n", 2).tolist(), _number_table(b"1 2\\n3\\n", 2)
    ([[1.0, 2.5], [3.0, 4.0]], None)
    """
    from simlib.policies import kernels  # here: reading a trace loads no policy module

    kernel = kernels.load(COMPILED_KERNELS[0])
    parsed = None if kernel is None else kernel.table_of(body, n_fields, text_field)
    if parsed is not None:
        return parsed[0] if text_field < 0 else parsed
    # No kernel, or it gave up (a bad line, or a number it leaves to pandas).
    import pandas as pd

    kwargs = _read_csv_kwargs()
    if text_field >= 0:
        kwargs["dtype"] = {j: (object if j == text_field else np.float64) for j in range(n_fields)}
    try:
        frame = pd.read_csv(BytesIO(body), **kwargs)
    except (ValueError, pd.errors.ParserError, TypeError):
        return None  # bad token or too many fields on some line
    if frame.shape[1] != n_fields:
        return None
    if text_field < 0:
        values = frame.to_numpy(dtype=np.float64)
        return values if np.isfinite(values).all() else None  # short lines: NaN
    texts = frame.iloc[:, text_field].to_numpy(dtype=object)
    if not all(isinstance(t, str) for t in texts):
        return None  # a short line padded with NaN
    values = frame.to_numpy(dtype=object)
    values[:, text_field] = np.nan
    return values.astype(np.float64), texts.tolist()


def _empty_columns() -> dict:
    return {name: np.empty(0, SWF_DTYPES[name]) for name in SWF_FIELDS}


def _show(token: bytes, limit: int = 40) -> str:
    """A token for an error message, cut short if very long."""
    text = token.decode("utf-8", "backslashreplace")
    if len(text) > limit:
        text = f"{text[:limit // 2]}...{text[-8:]} ({len(token)} characters)"
    return text


def _parse_token(token: bytes, j: int, path: str, lineno: int):
    """One field value, validated; raises TraceFormatError."""
    return _parse_number(token, SWF_FIELDS[j], bool(_IS_FLOAT[j]),
                         bool(_IS_NONNEG[j]), path, lineno,
                         time=bool(_IS_TIME[j]))


def _parse_number(token: bytes, name: str, fractional: bool, nonnegative: bool,
                  path: str, lineno: int, *, time: bool = False):
    """A numeric field value, validated; raises TraceFormatError.

    Shared with the CWF reader (:mod:`simlib.workload.cwf`), whose extra
    numeric fields follow the same rules: ``fractional`` allows a float,
    ``nonnegative`` rejects negatives other than ``-1`` (missing), ``time``
    rejects an integer beyond :data:`MAX_EXACT_TIME`.
    """
    if not _NUMBER.fullmatch(token):
        raise TraceFormatError(path, lineno, name,
                               f"not a number: {_show(token)!r}")
    if fractional:
        value = float(token)
        if not np.isfinite(value):
            raise TraceFormatError(path, lineno, name,
                                   f"value {_show(token)} is too large for a float")
    elif _INTEGER.fullmatch(token):
        # Count digits first: int() refuses strings of more than 4300.
        if len(token.lstrip(b"+-").lstrip(b"0")) > _INT64_DIGITS:
            value = None
        else:
            value = int(token)
        if value is None or not _INT64_MIN <= value <= _INT64_MAX:
            raise TraceFormatError(
                path, lineno, name,
                f"value {_show(token)} does not fit in a 64-bit integer")
    else:
        # Same rounding as the fast path: through float64.
        as_float = float(token)
        if not (np.isfinite(as_float) and _INT64_MIN <= as_float < 2.0**63):
            raise TraceFormatError(
                path, lineno, name,
                f"value {_show(token)} does not fit in a 64-bit integer")
        if not as_float.is_integer():
            raise TraceFormatError(
                path, lineno, name,
                f"fractional value {_show(token)} in an integer field")
        value = int(as_float)
    if nonnegative and value < 0 and value != -1:
        raise TraceFormatError(
            path, lineno, name,
            f"negative value {_show(token)}: only -1 (missing) may be negative")
    if time and abs(value) > MAX_EXACT_TIME:
        raise TraceFormatError(
            path, lineno, name,
            f"time {_show(token)} is beyond 2**53 = {MAX_EXACT_TIME} s, where "
            f"float64 (the simulator's time type) is no longer exact")
    return value


def _body_lines(data: bytes, path: str, header: list[str]):
    """Yield ``(lineno, tokens)`` for each job line (SWF and CWF alike).

    Blank lines are skipped; header comment lines are appended to ``header``;
    a comment line after the first job line is an error.
    """
    in_body = False
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(b";"):
            if in_body:
                raise TraceFormatError(
                    path, lineno, None,
                    "header comment line (starting with ';') after the "
                    "first job line")
            header.append(_header_text(line))
            continue
        in_body = True
        yield lineno, stripped.split()


def _parse_lines(data: bytes, path: str, unsorted: str):
    """Line-by-line parse that raises on the first offending line."""
    header: list[str] = []
    rows: list[list] = []
    first_line: dict[int, int] = {}  # job id -> line of its first job line
    prev_submit = prev_line = None
    for lineno, tokens in _body_lines(data, path, header):
        if len(tokens) != _N_FIELDS:
            missing = SWF_FIELDS[len(tokens)] if len(tokens) < _N_FIELDS else None
            raise TraceFormatError(
                path, lineno, missing,
                f"expected {_N_FIELDS} fields, found {len(tokens)}")
        row = [_parse_token(tok, j, path, lineno) for j, tok in enumerate(tokens)]
        job_id = row[0]
        if job_id in first_line:
            raise TraceFormatError(
                path, lineno, "job_id",
                f"job id {job_id} appears twice (first on line {first_line[job_id]})")
        first_line[job_id] = lineno
        submit = row[_SUBMIT]
        if unsorted == "reject" and prev_submit is not None and submit < prev_submit:
            raise TraceFormatError(
                path, lineno, "submit_time",
                f"submit time {submit} is earlier than {prev_submit} on line "
                f"{prev_line}: jobs must be in submit order "
                f"(read with unsorted='sort' to sort them)")
        prev_submit, prev_line = submit, lineno
        rows.append(row)
    if not rows:
        return header, _empty_columns()
    columns = {}
    for j, name in enumerate(SWF_FIELDS):
        columns[name] = np.array([row[j] for row in rows], dtype=SWF_DTYPES[name])
    return header, columns


def job_line(path: str | os.PathLike, row: int | None = None, *,
             job_id: int | None = None) -> int | None:
    r"""1-based line number of a job of an SWF file: its ``row`` or its ``job_id``.

    For error messages about a job of a trace read with :func:`read_swf`.
    ``row`` (0-based) counts job lines in file order, so it fits only rows
    read with ``unsorted="reject"`` and not dropped since; ``job_id`` (ids
    are unique in a file the reader accepts) fits after sorting and
    cleaning too. Re-reads the file; header and blank lines are skipped as
    the reader skips them.

    Returns
    -------
    int or None
        ``None`` when no job line matches.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.swf")
    >>> line = " ".join(["1"] * 18) + "\n"
    >>> _ = open(path, "w").write("; MaxProcs: 4\n\n" + line + "2" + line[1:])
    >>> job_line(path, 1), job_line(path, job_id=1)
    (4, 3)
    """
    path_str = str(path)
    header: list[str] = []
    for k, (lineno, tokens) in enumerate(_body_lines(_read_bytes(path_str), path_str, header)):
        if job_id is None:
            if k == row:
                return lineno
            continue
        try:
            if float(tokens[0]) == job_id:
                return lineno
        except ValueError:
            continue
    return None


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------


def write_swf(workload: Workload, path: str | os.PathLike) -> None:
    """Write a workload as SWF; gzip-compressed when the name ends in ``.gz``.

    The header lines come first, verbatim, then one line per job with the 18
    fields right-aligned in columns. Integral values have no decimal point;
    fractional ones (only possible in :data:`FLOAT_FIELDS`) use the shortest
    decimal that reads back to the same float. Gzip output has no time stamp
    or name, so equal workloads give equal bytes. The file is replaced
    atomically (no partial file on failure).

    Parameters
    ----------
    workload : Workload
        ``jobs`` must have exactly the columns :data:`SWF_FIELDS`, and pass the
        checks :func:`read_swf` applies (so the output is always readable).
    path : str or path-like
        Destination.

    Raises
    ------
    ValueError
        If the columns, a header line or a value (NaN, a fractional value in
        an integer field, a negative time or size other than -1, a time
        beyond :data:`MAX_EXACT_TIME`, a job id used twice, submit times out
        of order) would not make a valid SWF file.

    Examples
    --------
    >>> w = read_swf("in.swf.gz")          # doctest: +SKIP
    >>> write_swf(w, "copy.swf")           # doctest: +SKIP
    >>> read_swf("copy.swf").jobs.equals(w.jobs)   # doctest: +SKIP
    True
    """
    _write_text_file(path, _format_swf(workload))


def _write_text_file(path, text: bytes) -> None:
    """Write ``text`` atomically, gzip-compressed when ``path`` ends in ``.gz``
    (shared by the SWF and CWF writers)."""
    if os.fspath(path).endswith(".gz"):
        buffer = BytesIO()
        # mtime=0 and no file name: the output depends only on the content.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0,
                           compresslevel=_GZIP_LEVEL) as gz:
            gz.write(text)
        text = buffer.getvalue()
    write_bytes(path, text)


def _format_swf(workload: Workload) -> bytes:
    """The SWF bytes of a workload (validated)."""
    jobs = workload.jobs
    if tuple(jobs.columns) != SWF_FIELDS:
        raise ValueError(
            f"jobs columns must be exactly SWF_FIELDS in order, got "
            f"{list(jobs.columns)}")
    lines = []
    for k, line in enumerate(workload.header):
        if not isinstance(line, str) or not line.startswith(";") or \
                "\n" in line or "\r" in line:
            raise ValueError(
                f"header line {k} must be one line starting with ';': {line!r}")
        lines.append(line.encode("utf-8") + b"\n")
    head = b"".join(lines)
    if len(jobs) == 0:
        return head
    columns = [_column_values(jobs[name], name) for name in SWF_FIELDS]
    ids = columns[0]
    repeats = np.flatnonzero(duplicated(ids))
    if repeats.size:
        row = int(repeats[0])
        first = int(np.flatnonzero(ids == ids[row])[0])
        raise ValueError(f"job_id: job id {ids[row]} appears twice (rows {first} and {row})")
    submit = columns[_SUBMIT]
    # Compare, don't subtract: differences of int64 can overflow.
    backwards = np.flatnonzero(submit[1:] < submit[:-1])
    if backwards.size:
        row = int(backwards[0]) + 1
        raise ValueError(
            f"submit_time decreases at row {row} (job_id "
            f"{jobs['job_id'].iloc[row]}): sort the jobs by submit time first")
    cells = [_format_column(values) for values in columns]
    return head + _join_cells(cells)


def _column_values(column: pd.Series, name: str, time: bool | None = None) -> np.ndarray:
    """Column as int64 / float64 array, after the reader's checks.

    ``time`` (default: ``name`` is in :data:`TIME_FIELDS`) applies the
    :data:`MAX_EXACT_TIME` limit.
    """
    # A numpy-typed column holds no missing value (integers) or only NaN
    # (floats): asked of numpy, not through pandas' isna (its per-call cost
    # was ~7 % of a paper K workload step, which writes thousands of columns).
    kind = column.dtype.kind if isinstance(column.dtype, np.dtype) else None
    if kind == "f":
        missing = np.isnan(column.to_numpy())
    elif kind is not None and kind in "iub":
        missing = None
    else:
        missing = column.isna().to_numpy()
    if missing is not None and missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{name}: missing value at row {row} (write -1)")
    try:
        values = column.to_numpy(dtype=np.float64 if name in FLOAT_FIELDS
                                 else None)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: non-numeric column") from None
    if name not in FLOAT_FIELDS:
        if values.dtype.kind not in "iuf":
            raise ValueError(f"{name}: non-numeric column of dtype {values.dtype}")
        if values.dtype.kind == "f":
            bad = ~np.isfinite(values) | (values != np.trunc(values)) | \
                (np.abs(values) >= 2.0**63)
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"{name}: value {values[row].item()!r} at row {row} is not an "
                    f"integer (only {FLOAT_FIELDS} may be fractional)")
        elif values.dtype.kind == "u" and (values > _INT64_MAX).any():
            raise ValueError(f"{name}: values do not fit in int64")
        values = values.astype(np.int64)
    elif not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"{name}: non-finite value at row {row}")
    if name in NONNEGATIVE_FIELDS:
        bad = (values < 0) & (values != -1)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name}: negative value {values[row].item()!r} at row {row} "
                f"(only -1, missing, may be negative)")
    if (name in TIME_FIELDS if time is None else time) and values.dtype.kind == "i":
        bad = (values > MAX_EXACT_TIME) | (values < -MAX_EXACT_TIME)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name}: time {values[row].item()!r} at row {row} is beyond "
                f"2**53 s, where float64 is no longer exact")
    return values


def _int_cells(values: np.ndarray, width: int) -> np.ndarray:
    """Right-aligned ASCII of int64 ``values``: uint8 array (n, width)."""
    n = values.shape[0]
    out = np.full((n, width), ord(" "), dtype=np.uint8)
    negative = values < 0
    # abs() wraps for -2**63, but the uint64 view of it is then right.
    rest = np.abs(values).astype(np.uint64)
    digits = np.zeros(n, dtype=np.int64)
    for k in range(width):
        live = (rest > 0) | (k == 0)
        if not live.any():
            break
        col = width - 1 - k
        out[live, col] = (rest[live] % 10).astype(np.uint8) + ord("0")
        digits += live
        rest //= 10
    rows = np.flatnonzero(negative)
    out[rows, width - 1 - digits[rows]] = ord("-")
    return out


def _int_width(values: np.ndarray) -> int:
    if values.size == 0:
        return 1
    return max(len(str(int(values.max()))), len(str(int(values.min()))))


def _fraction_text(x: float) -> str:
    text = repr(x)
    if "e" in text or "E" in text:
        # Positional, still the shortest round-tripping digits.
        text = np.format_float_positional(x, unique=True, trim="-")
    return text


def _format_column(values: np.ndarray) -> np.ndarray:
    """Cells of one column as a uint8 array (n, width)."""
    if values.dtype.kind == "i":
        return _int_cells(values, _int_width(values))
    integral = (values == np.trunc(values)) & (np.abs(values) < 2.0**63)
    if integral.all():
        as_int = values.astype(np.int64)
        return _int_cells(as_int, _int_width(as_int))
    as_int = np.where(integral, values, 0).astype(np.int64)
    texts = [_fraction_text(float(x)) for x in values[~integral]]
    width = max(_int_width(as_int[integral]) if integral.any() else 1,
                max(len(t) for t in texts))
    out = np.empty((values.shape[0], width), dtype=np.uint8)
    out[integral] = _int_cells(as_int[integral], width)
    padded = np.array([t.rjust(width) for t in texts], dtype=f"S{width}")
    out[~integral] = padded.view(np.uint8).reshape(-1, width)
    return out


def _join_cells(cells: list[np.ndarray]) -> bytes:
    """Lay column cells out as space-separated lines."""
    n = cells[0].shape[0]
    widths = [c.shape[1] for c in cells]
    line_len = sum(widths) + len(widths)  # separators + newline
    out = np.full((n, line_len), ord(" "), dtype=np.uint8)
    pos = 0
    for c, w in zip(cells, widths):
        out[:, pos:pos + w] = c
        pos += w + 1
    out[:, -1] = ord("\n")
    return out.tobytes()


# --------------------------------------------------------------------------
# header
# --------------------------------------------------------------------------


def header_value(workload: Workload, key: str) -> str | None:
    """Value of a header item such as ``; MaxProcs: 338``.

    Parameters
    ----------
    workload : Workload
    key : str
        Header keyword (``MaxProcs``, ``MaxNodes``, ``UnixStartTime``, ...),
        matched case-insensitively.

    Returns
    -------
    str or None
        The text after the colon of the first matching line, stripped;
        ``None`` if no header line has that key.

    Examples
    --------
    >>> w = Workload(jobs=Table({name: [] for name in SWF_FIELDS}),
    ...              header=["; Version: 2.2", "; MaxProcs: 338"])
    >>> header_value(w, "MaxProcs")
    '338'
    >>> header_value(w, "MaxNodes") is None
    True
    """
    item = _header_item(workload, key)
    return None if item is None else item[1]


def _header_item(workload: Workload, key: str) -> tuple[int, str] | None:
    """``(index in workload.header, stripped value)`` of the first ``key`` line, or None."""
    wanted = key.casefold()
    for k, line in enumerate(workload.header):
        match = _HEADER_ITEM.match(line)
        if match and match.group(1).casefold() == wanted:
            return k, match.group(2).strip()
    return None


def _header_line_number(path: str | None, index: int) -> int | None:
    """1-based line of the file holding header line ``index`` (None when unknown).

    Header lines are the non-blank lines before the first job line (the
    reader rejects any later one), so the ``index``-th of them is found by
    counting from the top; read again only to name a line in an error.
    """
    if not path:
        return None
    try:
        data = _read_bytes(path)
    except (OSError, TraceFormatError):
        return None
    seen = -1
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith(b";"):
            return None
        seen += 1
        if seen == index:
            return lineno
    return None


#: A machine size in the header: an integer, optionally followed by a note
#: in parentheses, as in the archive's ``; MaxNodes: 338 (batch partition; 512 total)``.
_HEADER_SIZE = re.compile(r"([+-]?\d+)(?:\s+\(.*\))?\Z", re.S)


def max_procs(workload: Workload) -> int | None:
    """Machine size from the header: ``MaxProcs``, else ``MaxNodes``.

    A missing item, or the value ``-1`` (SWF's "unknown"), counts as
    absent and the next key is tried. Any other value must be an integer
    >= 1, optionally followed by a note in parentheses; a value that is
    not (``abc``, ``0``, ``-5``, ``12.5``) is an error, never silently
    skipped: a user reading "no MaxProcs" would look for a missing line.

    Parameters
    ----------
    workload : Workload

    Returns
    -------
    int or None

    Raises
    ------
    TraceFormatError
        An invalid ``MaxProcs`` (or, when it is absent, ``MaxNodes``),
        naming the file, the line (when ``workload.path`` can be read)
        and the value.

    Examples
    --------
    >>> w = Workload(jobs=Table({name: [] for name in SWF_FIELDS}),
    ...              header=["; MaxNodes: 128", "; MaxProcs: -1"])
    >>> max_procs(w)
    128
    >>> max_procs(Workload(jobs=w.table, header=["; MaxProcs: 0"], path="t.swf"))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.TraceFormatError: t.swf: field 'MaxProcs': invalid header value '0': ...
    """
    for key in ("MaxProcs", "MaxNodes"):
        item = _header_item(workload, key)
        if item is None:
            continue
        index, text = item
        match = _HEADER_SIZE.match(text)
        value = int(match.group(1)) if match else None
        if value == -1:
            continue
        if value is None or value < 1:
            raise TraceFormatError(
                workload.path or "workload header", _header_line_number(workload.path, index),
                key, f"invalid header value {text!r}: the machine's size must be an integer "
                     ">= 1 (or -1 for unknown)")
        return value
    return None
