"""Paper Z's slowdown model: Table 4's distributions and formulas 7 and 8.

The paper (Section 4.9) does not measure slowdowns per job; it draws them
from a histogram, Table 4, built from benchmark data:

``SL_scr`` (core self slowdown)
    a job's processes share the two cores of one CPU;
``SL_sno`` (node self slowdown)
    a job's processes share one node, on its two CPUs;
``SL_cos`` (coscheduling slowdown)
    one job's processes share a node with another job's.

Each column of Table 4 gives the share (percent) of slowdowns in each
range ``[lo, hi)``. A draw picks a range with those shares, then a value
uniform within it (:func:`draw_slowdowns`). The self slowdowns are a
property of the job (:func:`self_slowdowns`); ``SL_cos`` is a property of
an *ordered* pair of jobs, since formula 6 uses the slowdown of A next to
i (``SL_{A,i}``) and of i next to A (``SL_{i,A}``) as two numbers
(:class:`CoschedulingSlowdowns`). A table is checked where it is read
(:func:`simlib.studies.zeng.published.check_published`), not at each draw.

Section 4.8 turns a Lublin job of ``oSize`` single-core nodes into a job
for the 4-core nodes with formula 7 (:func:`adjusted_size`) and formula 8
gives its processes per node (:func:`ppn`).

Determinism
-----------
Every draw comes from a :class:`numpy.random.SeedSequence` of the
workload seed and a fixed stream constant of this module, never from
global state:

* self slowdowns: ``SeedSequence([seed, SELF_SLOWDOWN_STREAM])`` (children
  0 for ``SL_scr``, 1 for ``SL_sno``); one pair of values per job, row by
  row, so the first k jobs get the same values whatever the number of
  jobs drawn;
* ``SL_cos`` of job ``a`` next to job ``b``:
  ``SeedSequence([seed, COSCHEDULING_STREAM, a, b])``, so every scheduler
  sees the same value for a pair, whenever and however often it asks.

The stream constants are large numbers (the ASCII of "ZEN" and a digit):
the Lublin generator seeds itself with ``SeedSequence(seed)``, and a small
constant such as ``[seed, 1]`` would coincide with the Lublin stream of
the single integer ``seed + 2**32``.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from simlib.errors import ConfigError
from simlib.policies import kernels

__all__ = ["TABLE4", "TABLE6", "COLUMNS", "ROUNDINGS", "SELF_SLOWDOWN_STREAM", "COSCHEDULING_STREAM",
           "rng_for", "draw_slowdowns", "self_slowdowns", "coscheduling_slowdown",
           "CoschedulingSlowdowns", "seeded_uniforms", "seeding_kernel", "bin_shares", "ppn",
           "self_slowdown_at", "adjusted_size"]

#: Table 4 of paper Z, "Modeled distribution of slowdowns", as printed: the
#: ranges ``[lo, hi)`` and the percent of slowdowns in each. The study reads
#: the same numbers from ``config/published/zeng.yaml``; this copy serves
#: tests and examples.
TABLE4 = MappingProxyType({
    "source": "paper Z, Table 4 (modeled distribution of slowdowns, percent per range)",
    "bins": ((0.9, 1.0), (1.0, 1.1), (1.1, 1.2), (1.2, 1.3), (1.3, 1.4),
             (1.4, 1.5), (1.5, 1.6), (1.6, 1.7), (1.7, 1.8)),
    "sl_scr": (0, 25, 17, 17, 13, 17, 8, 3, 0),
    "sl_sno": (25, 45, 12, 5, 13, 0, 0, 0, 0),
    "sl_cos": (0, 68, 17, 7, 3, 2, 1, 1, 1),
})

#: The two thresholds of paper Z's Table 6 that this module uses (the
#: others belong to the scheduler); the study takes them from the config.
TABLE6 = MappingProxyType({"max_sl": 1.25, "self_sl2": 1.12})

#: The slowdown columns of Table 4.
COLUMNS = ("sl_scr", "sl_sno", "sl_cos")

#: Ways to round formula 7's size to whole processes (:func:`adjusted_size`).
ROUNDINGS = ("nearest", "ppn_multiple", "power_of_two")

#: Stream constant of the per-job self slowdowns ("ZEN" + 1).
SELF_SLOWDOWN_STREAM = 0x5A454E01
#: Stream constant of the per-pair coscheduling slowdowns ("ZEN" + 2).
COSCHEDULING_STREAM = 0x5A454E02

#: The compiled kernel the pair draws run on (:mod:`simlib.policies.kernels`;
#: its source is a code input of the steps importing this module).
COMPILED_KERNELS = ("_seeding_kernel",)


def _seed_words(seed) -> list[int]:
    """The seed (an int >= 0 or a non-empty sequence of them) as SeedSequence entropy."""
    words = [seed] if isinstance(seed, (int, np.integer)) else seed
    if (isinstance(words, Sequence) and not isinstance(words, str) and len(words) > 0
            and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0
                    for x in words)):
        return [int(x) for x in words]
    raise ConfigError(f"invalid seed {seed!r}: give an int >= 0 or a non-empty sequence of "
                      "ints >= 0 (the run's coordinates)")


def rng_for(seed, *stream: int, child: int | None = None) -> np.random.Generator:
    """A generator for one purpose: ``SeedSequence([*seed, *stream])``, or its
    child ``child`` for several independent draws of one purpose."""
    words = [*_seed_words(seed), *(int(w) for w in stream)]
    key = () if child is None else (int(child),)
    return np.random.default_rng(np.random.SeedSequence(words, spawn_key=key))


class _Column:
    """One column of a Table 4 mapping: bins and normalised probabilities."""

    def __init__(self, table: Mapping, column: str):
        self.bins = np.asarray(table["bins"], dtype=float)
        shares = np.asarray(table[column], dtype=float)
        # Printed percentages are rounded (the paper adjusted some to reach
        # 100 %); dividing by their sum makes them probabilities either way.
        self.prob = shares / shares.sum()
        self.cum = np.cumsum(self.prob)
        self.cum[-1] = 1.0
        # Largest float below hi: lo + (hi - lo) * u can round up to hi.
        self.top = np.nextafter(self.bins[:, 1], -np.inf)
        # The same as Python floats, for draw_one.
        self._scalar = (self.cum.tolist(), self.bins[:, 0].tolist(), self.bins[:, 1].tolist(),
                        self.top.tolist())

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        # Two uniforms per value, row by row: value k depends on draws 2k and
        # 2k+1 only, so a longer draw extends a shorter one.
        u = rng.random((n, 2))
        # side="right": a bin of share 0 spans an empty interval, never hit.
        k = np.minimum(np.searchsorted(self.cum, u[:, 0], side="right"), len(self.bins) - 1)
        lo, hi = self.bins[k, 0], self.bins[k, 1]
        return np.minimum(lo + (hi - lo) * u[:, 1], self.top[k])

    def draw_one(self, u0: float, u1: float) -> float:
        """``draw(1, rng)[0]`` from the two uniforms ``rng.random(2)`` would give,
        in scalar arithmetic (the same IEEE operations, without the array
        calls that cost more than the draw itself)."""
        cum, lo, hi, top = self._scalar
        k = min(bisect_right(cum, u0), len(cum) - 1)
        return min(lo[k] + (hi[k] - lo[k]) * u1, top[k])


def draw_slowdowns(table: Mapping, column: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``n`` slowdowns from one column (``sl_scr``, ``sl_sno``, ``sl_cos``) of
    ``table`` (``bins`` and a list of shares per column, e.g. :data:`TABLE4`)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator (no global random state)")
    return _Column(table, column).draw(n, rng)


def self_slowdowns(table: Mapping, n: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """Per-job core and node self slowdowns, ``(SL_scr, SL_sno)``, of ``n`` jobs, drawn
    independently from Table 4's columns (streams: see "Determinism" above)."""
    scr = _Column(table, "sl_scr").draw(n, rng_for(seed, SELF_SLOWDOWN_STREAM, child=0))
    sno = _Column(table, "sl_sno").draw(n, rng_for(seed, SELF_SLOWDOWN_STREAM, child=1))
    return scr, sno


def seeded_uniforms(words: list[int], kernel=None) -> list[float]:
    """``default_rng(SeedSequence(words)).random(2).tolist()``: the two
    uniforms of one pair's draw.

    ``kernel`` is :mod:`simlib.policies._seeding_kernel` (see
    :func:`seeding_kernel`), which computes the same bits ~25x faster than
    building numpy's three objects; None builds them."""
    if kernel is not None:
        return kernel.first_uniforms(words, 2)
    return rng_for(words).random(2).tolist()


def seeding_kernel():
    """The compiled seeding kernel, or None for numpy's objects (chosen by
    ``SIMLIB_KERNELS``, see :mod:`simlib.policies.kernels`)."""
    return kernels.load(COMPILED_KERNELS[0])


class CoschedulingSlowdowns:
    """``SL_cos`` of one workload's ordered pairs of jobs, each drawn once (see "Determinism").

    ``slowdowns(a, b)`` is ``SL_cos`` of job ``a`` coscheduled with job
    ``b`` (job ids >= 0, different): ``(a, b)`` and ``(b, a)`` are
    independent draws, the paper's ``SL_{A,i}`` and ``SL_{i,A}``."""

    def __init__(self, table: Mapping, seed):
        self.column = _Column(table, "sl_cos")
        self.words = _seed_words(seed)
        self.kernel = seeding_kernel()
        #: Values drawn so far, by ordered pair.
        self.memo: dict[tuple[int, int], float] = {}

    def __getstate__(self):
        # A module does not pickle: a copy chooses its kernel again.
        return {k: v for k, v in self.__dict__.items() if k != "kernel"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.kernel = seeding_kernel()

    def __call__(self, a: int, b: int) -> float:
        key = (a, b)
        value = self.memo.get(key)
        if value is None:
            for x in key:
                if not (isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0):
                    raise ValueError(f"a job must be an integer id >= 0, got {x!r}")
            if a == b:
                raise ValueError(f"job {a} cannot be coscheduled with itself (its self "
                                 "slowdowns cover that)")
            words = [*self.words, COSCHEDULING_STREAM, int(a), int(b)]
            value = self.memo[key] = self.column.draw_one(*seeded_uniforms(words, self.kernel))
        return value


def coscheduling_slowdown(table: Mapping, seed, a: int, b: int) -> float:
    """``SL_cos`` of job ``a`` coscheduled with job ``b``: one draw of
    :class:`CoschedulingSlowdowns` (which memoises a workload's)."""
    return CoschedulingSlowdowns(table, seed)(a, b)


def bin_shares(values, bins) -> np.ndarray:
    """Percent of ``values`` in each bin ``[lo, hi)``: Table 4 measured back.

    The percentages are of *all* values: a value outside every bin is
    counted in none, so the shares then sum to less than 100."""
    b = np.asarray(bins, dtype=float)
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        raise ValueError("bin_shares needs at least one value")
    inside = (v[:, None] >= b[:, 0]) & (v[:, None] < b[:, 1])
    return 100.0 * inside.sum(axis=0) / v.size


# ---------------------------------------------------------------- Formulas 7 and 8

def _sizes(size, name: str) -> np.ndarray:
    s = np.asarray(size)
    if s.dtype == bool or not np.issubdtype(s.dtype, np.number) or not np.all(np.isfinite(s)) \
            or np.any(s < 1) or np.any(s != np.floor(s)):
        raise ValueError(f"{name} must be whole numbers of processes >= 1, got {size!r}")
    return s.astype(np.int64)


def _slowdowns(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be finite numbers > 0")
    return a


def _out(x):
    """A 0-d result as a Python scalar; arrays as they are."""
    return x.item() if np.ndim(x) == 0 else x


def _ppn(size, sl_scr, sl_sno, max_sl, self_sl2) -> np.ndarray:
    # The three cases of formulas 7 and 8 partition every job: 4 when the
    # self slowdown of a full node is acceptable, else 2 when that of two
    # processes on the node's two CPUs is, else 1; serial jobs always 1.
    parallel = size > 1
    four = parallel & (sl_scr * sl_sno <= max_sl)
    two = parallel & ~four & (sl_sno <= self_sl2)
    return np.where(four, 4, np.where(two, 2, 1)).astype(np.int64)


def ppn(size, sl_scr, sl_sno, max_sl: float, self_sl2: float):
    """Processes per node of a job (1, 2 or 4), formula 8, for scalars or arrays.

    ``PPN = 1`` if ``size == 1`` or (``SL_sno > SELF_SL2`` and
    ``SL_scr * SL_sno > MAX_SL``); ``2`` if ``size > 1``, ``SL_sno <=
    SELF_SL2`` and ``SL_scr * SL_sno > MAX_SL``; ``4`` if ``size > 1`` and
    ``SL_scr * SL_sno <= MAX_SL``. The comparisons are as printed (a value
    equal to a threshold is acceptable). ``max_sl``, ``self_sl2``: Table 6's
    ``MAX_SL`` and ``SELF_SL2`` (checked where the published file is read)."""
    scr, sno = _slowdowns(sl_scr, "SL_scr"), _slowdowns(sl_sno, "SL_sno")
    return _out(_ppn(_sizes(size, "size"), scr, sno, max_sl, self_sl2))


def self_slowdown_at(ppn, sl_scr, sl_sno):
    """A job's self slowdown when it runs ``ppn`` (1, 2 or 4) processes per node.

    Our reading of Section 4.9 (the paper places a job's processes on
    different CPUs first): with 1 process per node nothing is shared, 1;
    with 2, the processes sit on the node's two CPUs, ``SL_sno``; with 4,
    every core of the node is busy, two per CPU, ``SL_scr * SL_sno``.
    These are exactly the factors formula 7 divides by."""
    p = np.asarray(ppn)
    if not np.all(np.isin(p, (1, 2, 4))):
        raise ValueError(f"processes per node must be 1, 2 or 4, got {ppn!r}")
    scr, sno = _slowdowns(sl_scr, "SL_scr"), _slowdowns(sl_sno, "SL_sno")
    return _out(np.where(p == 4, scr * sno, np.where(p == 2, sno, 1.0)))


def adjusted_size(o_size, sl_scr, sl_sno, max_sl: float, self_sl2: float,
                  rounding: str = "nearest"):
    """New job size for the 4-core nodes, formula 7, in whole processes
    (an int when every input is a scalar).

    ``nSize`` is ``oSize``, ``oSize * 2 / SL_sno`` or ``oSize * 4 / SL_scr /
    SL_sno`` in the cases where formula 8 (:func:`ppn`) gives PPN 1, 2 or 4.

    Rounding (the paper does not say how it made whole processes):

    ``"nearest"`` (default)
        ``floor(x + 0.5)``, halves up, at least 1. The job of PPN ``p``
        runs on ``nSize / p`` nodes for ``T * self_slowdown_at(p)``, and
        formula 7 chose ``nSize`` so that this node-time equals ``oSize *
        T``, the Lublin job's; the nearest whole size keeps it closest.
    ``"ppn_multiple"``
        The nearest multiple of the PPN (halves up), at least the PPN:
        every node of the job is full.
    ``"power_of_two"``
        When ``oSize`` is a power of two, the power of two nearest to
        ``x`` in log scale (``2 ** floor(log2(x) + 0.5)``), so that
        power-of-two jobs stay power-of-two jobs (Section 4.8 keeps their
        share); other sizes as ``"nearest"``. With Table 4's ranges this
        doubles or quadruples power-of-two jobs exactly.

    Case 1 keeps ``oSize`` under every rounding."""
    if rounding not in ROUNDINGS:
        raise ConfigError(f"rounding {rounding!r}: choose one of {list(ROUNDINGS)}")
    o = _sizes(o_size, "oSize")
    scr, sno = _slowdowns(sl_scr, "SL_scr"), _slowdowns(sl_sno, "SL_sno")
    o, scr, sno = np.broadcast_arrays(o, scr, sno)
    p = _ppn(o, scr, sno, max_sl, self_sl2)
    of = o.astype(float)
    # Written as printed (division order included).
    x = np.where(p == 4, of * 4 / scr / sno, np.where(p == 2, of * 2 / sno, of))
    if rounding == "ppn_multiple":
        n = p * np.maximum(np.floor(x / p + 0.5), 1.0)
    else:
        n = np.maximum(np.floor(x + 0.5), 1.0)
        if rounding == "power_of_two":
            pow2 = (o & (o - 1)) == 0
            n = np.where(pow2, 2.0 ** np.floor(np.log2(x) + 0.5), n)
    return _out(n.astype(np.int64))
