"""Whole-process wall time and peak memory of one command, by ``/usr/bin/time -v``."""
from __future__ import annotations

import re
import subprocess


def time_v(cmd: list[str], **kwargs) -> tuple[float, int]:
    """``(wall seconds, peak resident KiB)`` of ``cmd``; RuntimeError with its stderr if it fails.

    ``kwargs`` go to :func:`subprocess.run` (``env``, ``cwd``).
    """
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True,
                          **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr)[1]
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    return seconds, int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)[1])
