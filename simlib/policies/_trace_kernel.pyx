# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled parse of a trace's job lines (SWF and CWF): the readers' fast path.

:func:`table_of` reads whitespace-separated fields, one job a line, into a
float64 matrix, as the readers' pandas path (``read_csv`` with a
whitespace separator, float64 columns) does, and gives up (None) on any line
that path would not read as plain numbers: then the reader takes its
line-by-line path, which names the line and the field at fault. Numbers are
correctly rounded (integers of up to 15 digits exactly by hand, anything
else through Python's own ``float()`` routine, ``PyOS_string_to_double``),
as pandas rounds them. ``tests/test_trace_kernel.py`` compares both paths.

This kernel is kept with the policies' (built the same way, see
:mod:`simlib.policies.kernels`). ``SOURCE_SHA256`` is this file's digest at
build time.
"""
import numpy as np

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    """
    const char* SIMLIB_KERNEL_SOURCE

cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr,
                                 object overflow_exception) except? -1.0

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")

cdef enum:
    # Longest number handed to PyOS_string_to_double (a longer one: None).
    _MAX_TOKEN = 63
    # Integers of up to this many digits are exact in a double (< 2**53).
    _EXACT_DIGITS = 15


cdef inline bint _blank(char c) noexcept nogil:
    return c == b" " or c == b"\t"


cdef inline bint _digit(char c) noexcept nogil:
    return b"0" <= c <= b"9"


cdef int _number(const char *s, Py_ssize_t n, double *out) except -1:
    """Parse ``[+-]?(\\d+(\\.\\d*)?|\\.\\d+)`` (the readers' number); 0 when it is not one."""
    cdef Py_ssize_t j = 0, before = 0, after = 0
    cdef bint negative = False, dot = False
    cdef long long whole = 0
    cdef char buf[_MAX_TOKEN + 1]
    cdef char *end
    if n > 0 and (s[0] == b"+" or s[0] == b"-"):
        negative = s[0] == b"-"
        j = 1
    while j < n and _digit(s[j]):
        if before < 18:
            whole = whole * 10 + (s[j] - 48)
        before += 1
        j += 1
    if j < n and s[j] == b".":
        dot = True
        j += 1
        while j < n and _digit(s[j]):
            after += 1
            j += 1
    if j != n or (before == 0 and after == 0):
        return 0
    if not dot and before <= _EXACT_DIGITS:
        out[0] = <double> whole
        if negative:
            out[0] = -out[0]   # "-0" is -0.0, as float("-0")
        return 1
    if n > _MAX_TOKEN:
        return 0
    for j in range(n):
        buf[j] = s[j]
    buf[n] = 0
    out[0] = PyOS_string_to_double(buf, &end, None)
    return 1 if end == buf + n else 0


def table_of(bytes body, Py_ssize_t n_fields, Py_ssize_t text_field=-1):
    """The job lines of ``body`` as a float64 matrix, or None.

    Parameters
    ----------
    body : bytes
        The job lines, ``\\n``-separated, fields separated by spaces or tabs;
        blank lines are skipped.
    n_fields : int
        Fields on every line (a line with another count: None).
    text_field : int, default -1
        A field read as text (CWF's request type): its tokens as str, its
        column NaN; -1: none.

    Returns
    -------
    (ndarray, list of str or None) or None
        ``(values, texts)``: ``values`` of shape (lines, ``n_fields``);
        None when a field is not a plain decimal number (or is one longer
        than 63 characters with a point or over 15 digits), or a line has
        another number of fields.

    Examples
    --------
    >>> values, texts = table_of(b"1 -2.5 S\\n\\n  3 4 ET\\n", 3, 2)
    >>> values.tolist()[0][:2], values.tolist()[1][:2], texts
    ([1.0, -2.5], [3.0, 4.0], ['S', 'ET'])
    >>> table_of(b"1 2\\n3\\n", 2) is None, table_of(b"1 2e3\\n", 2) is None
    (True, True)
    """
    cdef const char *p = body
    cdef Py_ssize_t size = len(body), i = 0, start, k, row = 0
    cdef double value
    values = np.empty((body.count(b"\n") + 1, max(n_fields, 1)), dtype=np.float64)
    cdef double[:, ::1] v = values
    texts = [] if text_field >= 0 else None
    while i < size:
        k = 0
        while True:
            while i < size and _blank(p[i]):
                i += 1
            if i >= size or p[i] == b"\n":
                i += 1
                break
            start = i
            while i < size and not _blank(p[i]) and p[i] != b"\n":
                i += 1
            if k >= n_fields:
                return None
            if k == text_field:
                texts.append(p[start:i].decode("ascii", "replace"))
                v[row, k] = float("nan")
            elif _number(p + start, i - start, &value):
                v[row, k] = value
            else:
                return None
            k += 1
        if k == 0:
            continue   # a blank line
        if k != n_fields:
            return None
        row += 1
    return values[:row], texts
