"""Shared assertion of the project's rule for bad input: file, line, field and reason."""
from __future__ import annotations

import pytest

from simlib.errors import TraceFormatError


def assert_names_where(read, path, line, field, reason) -> TraceFormatError:
    """``read(path)`` raises a TraceFormatError naming ``path``, ``line``, ``field``, with
    ``reason`` in its words, and a message that starts ``path:line:``; returns the error."""
    with pytest.raises(TraceFormatError) as info:
        read(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field), str(err)
    assert reason in err.reason, str(err)
    assert str(err).startswith(f"{path}:{line}:" if line is not None else f"{path}:"), str(err)
    return err
