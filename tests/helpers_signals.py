"""Shared helpers for tests that press Ctrl-C on a real subprocess."""
from __future__ import annotations

import signal
import subprocess
import time


def popen_with_ctrl_c(args, **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(args, **kwargs)`` with SIGINT as a terminal leaves it:
    a run started in the background (CI under ``nohup ... &``) inherits it
    ignored, and Python keeps it so."""
    return subprocess.Popen(args, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            **kwargs)


def ctrl_c_when(proc: subprocess.Popen, ready, *, wait: float = 60.0) -> tuple[str, str]:
    """Send SIGINT to ``proc`` once ``ready()`` is true (it must not end first,
    nor take more than ``wait`` seconds); return its ``(stdout, stderr)``."""
    try:
        deadline = time.monotonic() + wait
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=30)
    finally:
        proc.kill()
