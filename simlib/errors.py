"""Exception types shared across simlib.

Every error raised for bad *input* (a trace, a config file) names where the
problem is, so a user can fix the file without a debugger.
"""
from __future__ import annotations


class SimlibError(Exception):
    """Base class of all simlib errors."""


class TraceFormatError(SimlibError, ValueError):
    """A workload file (SWF, CWF) is malformed.

    Parameters
    ----------
    path : str
        File the problem is in.
    line : int or None
        1-based line number, ``None`` when the problem is not tied to a line.
    field : str or None
        Name of the offending field (SWF vocabulary), if any.
    reason : str
        What is wrong, in words.
    """

    def __init__(self, path, line, field, reason):
        self.path = str(path)
        self.line = line
        self.field = field
        self.reason = reason
        where = self.path if line is None else f"{self.path}:{line}"
        what = f" field {field!r}:" if field else ""
        super().__init__(f"{where}:{what} {reason}")


class ChecksumError(SimlibError):
    """A trace file does not match its pinned sha256."""


class ConfigError(SimlibError, ValueError):
    """A configuration is invalid (unknown policy, trace, bad value...)."""


class SimulationError(SimlibError, RuntimeError):
    """The engine reached an impossible state (e.g. an invariant failed)."""
