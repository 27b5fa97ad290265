"""Obtaining a trace: where it comes from, download, verification.

Traces are never committed to the project.  The pipeline's ``fetch_trace``
rule (and anybody calling :func:`fetch_trace`) gets each Parallel Workloads
Archive (PWA) log from a *source* and verifies it against the sha256 pinned
in a manifest (``config/traces_manifest.tsv``, a copy of
``shared/traces/MANIFEST.tsv``) before it is used.

Sources
-------
``traces.source`` in the config is one of

* ``auto`` (the default): :func:`resolve_source` picks, in this order,
  the directory named by the environment variable ``SIMLIB_TRACES``;
  the first existing directory of ``traces.local_dirs`` (default
  ``../shared/traces`` beside the repository, as on the project's own
  machines and in CI); otherwise the PWA, each trace from its catalog
  ``pwa_url``;
* a local directory holding the trace files (relative to the repository);
* an ``http(s)://`` base URL under which every trace file lies (or a URL
  template containing ``{file}``);
* ``pwa``: always the archive.

A chosen local directory is used as it is: a trace missing there is an
error, never a silent download.

Integrity
---------
The bytes are written to a temporary file next to the destination,
verified, and only then renamed into place (atomic on one file system).
Any failure -- wrong checksum, missing file, refused connection, a
download past its deadline or stalled (``traces.download``), a transfer cut
short -- removes the temporary file, so no partial trace is
ever left behind, and an existing destination is left untouched.  The
pinned sha256 is of the *uncompressed* SWF text, so a log recompressed by
the archive still verifies.

Examples
--------
>>> src = resolve_source("auto", repo="/nonexistent-repo", environ={})
>>> src.kind, src.reason
('pwa', 'no local copy: SIMLIB_TRACES unset and none of ../shared/traces exists')
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import http.client
import os
import shutil
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from simlib.errors import ChecksumError, ConfigError, SimlibError, TraceFormatError
from simlib.io import atomic_path

__all__ = [
    "MANIFEST_COLUMNS",
    "ManifestEntry",
    "read_manifest",
    "verify_sha256",
    "AUTO",
    "SOURCE_ENV",
    "DEFAULT_LOCAL_DIRS",
    "TraceSource",
    "resolve_source",
    "TraceNotFoundError",
    "TraceDownloadError",
    "check_reachable",
    "DEFAULT_DEADLINE",
    "DEFAULT_STALL_TIMEOUT",
    "download_limits",
    "TextProgress",
    "fetch_trace",
    "fetch_catalog_trace",
]

_CHUNK = 1 << 20  # 1 MiB: streaming hash/copy without holding a trace in memory


# --------------------------------------------------------------------------
# Manifest and checksum
# --------------------------------------------------------------------------

#: Columns of ``MANIFEST.tsv``, in file order.
MANIFEST_COLUMNS: tuple[str, ...] = (
    "file", "jobs_in_file", "header_maxjobs", "maxprocs",
    "sha256_uncompressed", "bytes_gz", "source",
)
_MANIFEST_INT_COLUMNS = ("jobs_in_file", "header_maxjobs", "maxprocs", "bytes_gz")


@dataclass(frozen=True)
class ManifestEntry:
    """One trace pinned in ``MANIFEST.tsv``.

    Attributes
    ----------
    file : str
        File name, e.g. ``"KTH-SP2-1996-2.1-cln.swf.gz"``.
    jobs_in_file : int
        Job records in the file.
    header_maxjobs : int
        ``MaxJobs`` announced by the SWF header (of the uncleaned log).
    maxprocs : int
        ``MaxProcs`` of the header: the machine's processors.
    sha256_uncompressed : str
        Lower-case hex sha256 of the uncompressed SWF text.
    bytes_gz : int
        Size of the gzip file as stored (informative only: another
        compressor gives another size for the same content).
    source : str
        Where the stored copy came from (provenance).
    """

    file: str
    jobs_in_file: int
    header_maxjobs: int
    maxprocs: int
    sha256_uncompressed: str
    bytes_gz: int
    source: str


def read_manifest(path) -> dict[str, ManifestEntry]:
    """Read a trace manifest (tab-separated, one header row).

    Parameters
    ----------
    path : str or path-like
        The ``MANIFEST.tsv`` file; columns :data:`MANIFEST_COLUMNS` (extra
        columns are ignored).

    Returns
    -------
    dict of str to ManifestEntry
        Keyed by file name, in file order.

    Raises
    ------
    TraceFormatError
        Missing column, wrong number of fields, non-integer count, malformed
        sha256 or duplicate file, naming the line.

    Examples
    --------
    >>> m = read_manifest("../shared/traces/MANIFEST.tsv")  # doctest: +SKIP
    >>> m["KTH-SP2-1996-2.1-cln.swf.gz"].maxprocs            # doctest: +SKIP
    100
    """
    path = str(path)
    entries: dict[str, ManifestEntry] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        rows = csv.reader(fh, delimiter="\t")
        header = next(rows, None)
        if header is None:
            raise TraceFormatError(path, 1, None, "empty manifest (no header row)")
        header = [h.strip() for h in header]
        for col in MANIFEST_COLUMNS:
            if col not in header:
                raise TraceFormatError(path, 1, col, f"missing column; header is {header}")
        pos = {col: header.index(col) for col in MANIFEST_COLUMNS}
        for lineno, row in enumerate(rows, start=2):
            if not row or all(not c.strip() for c in row):
                continue  # tolerate blank lines
            if len(row) != len(header):
                raise TraceFormatError(
                    path, lineno, None,
                    f"{len(row)} tab-separated fields, header has {len(header)}")
            values: dict[str, object] = {c: row[pos[c]].strip() for c in MANIFEST_COLUMNS}
            for col in _MANIFEST_INT_COLUMNS:
                try:
                    values[col] = int(values[col])
                except ValueError:
                    raise TraceFormatError(
                        path, lineno, col, f"not an integer: {values[col]!r}") from None
            sha = str(values["sha256_uncompressed"]).lower()
            if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
                raise TraceFormatError(path, lineno, "sha256_uncompressed",
                                       f"not a 64-digit hex sha256: {sha!r}")
            values["sha256_uncompressed"] = sha
            name = str(values["file"])
            if not name:
                raise TraceFormatError(path, lineno, "file", "empty file name")
            if name in entries:
                raise TraceFormatError(path, lineno, "file", f"duplicate entry {name!r}")
            entries[name] = ManifestEntry(**values)
    return entries


def _is_gzip(path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def verify_sha256(path, expected: str) -> str:
    """Check a trace's *uncompressed* content against a pinned sha256.

    A gzip file (recognised by its magic bytes, whatever its name) is hashed
    after decompression, streaming; a plain file is hashed as is.

    Parameters
    ----------
    path : str or path-like
        The trace file.
    expected : str
        Hex sha256 of the uncompressed content (case-insensitive).

    Returns
    -------
    str
        The actual digest (equal to ``expected``, lower case).

    Raises
    ------
    ChecksumError
        Digest mismatch, or a corrupt/truncated gzip stream; the message
        names the file, the expected and the actual digest.  The exception
        carries ``path``, ``expected`` and ``actual`` attributes.

    Examples
    --------
    >>> verify_sha256("KTH-SP2-1996-2.1-cln.swf.gz",
    ...               "fba36494c4e4...")                  # doctest: +SKIP
    """
    expected = expected.strip().lower()
    digest = hashlib.sha256()
    opener = gzip.open if _is_gzip(path) else open
    try:
        with opener(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
    except (EOFError, zlib.error, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        err = ChecksumError(
            f"{path}: cannot hash the uncompressed content ({exc}); "
            f"expected sha256 {expected}, actual: unreadable")
        err.path, err.expected, err.actual = str(path), expected, None
        raise err from exc
    actual = digest.hexdigest()
    if actual != expected:
        err = ChecksumError(
            f"{path}: sha256 of the uncompressed content is {actual}, expected {expected}")
        err.path, err.expected, err.actual = str(path), expected, actual
        raise err
    return actual


# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Where a trace comes from
# --------------------------------------------------------------------------

#: ``traces.source`` value that picks a local copy if there is one, else the PWA.
AUTO = "auto"
#: Environment variable naming a local directory of trace files.
SOURCE_ENV = "SIMLIB_TRACES"
#: Local directories ``auto`` looks in (relative to the repository).
DEFAULT_LOCAL_DIRS: tuple[str, ...] = ("../shared/traces",)


@dataclass(frozen=True)
class TraceSource:
    """A resolved trace source.

    Attributes
    ----------
    kind : {"dir", "url", "pwa"}
        A local directory, one base URL for every file, or each trace's own
        PWA page (catalog ``pwa_url``).
    location : str
        Absolute directory or base URL; empty for ``"pwa"``.
    reason : str
        Why this source was chosen (printed in logs and errors).
    """

    kind: str
    location: str
    reason: str

    @property
    def is_remote(self) -> bool:
        """True when traces are downloaded."""
        return self.kind != "dir"

    def base_for(self, pwa_url: str | None, trace: str = "") -> str:
        """The directory or base URL one trace is fetched from.

        Raises
        ------
        ConfigError
            ``kind == "pwa"`` and the trace has no ``pwa_url``.
        """
        if self.kind != "pwa":
            return self.location
        if not pwa_url:
            raise ConfigError(f"config traces.catalog.{trace}.pwa_url: missing, and the trace "
                              f"source is the Parallel Workloads Archive ({self.reason})")
        return pwa_url

    def describe(self) -> str:
        """One phrase naming the source, e.g. for log lines."""
        where = {"dir": f"local directory {self.location}", "url": f"base URL {self.location}",
                 "pwa": "the Parallel Workloads Archive"}[self.kind]
        return f"{where} [{self.reason}]"


def _absolute(path: str, repo) -> str:
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else Path(repo) / p)


def resolve_source(setting: str, *, repo, local_dirs: Sequence[str] = DEFAULT_LOCAL_DIRS,
                   environ: Mapping[str, str] | None = None) -> TraceSource:
    """Resolve a ``traces.source`` setting to a :class:`TraceSource`.

    Parameters
    ----------
    setting : str
        ``"auto"``, ``"pwa"``, an ``http(s)://`` or ``file://`` URL, or a
        directory (relative to ``repo``).
    repo : path-like
        The repository (the directory holding the Snakefile).
    local_dirs : sequence of str
        Directories ``auto`` tries after ``SIMLIB_TRACES``, relative to
        ``repo``; the first that exists wins.
    environ : mapping, optional
        Environment (default ``os.environ``).

    Returns
    -------
    TraceSource

    Raises
    ------
    ConfigError
        ``SIMLIB_TRACES`` (or an explicit directory) is not a directory,
        or the URL scheme is not supported.

    Examples
    --------
    >>> resolve_source("pwa", repo=".").kind
    'pwa'
    >>> resolve_source("https://example.org/traces/", repo=".").location
    'https://example.org/traces/'
    >>> resolve_source("auto", repo="/r", local_dirs=[], environ={"SIMLIB_TRACES": "/"}).location
    '/'
    """
    environ = os.environ if environ is None else environ
    setting = str(setting).strip()
    if setting == AUTO:
        env = environ.get(SOURCE_ENV, "").strip()
        if env:
            path = _absolute(env, os.getcwd())
            if not Path(path).is_dir():
                raise ConfigError(f"environment {SOURCE_ENV}={env!r}: not a directory; it must name "
                                  "a directory holding the trace files (or unset it to download "
                                  "them from the Parallel Workloads Archive)")
            return TraceSource("dir", path, f"{SOURCE_ENV} is set")
        for d in local_dirs:
            path = _absolute(d, repo)
            if Path(path).is_dir():
                return TraceSource("dir", str(Path(path).resolve()),
                                   f"traces.source is auto and {d} exists")
        tried = ", ".join(local_dirs) or "no local directory configured"
        return TraceSource("pwa", "", f"no local copy: {SOURCE_ENV} unset and none of {tried} exists")
    if setting == "pwa":
        return TraceSource("pwa", "", "traces.source is pwa")
    scheme = urllib.parse.urlsplit(setting).scheme.lower()
    if scheme in ("http", "https"):
        return TraceSource("url", setting, "traces.source is a URL")
    if scheme == "file":
        setting = urllib.request.url2pathname(urllib.parse.urlsplit(setting).path)
    elif "://" in setting:
        raise ConfigError(f"config traces.source: {setting!r}: only auto, pwa, local directories "
                          "and http(s) URLs are supported")
    path = _absolute(setting, repo)
    if not Path(path).is_dir():
        raise ConfigError(f"config traces.source: {path} is not a directory (set it to a directory "
                          f"holding the trace files, to 'auto' or to 'pwa')")
    return TraceSource("dir", path, "traces.source names it")


# --------------------------------------------------------------------------
# Fetching one trace
# --------------------------------------------------------------------------

class TraceNotFoundError(SimlibError, FileNotFoundError):
    """The trace source has no such file (missing local file or HTTP 404)."""


class TraceDownloadError(SimlibError, ConnectionError):
    """A trace could not be downloaded (refused connection, timeout, HTTP
    error, transfer cut short).

    The message names the URL; the underlying error is chained.
    """


def check_reachable(url: str, timeout: float = 10.0) -> None:
    """Open (and close) a TCP connection to the host of ``url``.

    A cheap test, before any job runs, that a download can work at all.

    Raises
    ------
    TraceDownloadError
        Name resolution or connection failed; the message names the host.

    Examples
    --------
    >>> check_reachable("http://127.0.0.1:9/x", timeout=1)  # doctest: +SKIP
    Traceback (most recent call last):
    TraceDownloadError: cannot reach 127.0.0.1:9 (for http://127.0.0.1:9/x): ...
    """
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise TraceDownloadError(f"cannot reach {host}:{port} (for {url}): "
                                 f"{exc.strerror or exc}") from exc


def _human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"  # pragma: no cover


class TextProgress:
    """Download progress for :func:`fetch_trace`, written to a stream.

    On a terminal, one bar redrawn in place (at most every 0.2 s);
    elsewhere (a log file, CI) a line at every tenth of the transfer, so
    logs stay short.

    Parameters
    ----------
    label : str
        Shown before the bar (the file name).
    stream : file-like, default sys.stderr

    Examples
    --------
    >>> import io
    >>> out = io.StringIO(); p = TextProgress("t.swf.gz", out)
    >>> p(0, 1000); p(1000, 1000); p.close()
    >>> out.getvalue().splitlines()[-1]
    't.swf.gz: 1.0 kB of 1.0 kB (100 %)'
    """

    def __init__(self, label: str, stream=None) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = 0.0
        self._tenth = -1
        self._drawn = False

    def __call__(self, done: int, total: int | None) -> None:
        if self.tty:
            now = time.monotonic()
            if now - self._last < 0.2 and (total is None or done < total):
                return
            self._last = now
            if total:
                width = 30
                fill = int(width * done / total)
                bar = "#" * fill + "." * (width - fill)
                text = (f"\r{self.label} [{bar}] {_human_bytes(done)} of "
                        f"{_human_bytes(total)}")
            else:
                text = f"\r{self.label} {_human_bytes(done)}"
            self.stream.write(text)
            self._drawn = True
        else:
            if not total:
                return
            tenth = int(10 * done / total)
            if tenth == self._tenth:
                return
            self._tenth = tenth
            self.stream.write(f"{self.label}: {_human_bytes(done)} of {_human_bytes(total)} "
                              f"({100 * done // total} %)\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line (terminal only)."""
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()


def _trace_url(base: str, name: str) -> str:
    # The PWA keeps each log in its own folder, so a "{file}" template is
    # accepted besides a plain base URL.
    quoted = urllib.parse.quote(name)
    if "{file}" in base:
        return base.replace("{file}", quoted)
    return base.rstrip("/") + "/" + quoted


#: Seconds a whole download may take (connection, headers and body), by default.
DEFAULT_DEADLINE = 1800.0
#: Seconds without a byte received after which a download is given up, by default.
DEFAULT_STALL_TIMEOUT = 60.0


def download_limits(traces: Mapping) -> tuple[float, float]:
    """``(deadline, stall_timeout)`` in seconds from the config's ``traces`` section.

    Read from ``traces.download`` (keys ``deadline`` and ``stall_timeout``,
    defaults :data:`DEFAULT_DEADLINE` and :data:`DEFAULT_STALL_TIMEOUT`).
    The pipeline's config schema checks them before any job runs; this
    checks them again for callers without the schema.

    Raises
    ------
    ConfigError
        A value that is not a number > 0, naming its key.

    Examples
    --------
    >>> download_limits({})
    (1800.0, 60.0)
    >>> download_limits({"download": {"deadline": 5}})
    (5.0, 60.0)
    >>> download_limits({"download": {"stall_timeout": 0}})
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config traces.download.stall_timeout: must be a number of seconds > 0, got 0
    """
    given = traces.get("download") or {}
    limits = []
    for key, default in (("deadline", DEFAULT_DEADLINE), ("stall_timeout", DEFAULT_STALL_TIMEOUT)):
        value = given.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ConfigError(f"config traces.download.{key}: must be a number of seconds > 0, "
                              f"got {value!r}")
        limits.append(float(value))
    return limits[0], limits[1]


class _Deadline:
    """Ends a download at its deadline, whatever it is blocked on.

    A socket timeout bounds each wait for data (the stall timeout), not
    the total: a server sending one byte a second never trips it. At the
    deadline this shuts the download's sockets down from a timer thread,
    which wakes the blocked read at once (it sees the end of the stream or
    an error); :attr:`expired` then tells the cause apart.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> "_Deadline":
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down at the deadline (at once if it has passed)."""
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed
            pass


def _watched(base: type, deadline: _Deadline) -> type:
    """``base`` (an http.client connection class) whose sockets ``deadline`` watches."""
    class Watched(base):
        def connect(self):
            super().connect()
            deadline.watch(self.sock)
    return Watched


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's default opener (proxies, redirects), its connections watched by ``deadline``."""
    class HTTP(urllib.request.HTTPHandler):
        def do_open(self, http_class, req, **kwargs):
            return super().do_open(_watched(http_class, deadline), req, **kwargs)

    class HTTPS(urllib.request.HTTPSHandler):
        def do_open(self, http_class, req, **kwargs):
            return super().do_open(_watched(http_class, deadline), req, **kwargs)

    return urllib.request.build_opener(HTTP, HTTPS)


def _download(url: str, out, deadline: float, stall_timeout: float,
              progress: Callable[[int, int | None], None] | None) -> None:
    done = 0
    with _Deadline(deadline) as watch:
        def late() -> TraceDownloadError:
            return TraceDownloadError(
                f"{url}: not complete within the deadline of {deadline:g} s "
                f"(traces.download.deadline) after {done} bytes; nothing was kept")

        def stalled() -> TraceDownloadError:
            return TraceDownloadError(
                f"{url}: no data for {stall_timeout:g} s (traces.download.stall_timeout) "
                f"after {done} bytes; nothing was kept")

        try:
            # The socket timeout bounds each wait for data: the stall timeout.
            with _opener(watch).open(url, timeout=stall_timeout) as resp:
                length = resp.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                if progress:
                    progress(0, total)
                # read1: what has arrived, at most one wait; read(n) would wait
                # for n bytes, and see the deadline only once they are in.
                while chunk := resp.read1(_CHUNK // 4):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, total)
                if watch.expired:  # the deadline's shutdown looks like the end of the body
                    raise late()
                if total is not None and done < total:
                    raise TraceDownloadError(f"{url}: transfer interrupted after {done} of "
                                             f"{total} bytes; nothing was kept, run again")
        except TraceDownloadError:
            raise
        except urllib.error.HTTPError as exc:
            exc.close()  # it holds the response's socket; the error is chained below
            if exc.code in (404, 410):
                raise TraceNotFoundError(f"{url}: HTTP {exc.code} {exc.reason}: no such trace") from exc
            raise TraceDownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            if watch.expired:
                raise late() from exc
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            if isinstance(reason, TimeoutError):
                raise stalled() from exc
            if isinstance(exc, http.client.IncompleteRead):
                raise TraceDownloadError(f"{url}: transfer interrupted after {done} bytes; "
                                         "nothing was kept, run again") from exc
            if isinstance(exc, urllib.error.URLError):
                raise TraceDownloadError(f"{url}: cannot connect ({exc.reason})") from exc
            raise TraceDownloadError(f"{url}: download failed ({exc!r})") from exc


def fetch_trace(name: str, source, dest, manifest: dict[str, ManifestEntry], *,
                deadline: float = DEFAULT_DEADLINE, stall_timeout: float = DEFAULT_STALL_TIMEOUT,
                progress: Callable[[int, int | None], None] | None = None) -> Path:
    """Copy or download a trace, verify its sha256, and move it into place.

    The bytes are written to a temporary file in ``dest``'s directory,
    verified with :func:`verify_sha256` against the manifest, then renamed
    to ``dest`` atomically.  On any failure the temporary file is removed
    and an existing ``dest`` is left untouched.

    Parameters
    ----------
    name : str
        File name of the trace, a key of ``manifest``.
    source : str, path-like or TraceSource
        A local directory holding ``name``; or an ``http://`` / ``https://``
        base URL (``name`` is appended) or URL template containing
        ``{file}``; ``file://`` URLs are treated as local directories.
        A :class:`TraceSource` of kind ``"pwa"`` is not accepted here:
        pass ``source.base_for(pwa_url)``.
    dest : str or path-like
        Destination file; parent directories are created.
    manifest : dict of str to ManifestEntry
        From :func:`read_manifest`.
    deadline : float, default :data:`DEFAULT_DEADLINE` (1800)
        Seconds a download may take in all: connection, headers and body
        (config ``traces.download.deadline``).
    stall_timeout : float, default :data:`DEFAULT_STALL_TIMEOUT` (60)
        Seconds to wait for a connection, and for the next byte, before
        giving up (config ``traces.download.stall_timeout``).
    progress : callable(done_bytes, total_bytes or None), optional
        Called as a download proceeds (e.g. a :class:`TextProgress`).

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    ConfigError
        ``name`` is not in the manifest, or unsupported URL scheme.
    TraceNotFoundError
        Missing local file or HTTP 404 (a ``FileNotFoundError``).
    TraceDownloadError
        Refused connection, deadline passed, no data for ``stall_timeout``
        seconds, other HTTP error or a transfer cut short (a
        ``ConnectionError``): one line naming the URL and the reason.
    ChecksumError
        Content does not match the pinned sha256.

    Examples
    --------
    >>> m = read_manifest("../shared/traces/MANIFEST.tsv")   # doctest: +SKIP
    >>> fetch_trace("KTH-SP2-1996-2.1-cln.swf.gz", "../shared/traces",
    ...             "results/traces/KTH.swf.gz", m)           # doctest: +SKIP
    PosixPath('results/traces/KTH.swf.gz')
    """
    if name not in manifest:
        raise ConfigError(f"trace {name!r} is not in the manifest; known: {sorted(manifest)}")
    entry = manifest[name]
    dest = Path(dest)
    if isinstance(source, TraceSource):
        source = source.base_for(None, name)
    source = str(source)
    scheme = urllib.parse.urlsplit(source).scheme.lower()
    if scheme == "file":
        source = urllib.request.url2pathname(urllib.parse.urlsplit(source).path)
        scheme = ""
    if scheme not in ("http", "https") and "://" in source:
        raise ConfigError(f"trace source {source!r}: only local directories and http(s) URLs are supported")
    is_url = scheme in ("http", "https")
    where = _trace_url(source, name) if is_url else str(Path(source) / name)

    # On any failure (KeyboardInterrupt too) atomic_path removes the partial
    # file and leaves an existing dest untouched.
    try:
        with atomic_path(dest) as tmp:
            with open(tmp, "wb") as out:
                if is_url:
                    _download(where, out, deadline, stall_timeout, progress)
                else:
                    try:
                        src = open(where, "rb")
                    except FileNotFoundError as exc:
                        raise TraceNotFoundError(
                            f"{where}: no such file (trace {name!r} in local source "
                            f"{source!r})") from exc
                    except IsADirectoryError as exc:
                        raise TraceNotFoundError(f"{where}: is a directory, not a trace file") from exc
                    with src:
                        shutil.copyfileobj(src, out, _CHUNK)
            try:
                verify_sha256(tmp, entry.sha256_uncompressed)
            except ChecksumError as exc:
                err = ChecksumError(
                    f"{where}: trace {name!r} does not match the manifest: sha256 of the "
                    f"uncompressed content is {exc.actual}, expected {exc.expected}")
                err.path, err.expected, err.actual = where, exc.expected, exc.actual
                raise err from None
    finally:
        close = getattr(progress, "close", None)
        if close:
            close()
    return dest


def fetch_catalog_trace(trace: str, traces: Mapping, dest, *, repo,
                        environ: Mapping[str, str] | None = None, stream=None, log=None) -> Path:
    """Fetch one trace of the config's catalog (rule ``fetch_trace``).

    Resolves ``traces["source"]`` (:func:`resolve_source`), says in one
    line what is fetched from where (file, size, source and why it was
    chosen, pinned sha256), then :func:`fetch_trace`, with a
    :class:`TextProgress` when downloading.

    Parameters
    ----------
    trace : str
        Name in ``traces["catalog"]``, whose entry gives ``file`` (a
        manifest name) and, for the archive, ``pwa_url``.
    traces : mapping
        The config's ``traces`` section: ``catalog``, ``source``,
        ``manifest`` (relative to ``repo``), optional ``local_dirs`` and
        ``download`` (``deadline``, ``stall_timeout``: :func:`download_limits`).
    dest : path
        Where the verified trace goes.
    repo : path-like
        The repository: relative paths of the config are relative to it.
    environ : mapping, optional
        Environment for ``auto`` (default ``os.environ``).
    stream : file-like, default sys.stderr
        Gets the line and the download progress: what a user watching
        the run sees.
    log : logging.Logger, optional
        Gets the line and where the file was written.

    Returns
    -------
    pathlib.Path
        ``dest``, now holding the verified trace.

    Raises
    ------
    ConfigError
        The catalog's file has no pinned sha256, or as :func:`resolve_source`.
    TraceNotFoundError, TraceDownloadError, ChecksumError
        As :func:`fetch_trace` (no partial file is left; an existing ``dest`` is kept).

    Examples
    --------
    >>> traces = {"catalog": {"KTH": {"file": "KTH-SP2-1996-2.1-cln.swf.gz"}},
    ...           "source": "../shared/traces", "manifest": "config/traces_manifest.tsv"}
    >>> fetch_catalog_trace("KTH", traces, "data/traces/raw/KTH.swf.gz", repo=".")  # doctest: +SKIP
    PosixPath('data/traces/raw/KTH.swf.gz')
    """
    stream = sys.stderr if stream is None else stream
    deadline, stall_timeout = download_limits(traces)
    manifest = read_manifest(_absolute(traces["manifest"], repo))
    source = resolve_source(traces["source"], repo=repo,
                            local_dirs=traces.get("local_dirs", DEFAULT_LOCAL_DIRS),
                            environ=environ)
    entry = traces["catalog"][trace]
    base = source.base_for(entry.get("pwa_url"), trace)
    name = entry["file"]
    if name not in manifest:
        raise ConfigError(f"config traces.catalog.{trace}.file: {name!r} has no pinned sha256 "
                          f"in {traces['manifest']} (traces.manifest)")
    verb = "downloading" if source.is_remote else "copying"
    message = (f"trace {trace}: {verb} {name} ({manifest[name].bytes_gz / 1e6:.1f} MB) from "
               f"{base}, {source.describe()}; pinned sha256 {manifest[name].sha256_uncompressed}")
    if log is not None:
        log.info("%s", message)
    print(message, file=stream, flush=True)
    progress = TextProgress(name, stream) if source.is_remote else None
    fetch_trace(name, base, dest, manifest, deadline=deadline, stall_timeout=stall_timeout,
                progress=progress)
    if log is not None:
        log.info("verified and written to %s", dest)
    return Path(dest)
