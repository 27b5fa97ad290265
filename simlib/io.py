"""Atomic file output: a file is either fully written or not there at all.

Every output simlib and the pipeline's scripts write (per-job tables, JSON
summaries, cubes, CSV/Markdown tables, figures, workloads, fetched traces)
goes through :func:`atomic_path` or one of the helpers built on it, so a
process killed mid-write (``kill -9`` of Snakemake leaves its job scripts
running; a crash; Ctrl-C) never leaves a truncated file under the final
name, and a failed rewrite leaves the previous file untouched.

How: the data is written under the *same file name* in a fresh hidden
directory next to the destination (``.<name>.<random>.tmp/<name>``), then
moved into place with :func:`os.replace`, which is atomic on POSIX within one
file system. Keeping the name means that libraries which infer the format
from the suffix (pandas' ``compression="infer"``) or store the name in the
file (gzip headers) behave exactly as if they wrote the destination
directly, so the bytes do not depend on a random temporary name. The file
gets the permissions a plain ``open()`` would give it (umask applies).

A destination that is a symbolic link is written *through* the link: the
file it points to is replaced atomically (the temporary directory is made
beside that file, so the rename stays on one file system) and the link
itself is kept, as ``open(link, "w")`` would keep it. A dangling link
creates its target, as ``open`` does.

This protects against the writing process dying, not against power loss
(no ``fsync``). A process killed with ``kill -9`` cannot clean up: it may
leave a hidden ``.<name>.*.tmp`` directory behind, never a partial
``<name>``.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Iterator

__all__ = ["GZIP", "read_yaml", "atomic_path", "atomic_write", "write_text", "write_bytes", "write_csv",
           "csv_text", "write_json", "json_safe"]


def read_yaml(path: str | os.PathLike):
    """A YAML file's data (safe types only), read with libyaml where PyYAML has it.

    The study packages read their words and declarations from YAML files in
    every pipeline job: libyaml's parser is several times faster than
    PyYAML's own, and gives the same data.
    """
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=loader)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, mkdir: bool = True) -> Iterator[Path]:
    """Yield a temporary path to write; move it to ``path`` on success.

    For libraries that take a file name (``savefig``, ``to_netcdf``,
    ``to_csv``): write to the yielded path inside the ``with`` block. When
    the block ends normally the file replaces ``path`` atomically; when it
    raises (any exception, KeyboardInterrupt included) the temporary file is
    removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or path-like
        The destination. A symbolic link is kept and the file it points
        to is replaced (see the module's docstring).
    mkdir : bool, default True
        Create the destination's parent directories first.

    Yields
    ------
    pathlib.Path
        A path with the same file name as ``path``, in a fresh hidden
        directory beside it (beside the link's target for a link);
        nothing exists there yet.

    Raises
    ------
    FileNotFoundError
        If the block ended without creating the yielded file, or the
        directory a link points into does not exist.

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> with atomic_path(out) as tmp:
    ...     _ = tmp.write_text("done")
    ...     os.path.exists(out)
    False
    >>> open(out).read(), os.listdir(os.path.dirname(out))
    ('done', ['t.txt'])
    """
    dest = Path(path)
    if mkdir:
        dest.parent.mkdir(parents=True, exist_ok=True)
    target = _link_target(dest)
    tmpdir = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=target.parent))
    # The name the caller gave (the link's, for a link): suffix inference and
    # gzip headers see what writing ``path`` directly would show them.
    tmp = tmpdir / dest.name
    try:
        yield tmp
        if not tmp.exists():
            raise FileNotFoundError(f"{dest}: nothing was written (no {tmp})")
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _link_target(dest: Path) -> Path:
    """``dest``, or the file a symbolic link ``dest`` points to (links followed to the end).

    Replacing the link by a regular file would silently cut a user's link
    (``-o results/latest.csv``), so the file behind it is what gets replaced.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); os.symlink("real.csv", os.path.join(d, "link.csv"))
    >>> _link_target(Path(d, "link.csv")) == Path(os.path.realpath(d), "real.csv")
    True
    """
    if not dest.is_symlink():
        return dest
    target = Path(os.path.realpath(dest))
    if not target.parent.is_dir():
        raise FileNotFoundError(f"{dest}: a symbolic link to {target}, whose directory "
                                f"{target.parent} does not exist")
    return target


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = None,
                 newline: str | None = None, mkdir: bool = True) -> Iterator[IO]:
    """Open ``path`` for writing; the content appears there only when complete.

    Like ``open(path, mode)`` in a ``with`` statement, but the data goes to
    a temporary file that replaces ``path`` when the block ends normally
    (see :func:`atomic_path`); if the block raises, ``path`` is untouched
    and no temporary file remains.

    Parameters
    ----------
    path : str or path-like
    mode : {"w", "wt", "wb"}
        Text or binary. Appending or updating cannot be atomic this way.
    encoding, newline : str, optional
        As for :func:`open` (text mode only); ``encoding`` defaults to
        UTF-8 in text mode.
    mkdir : bool, default True
        Create parent directories first.

    Yields
    ------
    file object

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "a.json")
    >>> with atomic_write(out) as f:
    ...     _ = f.write("{}\\n")
    >>> open(out).read()
    '{}\\n'
    """
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w', 'wt' or 'wb', got {mode!r}")
    if "b" not in mode and encoding is None:
        encoding = "utf-8"
    with atomic_path(path, mkdir=mkdir) as tmp:
        with open(tmp, mode, encoding=encoding, newline=newline) as f:
            yield f


def write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8, ``\\n`` kept as is).

    Examples
    --------
    >>> import os, tempfile
    >>> p = write_text(os.path.join(tempfile.mkdtemp(), "r.md"), "# hi\\n")
    >>> p.read_text()
    '# hi\\n'
    """
    with atomic_write(path, "w", encoding=encoding, newline="") as f:
        f.write(text)
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically.

    Examples
    --------
    >>> import os, tempfile
    >>> write_bytes(os.path.join(tempfile.mkdtemp(), "b.bin"), b"\\x00").read_bytes()
    b'\\x00'
    """
    with atomic_write(path, "wb") as f:
        f.write(data)
    return Path(path)


#: ``compression`` of :func:`write_csv` for the per-run job tables: no time
#: stamp in the header (same table, same bytes) and the fastest level (they
#: are written once and read a few times; level 9 took ~10 % of a paper K
#: simulation step for ~25 % smaller files).
GZIP = {"method": "gzip", "mtime": 0, "compresslevel": 1}


def write_csv(frame, path: str | os.PathLike, **to_csv_kwargs) -> Path:
    """``frame.to_csv(path, **to_csv_kwargs)``, atomically.

    ``frame`` is a DataFrame, a Series or a :class:`~simlib.table.Table`
    (written as its DataFrame would be).

    The keyword arguments are pandas' own (``index``, ``lineterminator``,
    ``compression`` ...); compression inferred from a ``.gz`` suffix and the
    file name stored in a gzip header are those of ``path``. A gzip header's
    time stamp is 0 unless ``compression`` gives an ``mtime``: the same table
    gives the same bytes.

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> p = write_csv(pd.DataFrame({"a": [1]}), os.path.join(tempfile.mkdtemp(), "t.csv"),
    ...               index=False)
    >>> p.read_text()
    'a\\n1\\n'
    """
    if "compression" in to_csv_kwargs or _inferred_compression(str(path)) == "gzip":
        to_csv_kwargs["compression"] = _zero_stamp(path, to_csv_kwargs.get("compression", "infer"))
    with atomic_path(path) as tmp:
        text = None
        end = to_csv_kwargs.get("lineterminator") or os.linesep
        if (to_csv_kwargs.get("index", True) is False and end in ("\n", "\r\n")
                and set(to_csv_kwargs) <= {"index", "lineterminator", "compression"}
                and type(frame).__name__ in ("DataFrame", "Table")):   # a Series: pandas
            # pandas formats every cell through its generic machinery: the
            # per-job tables of a paper K simulation step (240,000 rows) took
            # ~30 % of the step; csv_text writes the same text in a third of the time.
            text = csv_text(_rows(frame, 0, CSV_CHUNK_ROWS), end)
        gzip_args = None if text is None else _gzip_args(tmp, to_csv_kwargs.get("compression", "infer"))
        if gzip_args is False:
            text = None
        if text is not None and not _write_text_chunks(tmp, frame, text, end, gzip_args):
            text = None   # a later chunk needs pandas' quoting: pandas writes it all
        if text is None:
            if type(frame).__name__ == "Table":
                frame = frame.to_frame()
            frame.to_csv(tmp, **to_csv_kwargs)
    return Path(path)


#: Rows of a table formatted at a time when written (:func:`write_csv`): the
#: text of a million-job table is ~700 MB whole, ~70 MB a chunk.
CSV_CHUNK_ROWS = 100_000


def _write_text_chunks(tmp, frame, text: str, end: str, gzip_args) -> bool:
    """Write ``text`` (the :func:`csv_text` of ``frame``'s first
    :data:`CSV_CHUNK_ROWS` rows) and then the other rows' text chunk by
    chunk; False when a later chunk has no plain text (then nothing is
    kept). The same bytes as the whole text written at once."""
    import contextlib
    n = len(frame)
    with contextlib.ExitStack() as stack:
        if gzip_args is None:
            fh = stack.enter_context(open(tmp, "w", encoding="utf-8", newline=""))
            write = fh.write
        else:
            import gzip
            fh = stack.enter_context(gzip.GzipFile(filename=str(tmp), mode="wb", **gzip_args))
            write = lambda t: fh.write(t.encode("utf-8"))  # noqa: E731
        write(text)
        for first in range(CSV_CHUNK_ROWS, n, CSV_CHUNK_ROWS):
            part = csv_text(_rows(frame, first, first + CSV_CHUNK_ROWS), end)
            if part is None:
                return False
            write(part.split(end, 1)[1])   # without its header line
        if gzip_args is not None:
            # pandas' text wrapper flushes before closing (a sync flush
            # point in the stream): the same bytes as pandas' file.
            fh.flush()
    return True


def _rows(frame, first: int, last: int):
    """Rows ``first:last`` of a DataFrame or a Table."""
    if type(frame).__name__ == "Table":
        return frame.take(slice(first, last))
    return frame.iloc[first:last]


#: Characters that make the csv module quote a cell (QUOTE_MINIMAL).
_CSV_SPECIAL = (",", '"', "\n", "\r")
_EXACT_INT = 2.0 ** 53
#: Kinds of a column's cells, as the compiled writer numbers them
#: (:func:`simlib.policies._intervals_kernel.csv_rows`).
_CONSTANT, _INTEGERS, _FLOATS, _STRINGS = range(4)
#: The kernel that writes a table's rows (see :mod:`simlib.policies.kernels`).
COMPILED_KERNELS = ("_intervals_kernel",)


def _csv_field(values) -> tuple[int, object] | None:
    """One column's cells as ``DataFrame.to_csv`` writes them: ``(kind, values)``, or None.

    int64 cells are the value in decimal (``_INTEGERS``); bool cells
    ``True``/``False`` (as strings);
    float64 cells ``repr`` (what pandas' ``astype(str)`` gives; NaN as the
    empty cell; ``_FLOATS``); plain strings as they are unless the csv
    module would quote them (``_STRINGS``, a list). A column of one string
    repeated is ``(_CONSTANT, text)``. Anything else: None (the caller asks
    pandas).

    Examples
    --------
    >>> import numpy as np
    >>> _csv_field(np.array([3, 4]))[0] == _INTEGERS, _csv_field(np.array([0.5]))[0] == _FLOATS
    (True, True)
    >>> _csv_field(np.array(["a%", "a%"], dtype=object)), _csv_field(np.array(["a,b"]))
    ((0, 'a%'), None)
    """
    import numpy as np

    kind = values.dtype.kind
    if kind == "i":
        return _INTEGERS, np.ascontiguousarray(values, dtype=np.int64)
    if values.dtype == np.float64:
        return _FLOATS, np.ascontiguousarray(values)
    if kind == "b":   # written as str(bool)
        cells = np.where(values, "True", "False").tolist()
    elif kind == "O" or kind == "U" or kind == "T":
        cells = values.tolist()
        if set(map(type, cells)) - {str}:
            return None
        joined = "\x00".join(cells)
        if any(ch in joined for ch in _CSV_SPECIAL):
            return None
    else:
        return None
    if cells and cells.count(cells[0]) == len(cells):
        return _CONSTANT, cells[0]
    return _STRINGS, cells


def _csv_piece(kind: int, values) -> tuple[str, list | None]:
    """A field of :func:`_csv_field` as ``(piece, cells)`` of a ``%``-format line.

    ``cells`` are the values ``piece`` formats, one a row, or None when
    every row's cell is the same text (then written in ``piece`` itself).

    Examples
    --------
    >>> import numpy as np
    >>> _csv_piece(_FLOATS, np.array([3.0, 4.0])), _csv_piece(_FLOATS, np.array([0.5, np.nan]))
    (('%s.0', [3, 4]), ('%s', [0.5, '']))
    >>> _csv_piece(_CONSTANT, "a%")
    ('a%%', None)
    """
    import numpy as np

    if kind == _CONSTANT:
        return values.replace("%", "%%"), None
    if kind == _FLOATS:
        # Integral values below 2**53 (most times): repr is the integer and ".0",
        # formatted from int64 (several times faster than float repr); -0.0 is not.
        if (np.all(np.abs(values) < _EXACT_INT) and np.all(values == np.trunc(values))
                and not np.any(np.signbit(values) & (values == 0))):
            piece, cells = "%s.0", values.astype(np.int64).tolist()
        else:
            piece, cells = "%s", values.tolist()  # str(float) is repr(float)
            for i in np.flatnonzero(np.isnan(values)).tolist():
                cells[i] = ""
            return piece, cells
    else:
        piece, cells = "%s", values.tolist() if kind == _INTEGERS else values
    # One text for the whole column (a constant): part of the format.
    # Not for float cells: 0.0 == -0.0, but their texts differ.
    if cells and cells.count(cells[0]) == len(cells):
        return (piece % (cells[0],)).replace("%", "%%"), None
    return piece, cells


def csv_text(frame, lineterminator: str = "\n", *, compiled: bool | None = None) -> str | None:
    """``frame.to_csv(index=False, lineterminator=...)`` for plain columns, or None.

    The same text, several times faster, for tables of int64, bool, float64
    and string columns whose cells need no quoting (the jobs tables); None
    otherwise, and the caller falls back to pandas. The rows are written by
    a compiled kernel (:func:`simlib.policies._intervals_kernel.csv_rows`)
    or, without it (or with ``compiled=False``), each as one ``%``-format of
    its cells (formatting in C, no string per cell for numbers); ``SIMLIB_KERNELS``
    chooses when ``compiled`` is None (:mod:`simlib.policies.kernels`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")], "c": ["x", "y z"],
    ...                    "d": [3.0, -0.0]})
    >>> csv_text(df) == csv_text(df, compiled=False) == df.to_csv(index=False, lineterminator="\\n")
    True
    >>> csv_text(pd.DataFrame({"a": ["x,y"], "b": [1]})) is None
    True
    >>> from simlib.table import Table
    >>> csv_text(Table({"a": [1, 2], "c": ["x", "y z"]})) == csv_text(df[["a", "c"]])
    True
    """
    end = lineterminator
    names = list(frame.columns)
    if len(names) < 2 or not all(type(c) is str for c in names):
        return None  # a one-column table quotes empty cells
    if any(ch in "\x00".join(names) for ch in _CSV_SPECIAL):
        return None
    header = ",".join(names)
    fields = []
    table = type(frame).__name__ == "Table"  # numpy columns: no pandas to import
    if not table:
        import numpy as np
        import pandas as pd
    for name in names:
        if table:
            values = frame[name]
        else:
            series = frame[name]
            if isinstance(series, pd.DataFrame):  # duplicate column names
                return None
            dtype = series.dtype
            if not isinstance(dtype, np.dtype) and not isinstance(dtype, pd.StringDtype):
                return None  # categorical, nullable integers, ...
            values = series.to_numpy()
        field = _csv_field(values)
        if field is None:
            return None
        fields.append(field)
    if not len(frame):
        return header + end
    kernel = None
    if compiled is not False:
        from .policies import kernels  # here: writing a table loads no policy module
        kernel = kernels.load(COMPILED_KERNELS[0])
        if compiled and kernel is None:
            raise RuntimeError("csv_text: the compiled kernel is not available")
    if kernel is not None:
        return header + end + kernel.csv_rows(fields, len(frame), end)
    pieces, columns = [], []
    for kind, values in fields:
        piece, cells = _csv_piece(kind, values)
        pieces.append(piece)
        if cells is not None:
            columns.append(cells)
    line = ",".join(pieces) + end
    rows = zip(*columns) if columns else [()] * len(frame)
    return header + end + "".join(map(line.__mod__, rows))


def _zero_stamp(path, compression):
    """``compression`` with gzip's header time stamp 0 where it would be the
    time of writing (gzip named or inferred from ``path``, no ``mtime`` given).

    Examples
    --------
    >>> _zero_stamp("a.csv.gz", "infer"), _zero_stamp("a.csv", "infer")
    ({'method': 'gzip', 'mtime': 0}, 'infer')
    >>> _zero_stamp("a.csv", {"method": "gzip", "mtime": 7})
    {'mtime': 7, 'method': 'gzip'}
    """
    if compression == "infer" and _inferred_compression(str(path)) == "gzip":
        compression = "gzip"
    if compression == "gzip":
        return {"method": "gzip", "mtime": 0}
    if isinstance(compression, dict) and compression.get("method") == "gzip":
        return {"mtime": 0, **compression}
    return compression


def _gzip_args(tmp: Path, compression):
    """GzipFile arguments for ``compression`` (None: no compression; False: a
    kind this module leaves to pandas)."""
    if compression == "infer":
        compression = _inferred_compression(str(tmp))
    if compression is None:
        return None
    if isinstance(compression, dict) and compression.get("method") == "gzip" \
            and set(compression) <= {"method", "mtime", "compresslevel"} \
            and compression.get("compresslevel", 9) != 0:
        # Level 0 stores blocks whose bounds follow the writes: pandas' own.
        return {k: v for k, v in compression.items() if k != "method"}
    return False


#: What pandas' ``compression="infer"`` makes of a file name's suffix
#: (``pandas.io.common.extension_to_compression``, pandas 2; ".tar.gz" is
#: ``tar``, which :func:`_gzip_args` leaves to pandas).
_SUFFIX_COMPRESSION = {".tar": "tar", ".tar.gz": "tar", ".tar.xz": "tar", ".tar.bz2": "tar",
                       ".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}


def _inferred_compression(name: str) -> str | None:
    """The compression pandas infers from a file name, without importing pandas.

    Examples
    --------
    >>> _inferred_compression("a.csv.gz"), _inferred_compression("a.csv"), _inferred_compression("a.tar.gz")
    ('gzip', None, 'tar')
    """
    name = name.lower()
    for suffix, kind in _SUFFIX_COMPRESSION.items():  # ".tar.gz" before ".gz"
        if name.endswith(suffix):
            return kind
    return None


def json_safe(obj):
    """``obj`` with NaN/inf as None and numpy scalars as Python numbers.

    NaN is not JSON; null keeps a missing metric visibly missing.

    Examples
    --------
    >>> json_safe({"a": float("nan"), 1: [2.5]})
    {'a': None, '1': [2.5]}
    """
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return json_safe(obj.item())
    return obj


def write_json(obj, path: str | os.PathLike) -> Path:
    """Write JSON deterministically (sorted keys, indent 2, NaN as null), atomically.

    Examples
    --------
    >>> import os, tempfile
    >>> p = write_json({"b": 1, "a": float("nan")}, os.path.join(tempfile.mkdtemp(), "s.json"))
    >>> p.read_text().split()
    ['{', '"a":', 'null,', '"b":', '1', '}']
    """
    return write_text(path, json.dumps(json_safe(obj), indent=2, sort_keys=True) + "\n")
