# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled text of jobs tables: the ``allocated_resources`` column and the CSV rows.

:func:`intervals_of` gives what :func:`simlib.runner._intervals_of` (numpy)
gives: each allocation's core ids as sorted blocks of consecutive ids,
``"lo-hi"`` (or ``"c"`` for one core), separated by one space, e.g.
``"0-2 5"``. It reads every allocation's list of ids once, in C; paper K's
per-job tables list ~40 million core ids per step, which the numpy path
first copies through a Python iterator. ``tests/test_intervals_kernel.py``
compares both paths, and :func:`simlib.runner.intervals`, on random
allocations.

:func:`csv_rows` writes the rows of a table of plain columns as
:func:`simlib.io.csv_text` does with ``%``-formats (which is what pandas
writes): integers in decimal, floats as ``repr`` gives them (NaN as the
empty cell), strings as they are. ``tests/test_io.py`` compares both paths
and pandas on random tables.

This kernel is kept with the policies' (built the same way, see
:mod:`simlib.policies.kernels`). ``SOURCE_SHA256`` is this file's digest at
build time.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.mem cimport PyMem_Free
from libc.math cimport fabs, isnan, signbit, trunc
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.stdint cimport int64_t
from libc.string cimport memcpy

cdef extern from "Python.h":
    # float.__repr__ is PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL).
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int *type) except NULL
    int Py_DTSF_ADD_DOT_0
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size) except NULL

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    static int simlib_cmp_ll(const void *a, const void *b) {
        long long x = *(const long long *)a, y = *(const long long *)b;
        return (x > y) - (x < y);
    }
    """
    const char* SIMLIB_KERNEL_SOURCE
    int simlib_cmp_ll(const void *a, const void *b) noexcept nogil

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")


cdef inline Py_ssize_t _decimal(char *out, long long value) noexcept:
    """Write ``value`` in decimal at ``out`` (what "%lld" gives); return its length.

    By hand: snprintf's format parsing was most of a jobs table's time.
    """
    cdef char digits[20]
    cdef Py_ssize_t n = 0, k = 0
    # Digits of |value| as unsigned: -2**63 has no positive long long.
    cdef unsigned long long v = <unsigned long long> value
    if value < 0:
        out[0] = b"-"
        k = 1
        v = 0 - v
    while True:
        digits[n] = <char> (48 + v % 10)
        n += 1
        v //= 10
        if v == 0:
            break
    while n:
        n -= 1
        out[k] = digits[n]
        k += 1
    return k


cdef class _Text:
    """A growing byte buffer."""
    cdef char *buf
    cdef Py_ssize_t size, cap

    def __cinit__(self):
        self.cap = 1 << 16
        self.size = 0
        self.buf = <char *> malloc(self.cap)
        if self.buf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.buf)

    cdef int room(self, Py_ssize_t more) except -1:
        cdef char *grown
        if self.size + more <= self.cap:
            return 0
        while self.size + more > self.cap:
            self.cap *= 2
        grown = <char *> realloc(self.buf, self.cap)
        if grown == NULL:
            raise MemoryError()
        self.buf = grown
        return 0

    cdef int block(self, long long lo, long long hi, char after) except -1:
        # Two numbers of at most 20 characters, a dash and the separator.
        self.room(48)
        self.size += _decimal(self.buf + self.size, lo)
        if hi > lo:
            self.buf[self.size] = b"-"
            self.size += 1
            self.size += _decimal(self.buf + self.size, hi)
        self.buf[self.size] = after
        self.size += 1
        return 0

    cdef int end(self) except -1:
        self.room(1)
        self.buf[self.size] = b"\n"
        self.size += 1
        return 0


cdef int _marked_blocks(_Text text, long long *ids, Py_ssize_t n, long long lo,
                       long long hi) except -1:
    cdef Py_ssize_t span = hi - lo + 1, i, start = -1
    cdef char *marks = <char *> calloc(span + 1, 1)
    if marks == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            marks[ids[i] - lo] = 1
        for i in range(span + 1):   # marks[span] is 0: closes the last block
            if marks[i] and start < 0:
                start = i
            elif not marks[i] and start >= 0:
                text.block(lo + start, lo + i - 1, b"\n" if i == span else b" ")
                start = -1
    finally:
        free(marks)
    return 0


def intervals_of(allocs):
    """``[intervals(a) for a in allocs]``: each allocation as sorted blocks of ids.

    Parameters
    ----------
    allocs : list of list of int
        Core ids of each allocation (distinct, any order; other sequences
        are copied to lists).

    Returns
    -------
    list of str

    Examples
    --------
    >>> intervals_of([[3], [], [5, 2, 0, 1], [9, 7, 8], [1, 4, 6, 3]])
    ['3', '', '0-2 5', '7-9', '1 3-4 6']
    """
    cdef Py_ssize_t i, n, cap = 0
    cdef long long *ids = NULL
    cdef long long *grown
    cdef long long lo, hi, prev, c
    cdef unsigned long long width
    cdef bint ordered
    cdef _Text text = _Text()
    try:
        for a in allocs:
            if type(a) is not list:
                a = list(a)
            n = PyList_GET_SIZE(a)
            if n > cap:
                cap = max(n, 2 * cap)
                grown = <long long *> realloc(ids, cap * sizeof(long long))
                if grown == NULL:
                    raise MemoryError()
                ids = grown
            if n == 0:
                text.end()
                continue
            ordered = True
            lo = hi = ids[0] = <object> PyList_GET_ITEM(a, 0)
            for i in range(1, n):
                c = ids[i] = <object> PyList_GET_ITEM(a, i)
                if c < ids[i - 1]:
                    ordered = False
                if c < lo:
                    lo = c
                elif c > hi:
                    hi = c
            # One text for all, "\n" after each allocation, split once.
            width = <unsigned long long> hi - <unsigned long long> lo  # no overflow
            if ordered or width == <unsigned long long> (n - 1):
                # In order, or (the ids being distinct) exactly lo..hi.
                if not ordered:
                    text.block(lo, hi, b"\n")
                    continue
            elif width < <unsigned long long> (8 * n + 64):
                # Out of order over a short span (a ledger's free cores after
                # some churn): mark them, read the blocks off the marks.
                _marked_blocks(text, ids, n, lo, hi)
                continue
            else:
                qsort(ids, n, sizeof(long long), simlib_cmp_ll)
            lo = prev = ids[0]
            for i in range(1, n):
                c = ids[i]
                if c != prev + 1:
                    text.block(lo, prev, b" ")
                    lo = c
                prev = c
            text.block(lo, prev, b"\n")
        out = text.buf[:text.size].decode("ascii").split("\n")
        out.pop()
    finally:
        free(ids)
    return out



cdef enum:
    # Kinds of csv_rows' fields.
    _CONSTANT = 0
    _INTEGERS = 1
    _FLOATS = 2
    _STRINGS = 3

#: Integral floats below this magnitude are written as their integer and ".0":
#: what repr gives (it switches to exponents from 1e16).
cdef double _EXACT_INT = 9007199254740992.0


cdef inline int _put(_Text text, const char *src, Py_ssize_t n) except -1:
    text.room(n)
    memcpy(text.buf + text.size, src, n)
    text.size += n
    return 0


cdef int _put_float(_Text text, double x) except -1:
    cdef char *repr_text
    cdef Py_ssize_t n = 0
    if isnan(x):
        return 0   # pandas' empty cell
    if fabs(x) < _EXACT_INT and x == trunc(x) and not (x == 0 and signbit(x)):
        text.room(24)
        text.size += _decimal(text.buf + text.size, <long long> x)
        _put(text, ".0", 2)
        return 0
    repr_text = PyOS_double_to_string(x, b"r", 0, Py_DTSF_ADD_DOT_0, NULL)
    try:
        while repr_text[n]:
            n += 1
        _put(text, repr_text, n)
    finally:
        PyMem_Free(repr_text)
    return 0


def csv_rows(fields, Py_ssize_t rows, str end):
    """The text of ``rows`` CSV rows, one cell per field, each row ended by ``end``.

    Parameters
    ----------
    fields : list of (kind, values)
        One per column: ``(0, text)`` the same text in every row; ``(1,
        int64 array)`` decimal integers; ``(2, float64 array)`` each as
        ``repr`` writes it, NaN as the empty cell; ``(3, list of str)`` the
        strings as they are (no quoting: the caller checks they need none).
    rows : int
        Number of rows; every array and list has at least that many items.
    end : str
        The line terminator.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> csv_rows([(1, np.array([1, -2])), (2, np.array([0.5, np.nan])), (0, "x"),
    ...           (2, np.array([3.0, -0.0])), (3, ["a", "b"])], 2, "\\n")
    '1,0.5,x,3.0,a\\n-2,,x,-0.0,b\\n'
    """
    cdef Py_ssize_t k, count = len(fields), row, n_end, n_text
    cdef const char *end_text = PyUnicode_AsUTF8AndSize(end, &n_end)
    cdef const char *cell
    cdef const int64_t[::1] ints
    cdef const double[::1] floats
    cdef _Text text = _Text()
    cdef int *kind_of = <int *> malloc(max(count, 1) * sizeof(int))
    cdef const void **data = <const void **> malloc(max(count, 1) * sizeof(void *))
    cdef Py_ssize_t *width = <Py_ssize_t *> malloc(max(count, 1) * sizeof(Py_ssize_t))
    held = []   # what the pointers in data point into, alive until the end
    try:
        if kind_of == NULL or data == NULL or width == NULL:
            raise MemoryError()
        for k, (kind, values) in enumerate(fields):
            kind_of[k] = kind
            if kind == _INTEGERS or kind == _FLOATS or kind == _STRINGS:
                if len(values) < rows:
                    raise ValueError("csv_rows: a column is shorter than the rows")
            if kind == _INTEGERS:
                ints = values
                data[k] = &ints[0] if rows else NULL
            elif kind == _FLOATS:
                floats = values
                data[k] = &floats[0] if rows else NULL
            elif kind == _STRINGS:
                if type(values) is not list:
                    raise ValueError("csv_rows: a string column must be a list of str")
            elif kind == _CONSTANT:
                values = values.encode("utf-8")
                data[k] = <const char *> values
                width[k] = len(values)
            else:
                raise ValueError(f"csv_rows: unknown field kind {kind!r}")
            held.append(values)
        for row in range(rows):
            for k in range(count):
                if k:
                    _put(text, ",", 1)
                if kind_of[k] == _INTEGERS:
                    text.room(21)
                    text.size += _decimal(text.buf + text.size, (<const int64_t *> data[k])[row])
                elif kind_of[k] == _FLOATS:
                    _put_float(text, (<const double *> data[k])[row])
                elif kind_of[k] == _STRINGS:
                    cell = PyUnicode_AsUTF8AndSize(<object> PyList_GET_ITEM(held[k], row),
                                                   &n_text)
                    _put(text, cell, n_text)
                else:
                    _put(text, <const char *> data[k], width[k])
            _put(text, end_text, n_end)
        return text.buf[:text.size].decode("utf-8")
    finally:
        free(kind_of)
        free(data)
        free(width)
