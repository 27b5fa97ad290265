"""Tests of simlib.workload.fetch: manifest, checksum, sources, copy and download."""
from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.server
import io
import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers_signals import ctrl_c_when, popen_with_ctrl_c

from simlib.errors import ChecksumError, ConfigError, SimlibError
from simlib.errors import TraceFormatError
from simlib.workload import fetch as P

REPO_MANIFEST = Path(__file__).resolve().parents[1] / "config" / "traces_manifest.tsv"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"

# --------------------------------------------------------------------------
# Manifest and checksum
# --------------------------------------------------------------------------

MANIFEST_HEADER = "\t".join(P.MANIFEST_COLUMNS)
SWF_TEXT = b"; Version: 2.2\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"


def write_manifest(path: Path, rows: list[tuple]) -> Path:
    lines = [MANIFEST_HEADER] + ["\t".join(str(v) for v in r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def manifest_for(name: str, content: bytes) -> dict[str, P.ManifestEntry]:
    sha = hashlib.sha256(content).hexdigest()
    return {name: P.ManifestEntry(name, 1, 1, 1, sha, 0, "test")}


def test_read_manifest_of_the_repository():
    m = P.read_manifest(REPO_MANIFEST)
    assert len(m) == 6
    kth = m[KTH]
    assert (kth.jobs_in_file, kth.header_maxjobs, kth.maxprocs) == (28476, 28490, 100)
    assert kth.sha256_uncompressed.startswith("fba36494c4e4")
    assert m["CEA-Curie-2011-2.1-cln.swf.gz"].maxprocs == 93312


def test_read_manifest_parses_and_lowercases(tmp_path):
    sha = "AB" * 32
    path = write_manifest(tmp_path / "M.tsv", [("a.swf.gz", 3, 4, 5, sha, 6, "here")])
    m = P.read_manifest(path)
    assert m == {"a.swf.gz": P.ManifestEntry("a.swf.gz", 3, 4, 5, "ab" * 32, 6, "here")}


@pytest.mark.parametrize("rows, line, field", [
    ([("a", 1, 1, 1, "0" * 64, 1, "s"), ("b", "x", 1, 1, "0" * 64, 1, "s")], 3, "jobs_in_file"),
    ([("a", 1, 1, 1, "zz", 1, "s")], 2, "sha256_uncompressed"),
    ([("a", 1, 1, 1, "0" * 64, 1, "s"), ("a", 1, 1, 1, "0" * 64, 1, "s")], 3, "file"),
    ([("a", 1, 1, 1, "0" * 64, 1)], 2, None),
])
def test_read_manifest_errors_name_line(tmp_path, rows, line, field):
    path = write_manifest(tmp_path / "M.tsv", rows)
    with pytest.raises(TraceFormatError) as info:
        P.read_manifest(path)
    assert info.value.line == line and info.value.field == field
    assert str(path) in str(info.value)


def test_read_manifest_missing_column(tmp_path):
    path = tmp_path / "M.tsv"
    path.write_text("file\tjobs_in_file\n")
    with pytest.raises(TraceFormatError, match="header_maxjobs"):
        P.read_manifest(path)


def test_verify_sha256_plain_and_gzip(tmp_path):
    sha = hashlib.sha256(SWF_TEXT).hexdigest()
    plain = tmp_path / "t.swf"
    plain.write_bytes(SWF_TEXT)
    packed = tmp_path / "t.bin"  # gzip recognised by content, not by name
    packed.write_bytes(gzip.compress(SWF_TEXT))
    assert P.verify_sha256(plain, sha) == sha
    assert P.verify_sha256(packed, sha.upper()) == sha


def test_verify_sha256_mismatch_names_file_expected_actual(tmp_path):
    packed = tmp_path / "t.swf.gz"
    packed.write_bytes(gzip.compress(SWF_TEXT))
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as info:
        P.verify_sha256(packed, wrong)
    msg = str(info.value)
    assert str(packed) in msg and wrong in msg and hashlib.sha256(SWF_TEXT).hexdigest() in msg
    assert info.value.actual == hashlib.sha256(SWF_TEXT).hexdigest()


def test_verify_sha256_truncated_gzip(tmp_path):
    packed = tmp_path / "t.swf.gz"
    packed.write_bytes(gzip.compress(SWF_TEXT * 50)[:-20])
    with pytest.raises(ChecksumError, match="t.swf.gz"):
        P.verify_sha256(packed, hashlib.sha256(SWF_TEXT * 50).hexdigest())


@pytest.mark.real_traces
def test_verify_sha256_real_kth(real_traces):
    m = P.read_manifest(REPO_MANIFEST)
    assert P.verify_sha256(real_traces / KTH, m[KTH].sha256_uncompressed) == m[KTH].sha256_uncompressed


# --------------------------------------------------------------------------
# fetch_trace: local directory and HTTP
# --------------------------------------------------------------------------

NAME = "small.swf.gz"


@pytest.fixture
def served_dir(tmp_path):
    d = tmp_path / "srv"
    d.mkdir()
    (d / NAME).write_bytes(gzip.compress(SWF_TEXT))
    return d


@pytest.fixture
def http_base(served_dir, monkeypatch):
    """Base URL of a local HTTP server (127.0.0.1, ephemeral port) serving served_dir."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    with serving(functools.partial(Quiet, directory=str(served_dir))) as url:
        yield url


@pytest.fixture
def proxyless(monkeypatch):
    """No proxy from the environment: the local servers are reached directly."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_nothing_left(dest: Path):
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []  # no temporary file either


def test_fetch_local_success(served_dir, tmp_path):
    dest = tmp_path / "out" / "sub" / "kth.swf.gz"
    got = P.fetch_trace(NAME, served_dir, dest, manifest_for(NAME, SWF_TEXT))
    assert got == dest
    assert dest.read_bytes() == (served_dir / NAME).read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["kth.swf.gz"]


def test_fetch_local_file_url(served_dir, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    P.fetch_trace(NAME, served_dir.as_uri(), dest, manifest_for(NAME, SWF_TEXT))
    assert gzip.decompress(dest.read_bytes()) == SWF_TEXT


def test_fetch_local_missing(served_dir, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    (served_dir / NAME).unlink()
    with pytest.raises(P.TraceNotFoundError, match=NAME) as info:
        P.fetch_trace(NAME, served_dir, dest, manifest_for(NAME, SWF_TEXT))
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, SimlibError)
    assert_nothing_left(dest)


def test_fetch_local_wrong_checksum(served_dir, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    with pytest.raises(ChecksumError, match="expected") as info:
        P.fetch_trace(NAME, served_dir, dest, manifest_for(NAME, b"other content"))
    assert info.value.expected == hashlib.sha256(b"other content").hexdigest()
    assert_nothing_left(dest)


def test_fetch_failure_keeps_existing_dest(served_dir, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    dest.parent.mkdir()
    dest.write_bytes(b"previous")
    with pytest.raises(ChecksumError):
        P.fetch_trace(NAME, served_dir, dest, manifest_for(NAME, b"other content"))
    assert dest.read_bytes() == b"previous"
    assert [p.name for p in dest.parent.iterdir()] == ["t.swf.gz"]


def test_fetch_unknown_name_and_scheme(served_dir, tmp_path):
    with pytest.raises(ConfigError, match="not in the manifest"):
        P.fetch_trace("nope.swf.gz", served_dir, tmp_path / "x", manifest_for(NAME, SWF_TEXT))
    with pytest.raises(ConfigError, match="ftp"):
        P.fetch_trace(NAME, "ftp://example.invalid/", tmp_path / "x", manifest_for(NAME, SWF_TEXT))


def test_fetch_http_success(http_base, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    P.fetch_trace(NAME, http_base + "/", dest, manifest_for(NAME, SWF_TEXT), stall_timeout=5)
    assert gzip.decompress(dest.read_bytes()) == SWF_TEXT
    assert [p.name for p in dest.parent.iterdir()] == ["t.swf.gz"]


def test_fetch_http_url_template(http_base, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    P.fetch_trace(NAME, http_base + "/{file}", dest, manifest_for(NAME, SWF_TEXT), stall_timeout=5)
    assert dest.exists()


def test_fetch_http_wrong_checksum(http_base, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    with pytest.raises(ChecksumError) as info:
        P.fetch_trace(NAME, http_base, dest, manifest_for(NAME, b"x"), stall_timeout=5)
    assert f"{http_base}/{NAME}" in str(info.value)
    assert hashlib.sha256(SWF_TEXT).hexdigest() in str(info.value)
    assert_nothing_left(dest)


def test_fetch_http_missing_file(http_base, tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    name = "absent.swf.gz"
    with pytest.raises(P.TraceNotFoundError, match="404") as info:
        P.fetch_trace(name, http_base, dest, manifest_for(name, SWF_TEXT), stall_timeout=5)
    assert f"{http_base}/{name}" in str(info.value)
    assert_nothing_left(dest)


def test_fetch_http_connection_refused(tmp_path):
    dest = tmp_path / "out" / "t.swf.gz"
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(P.TraceDownloadError) as info:
        P.fetch_trace(NAME, url, dest, manifest_for(NAME, SWF_TEXT), stall_timeout=5)
    assert isinstance(info.value, ConnectionError) and isinstance(info.value, SimlibError)
    assert url in str(info.value) and "refused" in str(info.value).lower()
    assert_nothing_left(dest)


@contextlib.contextmanager
def serving(handler):
    """Base URL of a local HTTP server (127.0.0.1, ephemeral port) running ``handler``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True  # a handler still trickling does not hold the test up
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class Trickle(http.server.BaseHTTPRequestHandler):
    """Announces 1,000 bytes and sends one every 0.2 s (headers first, or not)."""

    headers_first = True

    def do_GET(self):
        if self.headers_first:
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            data = b"x" * 1000
        else:  # the status line and headers themselves, byte by byte
            data = b"HTTP/1.0 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000
        try:
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:  # the client gave up
            pass

    def log_message(self, *args):
        pass


class TrickleHeaders(Trickle):
    headers_first = False


@pytest.mark.parametrize("handler", [Trickle, TrickleHeaders])
def test_a_trickling_server_hits_the_deadline(tmp_path, handler, proxyless):
    # Each byte comes well within the stall timeout: only the deadline ends it.
    with serving(handler) as url:
        dest = tmp_path / "out" / "t.swf.gz"
        t0 = time.monotonic()
        with pytest.raises(P.TraceDownloadError) as info:
            P.fetch_trace(NAME, url, dest, manifest_for(NAME, SWF_TEXT), deadline=1,
                          stall_timeout=5)
        took = time.monotonic() - t0
    message = str(info.value)
    assert message.startswith(f"{url}/{NAME}: not complete within the deadline of 1 s "
                              "(traces.download.deadline) after ")
    assert message.endswith(" bytes; nothing was kept") and "\n" not in message
    assert 0.9 < took < 3
    assert_nothing_left(dest)


def test_a_hanging_server_hits_the_stall_timeout(tmp_path, proxyless):
    # A listening socket that never answers: connect succeeds, no byte ever comes.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        dest = tmp_path / "out" / "t.swf.gz"
        t0 = time.monotonic()
        with pytest.raises(P.TraceDownloadError) as info:
            P.fetch_trace(NAME, url, dest, manifest_for(NAME, SWF_TEXT), deadline=30,
                          stall_timeout=0.5)
        took = time.monotonic() - t0
    assert str(info.value) == (f"{url}/{NAME}: no data for 0.5 s "
                               "(traces.download.stall_timeout) after 0 bytes; nothing was kept")
    assert 0.4 < took < 3
    assert_nothing_left(dest)


class Stall(Trickle):
    """Sends half the body, then nothing (keeping the connection open)."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"x" * 500)
        self.wfile.flush()
        time.sleep(3)


def test_a_body_that_stops_coming_hits_the_stall_timeout(tmp_path, proxyless):
    with serving(Stall) as url:
        dest = tmp_path / "out" / "t.swf.gz"
        with pytest.raises(P.TraceDownloadError) as info:
            P.fetch_trace(NAME, url, dest, manifest_for(NAME, SWF_TEXT), deadline=30,
                          stall_timeout=0.5)
    assert str(info.value) == (f"{url}/{NAME}: no data for 0.5 s "
                               "(traces.download.stall_timeout) after 500 bytes; nothing was kept")
    assert_nothing_left(dest)


def test_fetch_catalog_trace_takes_its_limits_from_the_config(tmp_path, proxyless):
    with serving(Trickle) as url:
        traces = catalog_setup(tmp_path / "repo", url)
        traces["download"] = {"deadline": 0.5}
        with pytest.raises(P.TraceDownloadError, match="deadline of 0.5 s"):
            P.fetch_catalog_trace("T", traces, tmp_path / "out" / "T.swf.gz",
                                  repo=tmp_path / "repo", stream=io.StringIO())
    assert_nothing_left(tmp_path / "out" / "T.swf.gz")
    traces["download"] = {"deadline": 60, "stall_timeout": -1}
    with pytest.raises(ConfigError, match=r"traces\.download\.stall_timeout: must be a number "
                                          r"of seconds > 0, got -1"):
        P.fetch_catalog_trace("T", traces, tmp_path / "x", repo=tmp_path / "repo",
                              stream=io.StringIO())


def test_fetch_http_interrupted_transfer(tmp_path):
    # A server that announces more bytes than it sends, then hangs up.
    body = gzip.compress(SWF_TEXT)

    class Cut(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) + 5000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Cut)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        dest = tmp_path / "out" / "t.swf.gz"
        with pytest.raises(P.TraceDownloadError, match="interrupted") as info:
            P.fetch_trace(NAME, url, dest, manifest_for(NAME, SWF_TEXT), stall_timeout=5)
        assert f"{url}/{NAME}" in str(info.value)
        assert_nothing_left(dest)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_fetch_reports_download_progress(http_base, tmp_path):
    calls = []
    P.fetch_trace(NAME, http_base, tmp_path / "t.swf.gz", manifest_for(NAME, SWF_TEXT),
                  stall_timeout=5, progress=lambda done, total: calls.append((done, total)))
    size = len(gzip.compress(SWF_TEXT))
    assert calls[0] == (0, (served_size := calls[-1][1])) and calls[-1] == (served_size, served_size)
    assert served_size == (tmp_path / "t.swf.gz").stat().st_size
    assert abs(served_size - size) < 64  # same content, maybe another gzip header


def test_fetch_a_directory_is_a_clear_error(served_dir, tmp_path):
    (served_dir / "dir.swf.gz").mkdir()
    with pytest.raises(P.TraceNotFoundError, match="is a directory"):
        P.fetch_trace("dir.swf.gz", served_dir, tmp_path / "out" / "d.swf.gz",
                      manifest_for("dir.swf.gz", SWF_TEXT))
    assert_nothing_left(tmp_path / "out" / "d.swf.gz")


# --------------------------------------------------------------------------
# fetch_catalog_trace: the pipeline's fetch step
# --------------------------------------------------------------------------

def catalog_setup(repo: Path, source: str, **entry) -> dict:
    """A repository with a manifest pinning NAME, and its config's traces section."""
    sha = hashlib.sha256(SWF_TEXT).hexdigest()
    (repo / "config").mkdir(parents=True)
    write_manifest(repo / "config" / "M.tsv", [(NAME, 1, 1, 1, sha, 2_500_000, "test")])
    return {"catalog": {"T": {"file": NAME, **entry}}, "source": source,
            "manifest": "config/M.tsv", "local_dirs": []}


def test_fetch_catalog_trace_copies_from_a_local_dir(served_dir, tmp_path, caplog):
    traces = catalog_setup(tmp_path / "repo", str(served_dir))
    out = io.StringIO()
    log = logging.getLogger(__name__)
    caplog.set_level(logging.INFO, logger=log.name)
    dest = tmp_path / "data" / "T.swf.gz"
    got = P.fetch_catalog_trace("T", traces, dest, repo=tmp_path / "repo", stream=out, log=log)
    assert got == dest and dest.read_bytes() == (served_dir / NAME).read_bytes()
    sha = hashlib.sha256(SWF_TEXT).hexdigest()
    line = (f"trace T: copying {NAME} (2.5 MB) from {served_dir}, local directory {served_dir} "
            f"[traces.source names it]; pinned sha256 {sha}")
    assert out.getvalue() == line + "\n"  # no progress for a copy
    assert caplog.messages == [line, f"verified and written to {dest}"]


def test_fetch_catalog_trace_downloads_with_progress(http_base, tmp_path):
    # auto without a local copy: the archive, i.e. the entry's pwa_url.
    traces = catalog_setup(tmp_path / "repo", "auto", pwa_url=http_base + "/")
    out = io.StringIO()
    dest = tmp_path / "T.swf.gz"
    P.fetch_catalog_trace("T", traces, dest, repo=tmp_path / "repo", environ={}, stream=out)
    assert gzip.decompress(dest.read_bytes()) == SWF_TEXT
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"trace T: downloading {NAME} (2.5 MB) from {http_base}/, "
                               "the Parallel Workloads Archive [no local copy")
    assert lines[-1].startswith(f"{NAME}: ") and lines[-1].endswith("(100 %)")


def test_fetch_catalog_trace_errors_leave_nothing(served_dir, tmp_path):
    traces = catalog_setup(tmp_path / "repo", str(served_dir))
    traces["catalog"]["U"] = {"file": "unpinned.swf.gz"}
    with pytest.raises(ConfigError, match=r"traces\.catalog\.U\.file: 'unpinned\.swf\.gz' has no "
                                          r"pinned sha256 in config/M\.tsv"):
        P.fetch_catalog_trace("U", traces, tmp_path / "out" / "U.swf.gz", repo=tmp_path / "repo",
                              stream=io.StringIO())
    (served_dir / NAME).write_bytes(gzip.compress(b"other content"))
    with pytest.raises(ChecksumError):
        P.fetch_catalog_trace("T", traces, tmp_path / "out" / "T.swf.gz", repo=tmp_path / "repo",
                              stream=io.StringIO())
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []
    # The archive as source, but the entry names no page there.
    traces = catalog_setup(tmp_path / "repo2", "pwa")
    with pytest.raises(ConfigError, match=r"traces\.catalog\.T\.pwa_url"):
        P.fetch_catalog_trace("T", traces, tmp_path / "x", repo=tmp_path / "repo2",
                              stream=io.StringIO())


# --------------------------------------------------------------------------
# The pipeline's fetch step (workflow/scripts/fetch_trace.py), as Snakemake runs it
# --------------------------------------------------------------------------

SCRIPTS = Path(__file__).resolve().parents[1] / "workflow" / "scripts"

#: Runs an entry-point script the way Snakemake's ``script:`` directive does:
#: its directory on sys.path, a ``snakemake`` object in its globals.
_DRIVER = """
import json, runpy, sys, types
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["scripts"])
wildcards = types.SimpleNamespace(**spec["wildcards"])
wildcards.items = lambda: spec["wildcards"].items()
snakemake = types.SimpleNamespace(rule=spec["rule"], wildcards=wildcards, config=spec["config"],
                                  output=spec["output"], log=spec["log"], scriptdir=spec["scripts"])
runpy.run_path(spec["script"], init_globals={"snakemake": snakemake}, run_name="__main__")
"""


def start_fetch_step(tmp_path, traces, script=SCRIPTS / "fetch_trace.py"
                     ) -> tuple[subprocess.Popen, Path, Path]:
    """The fetch step of trace T in a subprocess: (process, its output, its log file)."""
    dest, log = tmp_path / "data" / "T.swf.gz", tmp_path / "logs" / "fetch.T.log"
    spec = {"scripts": str(SCRIPTS), "script": str(script),
            "rule": "fetch_trace", "wildcards": {"trace": "T"}, "config": {"traces": traces},
            "output": [str(dest)], "log": [str(log)]}
    proc = popen_with_ctrl_c([sys.executable, "-c", _DRIVER, json.dumps(spec)], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, dest, log


def test_a_failed_download_in_the_pipeline_step_is_one_line(tmp_path, proxyless):
    with serving(Trickle) as url:
        traces = catalog_setup(tmp_path / "repo", url + "/")
        traces["manifest"] = str(tmp_path / "repo" / "config" / "M.tsv")  # absolute
        traces["download"] = {"deadline": 0.5, "stall_timeout": 5}
        proc, dest, log = start_fetch_step(tmp_path, traces)
        out, err = proc.communicate(timeout=60)
    lines = err.splitlines()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and lines[0].startswith("trace T: downloading")
    assert lines[-1] == (f"fetch_trace: {url}/{NAME}: not complete within the deadline of 0.5 s "
                         f"(traces.download.deadline) after {lines[-1].split(' after ')[1]}")
    assert lines[-1].endswith(" bytes; nothing was kept")
    # The log file (which the profile shows on failure) says the same, no traceback either.
    text = log.read_text()
    assert "Traceback" not in text and f"ERROR failed: TraceDownloadError: {url}/{NAME}" in text
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_ctrl_c_of_the_pipeline_step_is_one_line_and_exit_130(tmp_path, proxyless):
    with socket.socket() as listener:   # a server that never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        traces = catalog_setup(tmp_path / "repo", url)
        traces["manifest"] = str(tmp_path / "repo" / "config" / "M.tsv")
        proc, dest, log = start_fetch_step(tmp_path, traces)
        out, err = ctrl_c_when(proc, lambda: log.exists() and "downloading" in log.read_text())
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "fetch_trace: interrupted" and "Traceback" not in err
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_ctrl_c_during_a_steps_imports_is_one_line(tmp_path):
    # As if Ctrl-C landed while a script imports simlib, before job_log.
    script = tmp_path / "step.py"
    script.write_text("from _common import job_log\nraise KeyboardInterrupt\n")
    proc, _, _ = start_fetch_step(tmp_path, {}, script)
    _, err = proc.communicate(timeout=60)
    # The interpreter ends itself by SIGINT, as shells expect (they report 130).
    assert (proc.returncode, err) == (-signal.SIGINT, "fetch_trace: interrupted\n")


# --------------------------------------------------------------------------
# Where traces come from
# --------------------------------------------------------------------------

def test_auto_prefers_the_environment_variable(tmp_path):
    env_dir, local = tmp_path / "env", tmp_path / "local"
    env_dir.mkdir(), local.mkdir()
    src = P.resolve_source("auto", repo=tmp_path, local_dirs=["local"],
                           environ={P.SOURCE_ENV: str(env_dir)})
    assert (src.kind, src.location) == ("dir", str(env_dir))
    assert "SIMLIB_TRACES" in src.reason and not src.is_remote


def test_auto_uses_the_first_existing_local_dir(tmp_path):
    (tmp_path / "second").mkdir()
    src = P.resolve_source("auto", repo=tmp_path, local_dirs=["first", "second"], environ={})
    assert (src.kind, src.location) == ("dir", str((tmp_path / "second").resolve()))
    assert "second exists" in src.reason


def test_auto_falls_back_to_the_archive(tmp_path):
    src = P.resolve_source("auto", repo=tmp_path, local_dirs=["nowhere"], environ={})
    assert src.kind == "pwa" and src.is_remote
    assert "SIMLIB_TRACES unset" in src.reason and "nowhere" in src.reason
    assert src.base_for("https://archive.example/l_x/", "X") == "https://archive.example/l_x/"
    with pytest.raises(ConfigError, match="traces.catalog.X.pwa_url"):
        src.base_for(None, "X")


def test_bad_sources_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="SIMLIB_TRACES.*not a directory"):
        P.resolve_source("auto", repo=tmp_path, environ={P.SOURCE_ENV: str(tmp_path / "no")})
    with pytest.raises(ConfigError, match="is not a directory"):
        P.resolve_source("missing-dir", repo=tmp_path, environ={})
    with pytest.raises(ConfigError, match="ftp"):
        P.resolve_source("ftp://example.invalid/", repo=tmp_path, environ={})


def test_explicit_sources(tmp_path):
    assert P.resolve_source(".", repo=tmp_path, environ={}).location == str(tmp_path / ".")
    assert P.resolve_source(tmp_path.as_uri(), repo="/", environ={}).location == str(tmp_path)
    assert P.resolve_source("http://h.example/t/", repo=tmp_path).kind == "url"
    # An explicit setting wins over the environment variable.
    assert P.resolve_source("pwa", repo=tmp_path, environ={P.SOURCE_ENV: "/"}).kind == "pwa"


def test_check_reachable(tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        P.check_reachable(f"http://127.0.0.1:{listener.getsockname()[1]}/x", timeout=2)
    port = closed_port()
    with pytest.raises(P.TraceDownloadError, match=f"cannot reach 127.0.0.1:{port}"):
        P.check_reachable(f"http://127.0.0.1:{port}/x", timeout=2)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_text_progress_in_a_log_writes_one_line_per_tenth():
    out = io.StringIO()
    p = P.TextProgress("f.swf.gz", out)
    for done in range(0, 100_001, 1000):
        p(done, 100_000)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1] == "f.swf.gz: 100.0 kB of 100.0 kB (100 %)"


def test_text_progress_on_a_terminal_redraws_one_line():
    out = _Terminal()
    p = P.TextProgress("f.swf.gz", out)
    p(0, 2_000_000)
    p(2_000_000, 2_000_000)
    p.close()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert text.count("\r") == 2 and "[" + "#" * 30 + "]" in text and "2.0 MB of 2.0 MB" in text
