# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled seeding: the first uniforms of a generator seeded from a few words.

:func:`first_uniforms` returns what
``numpy.random.Generator(PCG64(SeedSequence(words))).random(k)`` returns,
without building the three objects, which cost ~16 us where the draws cost
well under one. Paper Z draws one coscheduling slowdown per ordered pair
of jobs from its own ``SeedSequence`` (so a pair's value does not depend on
which scheduler asks first); a G-LOMARC-TS run asks for hundreds of
thousands of pairs (:class:`simlib.studies.zeng.slowdowns.CoschedulingSlowdowns`).

The computation follows numpy's documented algorithms, written here from
their descriptions: ``SeedSequence`` hashes its entropy (each word as
little-endian 32-bit words) into a pool of four 32-bit words and expands
the pool into the generator's state; ``PCG64`` is a 128-bit LCG with the
XSL-RR output function, seeded from four 64-bit words (state, then
increment); ``random()`` keeps the top 53 bits of a 64-bit output. Both
paths must give the same bits: ``tests/test_seeding_kernel.py`` compares
them with numpy's objects over random words, long ints and lengths.

Built by ``pip install`` (``setup.py``) where the compiler has 128-bit
integers (GCC, Clang); elsewhere the build is skipped and numpy's objects
are used (see :mod:`simlib.policies.kernels`). ``SOURCE_SHA256`` is this
file's digest at build time.
"""
import operator

from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc

cdef extern from *:
    """
    #ifndef SIMLIB_KERNEL_SOURCE
    #define SIMLIB_KERNEL_SOURCE "unknown"
    #endif
    #ifndef __SIZEOF_INT128__
    #error "simlib's seeding kernel needs 128-bit integers (GCC or Clang)"
    #endif
    #include <stdint.h>

    /* SeedSequence's hash of one word: the hash constant advances each call. */
    static inline uint32_t simlib_hashmix(uint32_t value, uint32_t *hash) {
        value ^= *hash;
        *hash *= 0x931e8875u;
        value *= *hash;
        value ^= value >> 16;
        return value;
    }

    static inline uint32_t simlib_mix(uint32_t x, uint32_t y) {
        uint32_t r = 0xca01f9ddu * x - 0x4973f715u * y;
        r ^= r >> 16;
        return r;
    }

    /* out[0..k): the first k doubles of PCG64 seeded by SeedSequence(entropy). */
    static void simlib_first_uniforms(const uint32_t *entropy, Py_ssize_t n,
                                      double *out, Py_ssize_t k) {
        uint32_t pool[4], hash = 0x43b0d7e5u, words[8];
        Py_ssize_t i, j;
        /* The pool: the first four words (zeros past the end), then every
           word hashed into every other, then the words past the fourth. */
        for (i = 0; i < 4; i++)
            pool[i] = simlib_hashmix(i < n ? entropy[i] : 0u, &hash);
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++)
                if (i != j)
                    pool[j] = simlib_mix(pool[j], simlib_hashmix(pool[i], &hash));
        for (i = 4; i < n; i++)
            for (j = 0; j < 4; j++)
                pool[j] = simlib_mix(pool[j], simlib_hashmix(entropy[i], &hash));
        /* Four 64-bit words of state from the pool (each from two 32-bit
           words, low word first), with the second hash constant. */
        hash = 0x8b51f9ddu;
        for (i = 0; i < 8; i++) {
            uint32_t v = pool[i % 4] ^ hash;
            hash *= 0x58f38dedu;
            v *= hash;
            v ^= v >> 16;
            words[i] = v;
        }
        uint64_t s[4];
        for (i = 0; i < 4; i++)
            s[i] = (uint64_t)words[2 * i] | ((uint64_t)words[2 * i + 1] << 32);
        unsigned __int128 mult = ((unsigned __int128)0x2360ed051fc65da4ULL << 64)
                                 | 0x4385df649fccf645ULL;
        unsigned __int128 init = ((unsigned __int128)s[0] << 64) | s[1];
        unsigned __int128 inc = ((((unsigned __int128)s[2] << 64) | s[3]) << 1) | 1u;
        /* PCG's seeding: step from 0, add the initial state, step again. */
        unsigned __int128 state = inc;
        state += init;
        state = state * mult + inc;
        for (i = 0; i < k; i++) {
            state = state * mult + inc;
            uint64_t x = (uint64_t)(state >> 64) ^ (uint64_t)state;
            unsigned r = (unsigned)(state >> 122);
            x = (x >> r) | (x << ((64u - r) & 63u));
            out[i] = (double)(x >> 11) * (1.0 / 9007199254740992.0);
        }
    }
    """
    const char* SIMLIB_KERNEL_SOURCE
    void simlib_first_uniforms(const uint32_t *entropy, Py_ssize_t n, double *out,
                               Py_ssize_t k) nogil

#: sha256 of this source file when the module was built.
SOURCE_SHA256 = SIMLIB_KERNEL_SOURCE.decode("ascii")

cdef enum:
    SMALL = 16  # words and doubles kept on the stack


def first_uniforms(words, Py_ssize_t k=2):
    """``Generator(PCG64(SeedSequence(words))).random(k).tolist()``, computed directly.

    Parameters
    ----------
    words : sequence of int
        The entropy, each an integer ``>= 0`` (a long int counts as its
        32-bit words, lowest first, as in ``SeedSequence``).
    k : int
        How many doubles (``>= 0``).

    Returns
    -------
    list of float

    Examples
    --------
    >>> import numpy as np
    >>> first_uniforms([7, 3, 12]) == np.random.default_rng([7, 3, 12]).random(2).tolist()
    True
    """
    cdef uint32_t small[SMALL]
    cdef uint32_t *entropy = small
    cdef double dsmall[SMALL]
    cdef double *out = dsmall
    cdef Py_ssize_t n = 0, i
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    if k > PY_SSIZE_T_MAX // <Py_ssize_t> sizeof(double):
        raise MemoryError(f"{k} doubles do not fit in memory")
    split = []
    for w in words:
        w = operator.index(w)  # an integer, as SeedSequence wants (a float is refused)
        if w < 0:
            raise ValueError(f"seed words must be >= 0, not {w}")
        if w == 0:
            split.append(0)
        while w:
            split.append(w & 0xFFFFFFFF)
            w >>= 32
    n = len(split)  # 0 words: SeedSequence's pool from zeros, as numpy does
    try:
        if n > SMALL:
            entropy = <uint32_t *> malloc(n * sizeof(uint32_t))
        if k > SMALL:
            out = <double *> malloc(k * sizeof(double))
        if entropy == NULL or out == NULL:
            raise MemoryError()
        for i in range(n):
            entropy[i] = split[i]
        simlib_first_uniforms(entropy, n, out, k)
        return [out[i] for i in range(k)]
    finally:
        if entropy != small and entropy != NULL:
            free(entropy)
        if out != dsmall and out != NULL:
            free(out)
