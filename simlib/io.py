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

__all__ = ["GZIP", "atomic_path", "atomic_write", "write_text", "write_bytes", "write_csv", "write_json",
           "json_safe"]


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
        The destination.
    mkdir : bool, default True
        Create the destination's parent directories first.

    Yields
    ------
    pathlib.Path
        A path with the same file name as ``path``, in a fresh hidden
        directory beside it; nothing exists there yet.

    Raises
    ------
    FileNotFoundError
        If the block ended without creating the yielded file.

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
    tmpdir = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    tmp = tmpdir / dest.name
    try:
        yield tmp
        if not tmp.exists():
            raise FileNotFoundError(f"{dest}: nothing was written (no {tmp})")
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


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

    The keyword arguments are pandas' own (``index``, ``lineterminator``,
    ``compression`` ...); compression inferred from a ``.gz`` suffix and the
    file name stored in a gzip header are those of ``path``.

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> p = write_csv(pd.DataFrame({"a": [1]}), os.path.join(tempfile.mkdtemp(), "t.csv"),
    ...               index=False)
    >>> p.read_text()
    'a\\n1\\n'
    """
    with atomic_path(path) as tmp:
        text = _plain_csv_text(frame, to_csv_kwargs)
        gzip_args = None if text is None else _gzip_args(tmp, to_csv_kwargs.get("compression", "infer"))
        if gzip_args is False:
            text = None
        if text is None:
            frame.to_csv(tmp, **to_csv_kwargs)
        elif gzip_args is None:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        else:
            import gzip
            with gzip.GzipFile(filename=str(tmp), mode="wb", **gzip_args) as fh:
                fh.write(text.encode("utf-8"))
                # pandas' text wrapper flushes before closing (a sync flush
                # point in the stream): the same bytes as pandas' file.
                fh.flush()
    return Path(path)


# What pandas' csv writer (QUOTE_MINIMAL) quotes a field for (line breaks:
# such cells go to pandas).
_CSV_SPECIALS = (",", '"')


def _csv_field(text: str, specials) -> str:
    if any(c in text for c in specials):
        return '"' + text.replace('"', '""') + '"'
    return text


def _plain_csv_text(frame, kwargs: dict) -> str | None:
    """The text ``frame.to_csv(index=False, ...)`` writes, built column by column,
    or None when the frame or the options are not the plain kind this covers.

    pandas formats every cell through its generic machinery: writing a
    paper K simulation step's per-job tables (240,000 rows) took ~30 % of
    the step, this half of that (``benchmarks/RESULTS.md``). Here:
    float64 cells as ``repr`` (NaN empty), integers and booleans as ``str``,
    strings quoted as the csv module's minimal quoting does (missing values
    empty); a frame with other dtypes, one column, an index to write or
    other options goes to pandas. ``tests/test_io.py`` holds the two equal.
    """
    import numpy as np
    import pandas as pd

    if set(kwargs) - {"index", "lineterminator", "compression"} or kwargs.get("index", True):
        return None
    names = list(frame.columns)
    if len(names) < 2 or frame.columns.nlevels != 1 or not all(isinstance(n, str) for n in names):
        return None
    end = kwargs.get("lineterminator") or os.linesep
    if end not in ("\n", "\r\n") or len(set(names)) < len(names) \
            or "\n" in "".join(names) or "\r" in "".join(names):
        return None
    specials = _CSV_SPECIALS
    columns = []
    for name in names:
        series = frame[name]
        dtype = series.dtype
        if dtype == np.float64:
            columns.append([repr(x) if x == x else "" for x in series.to_numpy().tolist()])
        elif dtype == np.bool_ or (isinstance(dtype, np.dtype) and dtype.kind in "iu"):
            columns.append(list(map(str, series.to_numpy().tolist())))
        elif dtype == np.dtype(object) or isinstance(dtype, pd.StringDtype):
            values = series.to_numpy(dtype=object).tolist()
            out = []
            for x in values:
                if isinstance(x, str):
                    out.append(x)
                elif x is None or (isinstance(x, float) and x != x) or _is_na(x):
                    out.append("")
                else:
                    return None   # mixed objects: pandas' own str() rules
            joined = "\0".join(out)
            if "\n" in joined or "\r" in joined:
                return None   # line breaks in a cell: the csv module's rules vary by version
            if any(c in joined for c in specials):
                out = [_csv_field(x, specials) for x in out]
            columns.append(out)
        else:
            return None
    header = ",".join(_csv_field(n, specials) for n in names)
    if not len(frame):
        return header + end
    return header + end + end.join(map(",".join, zip(*columns))) + end


def _is_na(x) -> bool:
    import pandas as pd
    return x is pd.NA or x is pd.NaT


def _gzip_args(tmp: Path, compression):
    """GzipFile arguments for ``compression`` (None: no compression; False: a
    kind this module leaves to pandas)."""
    if compression == "infer":
        from pandas.io.common import infer_compression
        compression = infer_compression(str(tmp), "infer")
    if compression is None:
        return None
    if compression == "gzip":
        return {}
    if isinstance(compression, dict) and compression.get("method") == "gzip" \
            and set(compression) <= {"method", "mtime", "compresslevel"}:
        return {k: v for k, v in compression.items() if k != "method"}
    return False


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
