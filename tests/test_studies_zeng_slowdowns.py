"""Tests of simlib.studies.zeng.slowdowns: Table 4's draws, formulas 7 and 8.

Statistical checks draw 20,000 values per column and compare the share of
each range with Table 4 (normalised): every range within 4 standard
errors, and a chi-square goodness of fit at p > 0.001 over the ranges of
non-zero share; ranges of share 0 must stay empty. The seeds are fixed,
so the outcome is deterministic; the "can fail" test shows that the same
chi-square rejects a slightly wrong table.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from simlib.errors import ConfigError
from simlib.studies.zeng import slowdowns as S

N = 20_000
MAX_SL, SELF_SL2 = S.TABLE6["max_sl"], S.TABLE6["self_sl2"]


def expected_pct(column):
    shares = np.asarray(S.TABLE4[column], dtype=float)
    return 100.0 * shares / shares.sum()


def assert_matches_table(values, column):
    """Shares of ``values`` per range agree with Table 4's column."""
    obs = S.bin_shares(values, S.TABLE4["bins"])
    exp = expected_pct(column)
    n = len(values)
    zero = exp == 0
    assert np.all(obs[zero] == 0), (column, obs)
    p = exp / 100.0
    se = 100.0 * np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(obs - exp)[~zero] < 4 * se[~zero]), (column, obs, exp)
    counts = obs[~zero] * n / 100.0
    assert stats.chisquare(counts, exp[~zero] * n / 100.0).pvalue > 1e-3


def test_table4_as_printed():
    # The constant is the paper's table; every column sums to 100 percent.
    assert len(S.TABLE4["bins"]) == 9
    assert S.TABLE4["bins"][0] == (0.9, 1.0) and S.TABLE4["bins"][-1] == (1.7, 1.8)
    assert [sum(S.TABLE4[c]) for c in S.COLUMNS] == [100, 100, 100]
    assert "Table 4" in S.TABLE4["source"]


@pytest.mark.parametrize("column", S.COLUMNS)
def test_draws_reproduce_table4(column):
    values = S.draw_slowdowns(S.TABLE4, column, N, np.random.default_rng(20090525))
    assert values.shape == (N,)
    assert_matches_table(values, column)


def test_chi_square_can_fail():
    # Draws of SL_scr against a table moving 3 points from [1.0, 1.1) to
    # [1.1, 1.2): the same test rejects it.
    values = S.draw_slowdowns(S.TABLE4, "sl_scr", N, np.random.default_rng(20090525))
    wrong = dict(S.TABLE4, sl_scr=(0, 22, 20, 17, 13, 17, 8, 3, 0))
    obs = S.bin_shares(values, S.TABLE4["bins"])
    exp = expected_pct("sl_scr")
    bad = np.asarray(wrong["sl_scr"], dtype=float)
    nz = exp > 0
    assert stats.chisquare(obs[nz] * N / 100, exp[nz] * N / 100).pvalue > 1e-3
    assert stats.chisquare(obs[nz] * N / 100, bad[nz] * N / 100).pvalue < 1e-3


def test_self_and_coscheduling_draws_reproduce_table4():
    scr, sno = S.self_slowdowns(S.TABLE4, N, seed=7)
    assert_matches_table(scr, "sl_scr")
    assert_matches_table(sno, "sl_sno")
    sl = S.CoschedulingSlowdowns(S.TABLE4, seed=7)
    cos = np.array([sl(a, a + 1) for a in range(N)])
    assert_matches_table(cos, "sl_cos")


@pytest.mark.parametrize("column", S.COLUMNS)
def test_draws_stay_in_ranges_of_nonzero_share(column):
    values = S.draw_slowdowns(S.TABLE4, column, N, np.random.default_rng(3))
    bins = np.asarray(S.TABLE4["bins"])
    live = bins[np.asarray(S.TABLE4[column]) > 0]
    inside = (values[:, None] >= live[:, 0]) & (values[:, None] < live[:, 1])
    assert np.all(inside.sum(axis=1) == 1)


def test_top_of_a_range_is_excluded():
    # A generator whose uniforms are all just below 1 still lands below hi.
    class AlmostOne(np.random.Generator):
        def random(self, size=None, dtype=np.float64, out=None):
            return np.full(size, np.nextafter(1.0, 0.0))

    table = {"bins": [[1.0, 1.1]], "sl_cos": [100]}
    x = S.draw_slowdowns(table, "sl_cos", 3, AlmostOne(np.random.PCG64(0)))
    assert np.all((x >= 1.0) & (x < 1.1))


@pytest.mark.parametrize("column", ["sl_scr", "sl_sno", "sl_cos"])
def test_draw_one_is_draw_of_one(column):
    # The pair draws' scalar path against the array path, generator by
    # generator (same seeds), bins of share 0 and the top of a range included.
    for table in (S.TABLE4, {"bins": [[1.0, 1.1], [1.1, 1.2], [1.3, 2.0]],
                             "sl_scr": [0, 60, 40], "sl_sno": [50, 0, 50], "sl_cos": [1, 1, 0]}):
        col = S._Column(table, column)
        for seed in range(3000):
            one = col.draw_one(*np.random.default_rng(seed).random(2).tolist())
            assert type(one) is float
            assert one == col.draw(1, np.random.default_rng(seed))[0]


def test_shares_are_normalised():
    # Halving every share changes nothing: shares are relative.
    half = dict(S.TABLE4, sl_sno=tuple(x / 2 for x in S.TABLE4["sl_sno"]))
    a = S.draw_slowdowns(S.TABLE4, "sl_sno", 500, np.random.default_rng(5))
    b = S.draw_slowdowns(half, "sl_sno", 500, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_self_slowdowns_deterministic_and_seeded():
    a = S.self_slowdowns(S.TABLE4, 1000, seed=11)
    b = S.self_slowdowns(S.TABLE4, 1000, seed=11)
    c = S.self_slowdowns(S.TABLE4, 1000, seed=12)
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    # Core and node slowdowns are independent streams, not the same uniforms.
    assert not np.array_equal(np.argsort(a[0]), np.argsort(a[1]))
    # Prefix stability: more jobs extend the draws of fewer.
    longer = S.self_slowdowns(S.TABLE4, 3000, seed=11)
    np.testing.assert_array_equal(longer[0][:1000], a[0])
    np.testing.assert_array_equal(longer[1][:1000], a[1])
    # Coordinates as a sequence work too, and differ from the single seed.
    d = S.self_slowdowns(S.TABLE4, 10, seed=[11, 0])
    assert not np.array_equal(d[0], a[0][:10])


def test_coscheduling_slowdown_per_ordered_pair():
    x = S.coscheduling_slowdown(S.TABLE4, 0, 3, 9)
    assert x == S.coscheduling_slowdown(S.TABLE4, 0, 3, 9)
    assert x == S.CoschedulingSlowdowns(S.TABLE4, 0)(3, 9)
    assert x != S.coscheduling_slowdown(S.TABLE4, 1, 3, 9)
    # Not symmetric: (a, b) and (b, a) are separate draws.
    pairs = [(a, a + 5) for a in range(100)]
    differ = sum(S.coscheduling_slowdown(S.TABLE4, 0, a, b)
                 != S.coscheduling_slowdown(S.TABLE4, 0, b, a) for a, b in pairs)
    assert differ >= 95
    # The order of the calls does not matter (no shared generator state).
    sl = S.CoschedulingSlowdowns(S.TABLE4, 0)
    backwards = [sl(b, a) for a, b in reversed(pairs)]
    forwards = [S.coscheduling_slowdown(S.TABLE4, 0, b, a) for a, b in reversed(pairs)]
    assert backwards == forwards
    assert len(sl.memo) == len(pairs)


def test_coscheduling_rejects_bad_pairs():
    with pytest.raises(ValueError, match="itself"):
        S.coscheduling_slowdown(S.TABLE4, 0, 4, 4)
    with pytest.raises(ValueError, match="id"):
        S.CoschedulingSlowdowns(S.TABLE4, 0)(-1, 2)
    with pytest.raises(ConfigError, match="seed"):
        S.coscheduling_slowdown(S.TABLE4, -3, 1, 2)


def test_draw_needs_a_generator():
    with pytest.raises(TypeError, match="Generator"):
        S.draw_slowdowns(S.TABLE4, "sl_cos", 1, 42)


def test_bin_shares_half_open_and_outside():
    bins = [[0.9, 1.0], [1.0, 1.1]]
    # 1.0 belongs to [1.0, 1.1); 1.1 and 0.5 are in no bin.
    assert S.bin_shares([1.0, 1.0, 1.1, 0.5], bins).tolist() == [0.0, 50.0]
    with pytest.raises(ValueError):
        S.bin_shares([], bins)


# --------------------------------------------------------------------------
# Formulas 7 and 8
# --------------------------------------------------------------------------

# (oSize, SL_scr, SL_sno) -> PPN, formula 7 before rounding, then the size
# under "nearest", "ppn_multiple", "power_of_two" (computed by hand).
CASES = [
    # case 1: serial, although a full node would be fine
    ((1, 1.0, 1.0), 1, 1.0, (1, 1, 1)),
    # case 1: SL_sno 1.15 > 1.12 and 1.2 * 1.15 = 1.38 > 1.25
    ((6, 1.2, 1.15), 1, 6.0, (6, 6, 6)),
    # case 2: 1.3 * 1.1 = 1.43 > 1.25, SL_sno 1.1 <= 1.12: 6 * 2 / 1.1 = 10.91
    ((6, 1.3, 1.1), 2, 12 / 1.1, (11, 10, 11)),
    # case 2, power of two: 8 * 2 / 1.1 = 14.55 (log2 3.86 -> 16)
    ((8, 1.3, 1.1), 2, 16 / 1.1, (15, 14, 16)),
    # case 3: 1.05 * 1.10 = 1.155 <= 1.25: 8 * 4 / 1.05 / 1.10 = 27.71
    ((8, 1.05, 1.10), 4, 32 / 1.05 / 1.10, (28, 28, 32)),
    # case 3, not a power of two: 6 * 4 / 1.155 = 20.78 (20.78 / 4 = 5.19 -> 20)
    ((6, 1.05, 1.10), 4, 24 / 1.05 / 1.10, (21, 20, 21)),
    # case 3 with a speedup: 16 * 4 / 1.0 / 0.95 = 67.37 (67.37 / 4 = 16.84 -> 68)
    ((16, 1.0, 0.95), 4, 64 / 0.95, (67, 68, 64)),
]


@pytest.mark.parametrize("args, p, x, sizes", CASES)
def test_formulas_7_and_8_by_hand(args, p, x, sizes):
    o, scr, sno = args
    assert S.ppn(o, scr, sno, MAX_SL, SELF_SL2) == p
    assert math.floor(x + 0.5) == sizes[0]   # the hand value agrees with its rounding
    for rounding, want in zip(S.ROUNDINGS, sizes):
        got = S.adjusted_size(o, scr, sno, MAX_SL, SELF_SL2, rounding=rounding)
        assert got == want and isinstance(got, int), (rounding, got)
    # Formula 8 on the new size gives the same PPN.
    assert S.ppn(sizes[0], scr, sno, MAX_SL, SELF_SL2) == p


def test_boundaries_are_inclusive():
    just_above = np.nextafter(SELF_SL2, 2.0)
    # SL_sno exactly SELF_SL2 (product 1.2 * 1.12 > 1.25): case 2, 16 / 1.12 = 14.29.
    assert S.ppn(8, 1.2, SELF_SL2, MAX_SL, SELF_SL2) == 2
    assert S.adjusted_size(8, 1.2, SELF_SL2, MAX_SL, SELF_SL2) == 14
    assert S.ppn(8, 1.2, just_above, MAX_SL, SELF_SL2) == 1
    assert S.adjusted_size(8, 1.2, just_above, MAX_SL, SELF_SL2) == 8
    # Product exactly MAX_SL (1.25 * 1.0): case 3, 32 / 1.25 = 25.6.
    assert 1.25 * 1.0 == MAX_SL
    assert S.ppn(8, 1.25, 1.0, MAX_SL, SELF_SL2) == 4
    assert S.adjusted_size(8, 1.25, 1.0, MAX_SL, SELF_SL2) == 26
    above = np.nextafter(1.25, 2.0)
    assert S.ppn(8, above, 1.0, MAX_SL, SELF_SL2) == 2
    assert S.adjusted_size(8, above, 1.0, MAX_SL, SELF_SL2) == 16


def test_halves_round_up_and_sizes_stay_positive():
    # Exact halves need thresholds other than Table 6's: 3 * 4 / 4 / 2 = 1.5.
    assert S.adjusted_size(3, 4.0, 2.0, max_sl=10.0, self_sl2=1.12) == 2
    # Case 2 with 3 * 2 / 4 = 1.5 -> 2; with 3 * 2 / 16 = 0.375 -> at least 1 (or the PPN).
    assert S.adjusted_size(3, 1.0, 4.0, max_sl=1.25, self_sl2=5.0) == 2
    assert S.adjusted_size(3, 1.0, 16.0, max_sl=1.25, self_sl2=20.0) == 1
    assert S.adjusted_size(3, 1.0, 16.0, max_sl=1.25, self_sl2=20.0, rounding="ppn_multiple") == 2
    # ppn_multiple: 7 / 2 = 3.5 -> 4 multiples of 2 (case 2, 7 * 2 / 2).
    assert S.adjusted_size(7, 1.0, 2.0, max_sl=1.25, self_sl2=2.0, rounding="ppn_multiple") == 8


def test_vectorised_equals_scalar():
    rng = np.random.default_rng(1)
    o = rng.integers(1, 129, 500)
    scr, sno = S.self_slowdowns(S.TABLE4, 500, seed=2)
    for rounding in S.ROUNDINGS:
        vec = S.adjusted_size(o, scr, sno, MAX_SL, SELF_SL2, rounding=rounding)
        assert vec.dtype == np.int64
        one = [S.adjusted_size(int(a), float(b), float(c), MAX_SL, SELF_SL2, rounding=rounding)
               for a, b, c in zip(o, scr, sno)]
        assert vec.tolist() == one
    pv = S.ppn(o, scr, sno, MAX_SL, SELF_SL2)
    assert pv.tolist() == [S.ppn(int(a), float(b), float(c), MAX_SL, SELF_SL2)
                           for a, b, c in zip(o, scr, sno)]


def test_roundings_on_table4_draws():
    o = np.tile(np.arange(1, 129), 40)
    scr, sno = S.self_slowdowns(S.TABLE4, len(o), seed=4)
    p = S.ppn(o, scr, sno, MAX_SL, SELF_SL2)
    slow = S.self_slowdown_at(p, scr, sno)
    sizes = {r: S.adjusted_size(o, scr, sno, MAX_SL, SELF_SL2, rounding=r) for r in S.ROUNDINGS}
    # Node-time per unit runtime (nSize / PPN * slowdown) stays closest to oSize with "nearest".
    err = {r: np.abs(s / p * slow - o).mean() for r, s in sizes.items()}
    assert err["nearest"] < err["ppn_multiple"] and err["nearest"] < err["power_of_two"]
    # ppn_multiple fills nodes; power_of_two doubles or quadruples power-of-two jobs exactly.
    assert np.all(sizes["ppn_multiple"] % p == 0)
    pow2 = (o & (o - 1)) == 0
    np.testing.assert_array_equal(sizes["power_of_two"][pow2], (o * p)[pow2])
    # Serial jobs stay serial and parallel ones parallel, under every rounding.
    for s in sizes.values():
        np.testing.assert_array_equal(s == 1, o == 1)


def test_self_slowdown_at():
    assert S.self_slowdown_at(1, 1.3, 1.2) == 1.0
    assert S.self_slowdown_at(2, 1.3, 1.2) == 1.2
    assert S.self_slowdown_at(4, 1.5, 1.25) == 1.875
    # Formula 7 divides by exactly these: nSize / PPN * slowdown = oSize before rounding.
    assert S.self_slowdown_at([4, 2], [1.05, 1.3], [1.1, 1.1]).tolist() == [1.05 * 1.1, 1.1]
    with pytest.raises(ValueError, match="1, 2 or 4"):
        S.self_slowdown_at(3, 1.0, 1.0)


@pytest.mark.parametrize("kwargs, error", [
    (dict(o_size=0), ValueError),
    (dict(o_size=2.5), ValueError),
    (dict(sl_scr=0.0), ValueError),
    (dict(sl_sno=float("nan")), ValueError),
    (dict(rounding="up"), ConfigError),
])
def test_formula_7_rejects_bad_input(kwargs, error):
    args = dict(o_size=4, sl_scr=1.1, sl_sno=1.1, max_sl=MAX_SL, self_sl2=SELF_SL2)
    args.update(kwargs)
    with pytest.raises(error):
        S.adjusted_size(**args)


def test_thresholds_are_checked_where_the_published_file_is_read(tmp_path):
    # MAX_SL and SELF_SL2 reach formulas 7 and 8 from the published file, whose schema
    # requires numbers > 0.
    import yaml

    from helpers_pipeline import REPO
    from simlib.studies.zeng.published import load_published
    data = yaml.safe_load((REPO / "config/published/zeng.yaml").read_text())
    data["table6"]["MAX_SL"] = -1.0
    (tmp_path / "z.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="table6.MAX_SL: -1.0 is less than or equal to the minimum of 0"):
        load_published(tmp_path / "z.yaml")


def test_a_purpose_s_generator_is_its_seed_sequence():
    a = S.rng_for(7, S.SELF_SLOWDOWN_STREAM).random()
    assert a == S.rng_for([7], S.SELF_SLOWDOWN_STREAM).random()
    assert a != S.rng_for(8, S.SELF_SLOWDOWN_STREAM).random()
    # Without the compiled kernel, a pair's two uniforms are numpy's.
    assert S.seeded_uniforms([0, 5]) == np.random.default_rng([0, 5]).random(2).tolist()
