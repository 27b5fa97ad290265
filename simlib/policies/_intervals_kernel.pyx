# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled text of allocations: the ``allocated_resources`` column of a jobs table.

:func:`intervals_of` gives what :func:`simlib.runner._intervals_of` (numpy)
gives: each allocation's core ids as sorted blocks of consecutive ids,
``"lo-hi"`` (or ``"c"`` for one core), separated by one space, e.g.
``"0-2 5"``. It reads every allocation's list of ids once, in C; paper K's
per-job tables list ~40 million core ids per step, which the numpy path
first copies through a Python iterator. ``tests/test_intervals_kernel.py``
compares both paths, and :func:`simlib.runner.intervals`, on random
allocations.

This kernel is kept with the policies' (built the same way, see
:mod:`simlib.policies.kernels`). ``SOURCE_SHA256`` is this file's digest at
build time.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from libc.stdlib cimport calloc, free, malloc, qsort, realloc

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
