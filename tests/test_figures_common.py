"""Tests of simlib.figures.common: time units, figures, atomic deterministic saving."""
import pytest

from simlib.figures.common import new_figure, save_figure, time_unit


def test_time_unit():
    assert time_unit([10.0]) == (1.0, "s")
    assert time_unit([5 * 3600.0]) == (3600.0, "h")
    assert time_unit([30 * 86400.0]) == (86400.0, "days")


def _figure():
    fig = new_figure(3, 2)
    fig.subplots().plot([0, 1], [1, 0])
    return fig


def test_save_figure_is_deterministic_and_leaves_no_temporary_file(tmp_path):
    a = save_figure(_figure(), tmp_path / "sub" / "a.svg")
    b = save_figure(_figure(), tmp_path / "sub" / "b.svg")
    assert a.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["a.svg", "b.svg"]


def test_failed_save_leaves_nothing(tmp_path, monkeypatch):
    fig = new_figure(3, 2)

    def broken(*args, **kwargs):
        raise RuntimeError("renderer failed")

    monkeypatch.setattr(fig, "savefig", broken)
    with pytest.raises(RuntimeError, match="renderer failed"):
        save_figure(fig, tmp_path / "f.png")
    assert list(tmp_path.iterdir()) == []


def test_save_figure_rejects_other_formats(tmp_path):
    with pytest.raises(ValueError, match=".png or .svg"):
        save_figure(new_figure(2, 2), tmp_path / "f.pdf")
    assert list(tmp_path.iterdir()) == []


def test_log_y_keeps_the_axis_around_the_values():
    from simlib.figures.common import log_y
    ax = new_figure(3, 2).subplots()
    ax.errorbar([0, 1], [10.0, 20.0], yerr=[10.0, 1.0])  # a bar reaching 0
    log_y(ax, [10.0, 20.0, 0.0, float("nan")])
    lo, hi = ax.get_ylim()
    assert lo >= 10.0 / 3 and hi >= 24.0
    # Between half a decade and two: minor labels at 2, 3 and 5 x 10^k only.
    ax = new_figure(3, 2).subplots()
    ax.plot([0, 1], [1.0, 50.0])
    log_y(ax, [1.0, 50.0])
    minor = ax.yaxis.get_minor_formatter()
    assert (minor(20.0, 0), minor(40.0, 0)) == ("20", "")


def test_footer_lines_reserve_a_band_per_line():
    from simlib.figures.common import footer_lines
    heights = []
    for text in ("one", "one\ntwo\nthree"):
        fig = _figure()
        footer_lines(fig, text)
        heights.append(fig.get_layout_engine().get()["rect"][1])
    assert heights[0] < heights[1] <= 0.3


def test_nonnegative_error_bars_are_cut_at_zero_only_where_they_reach_below():
    from simlib.figures.common import nonnegative_yerr
    half = [1.0, 1.0]
    assert nonnegative_yerr([3.0, 2.0], half) is half   # nothing to cut: drawn as before
    lower, upper = nonnegative_yerr([3.0, 0.25], half)
    assert lower.tolist() == [1.0, 0.25] and upper.tolist() == [1.0, 1.0]
