# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled core of the LOS dynamic program (:func:`simlib.policies.los.los_dp`).

:func:`choose` fills the same table as the pure-Python path of ``los_dp``
(numpy) and reads the same choice out of it: ``table[i][c]`` is the most
processors jobs ``i..`` can use within capacities ``c`` (one per freeze
point, plus the free processors now); going forward, job ``i`` is taken
whenever an optimal completion still exists, which makes the choice the
lexicographically first optimal subset in queue order. The arithmetic is
integer, so both paths choose exactly the same jobs
(``tests/test_los_kernel.py`` checks it).

Built by ``pip install`` (``setup.py``); ``SOURCE_SHA256`` is this file's
digest at build time (see :mod:`simlib.policies.kernels`).
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    """
    const char* SIMLIB_KERNEL_SOURCE

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")

ctypedef long long val_t


def choose(sizes, weights, caps):
    """Positions of the lexicographically first subset using the most processors.

    Parameters
    ----------
    sizes : sequence of int
        Each candidate's processors (the value it adds), in queue order.
    weights : sequence of sequences of int
        ``weights[d][i]``: what candidate ``i`` takes of capacity ``d``
        (already in DP units), ``d = 0`` the free processors now, then one
        row per freeze point.
    caps : sequence of int
        Capacity ``d`` in the same units, each ``>= 0``.

    Returns
    -------
    list of int
        Chosen positions, increasing.

    Examples
    --------
    >>> choose([7, 4, 6], [[7, 4, 6]], [10])
    [1, 2]
    """
    cdef Py_ssize_t n = len(sizes), dims = len(caps)
    cdef Py_ssize_t i, d, k, cells = 1, off
    if n == 0:
        return []
    cdef Py_ssize_t* cap = <Py_ssize_t*> malloc(dims * sizeof(Py_ssize_t))
    cdef Py_ssize_t* stride = <Py_ssize_t*> malloc(dims * sizeof(Py_ssize_t))
    cdef Py_ssize_t* coord = <Py_ssize_t*> malloc(dims * sizeof(Py_ssize_t))
    cdef Py_ssize_t* w = <Py_ssize_t*> malloc(n * dims * sizeof(Py_ssize_t))
    cdef val_t* value = <val_t*> malloc(n * sizeof(val_t))
    cdef char* fits = <char*> malloc(n)
    cdef val_t* table = NULL
    cdef val_t* cur
    cdef val_t* nxt
    cdef val_t cand
    cdef bint inside
    cdef list chosen = []
    try:
        if not (cap and stride and coord and w and value and fits):
            raise MemoryError()
        for d in range(dims - 1, -1, -1):  # row-major: the last capacity varies fastest
            cap[d] = caps[d]
            stride[d] = cells
            cells *= cap[d] + 1
        for i in range(n):
            value[i] = sizes[i]
            fits[i] = 1
            for d in range(dims):
                w[i * dims + d] = weights[d][i]
                if w[i * dims + d] > cap[d]:
                    fits[i] = 0
        table = <val_t*> calloc((n + 1) * cells, sizeof(val_t))
        if not table:
            raise MemoryError()
        # Backward: table[i][c] = best use of jobs i.. within capacities c.
        for i in range(n - 1, -1, -1):
            cur = table + i * cells
            nxt = table + (i + 1) * cells
            memcpy(cur, nxt, cells * sizeof(val_t))
            if not fits[i]:
                continue
            off = 0
            for d in range(dims):
                off += w[i * dims + d] * stride[d]
                coord[d] = 0
            for k in range(cells):
                inside = True
                for d in range(dims):
                    if coord[d] < w[i * dims + d]:
                        inside = False
                        break
                if inside:
                    cand = nxt[k - off] + value[i]
                    if cand > cur[k]:
                        cur[k] = cand
                d = dims - 1  # next cell: odometer over the coordinates
                while d >= 0:
                    coord[d] += 1
                    if coord[d] <= cap[d]:
                        break
                    coord[d] = 0
                    d -= 1
        # Forward: take a job whenever an optimal completion still exists.
        k = 0
        for d in range(dims):
            coord[d] = cap[d]
            k += cap[d] * stride[d]
        for i in range(n):
            if not fits[i]:
                continue
            inside = True
            off = 0
            for d in range(dims):
                if coord[d] < w[i * dims + d]:
                    inside = False
                    break
                off += w[i * dims + d] * stride[d]
            if inside and table[(i + 1) * cells + k - off] + value[i] == table[i * cells + k]:
                chosen.append(i)
                k -= off
                for d in range(dims):
                    coord[d] -= w[i * dims + d]
        return chosen
    finally:
        free(cap)
        free(stride)
        free(coord)
        free(w)
        free(value)
        free(fits)
        free(table)
