"""Figures of paper K (simlib.studies.kumar.plots): styles, bands, and that every
figure renders, deterministically, from cubes of the study's shapes."""
from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from helpers_kumar_study import cs_cube, fig1_cube, load_cube

from simlib.studies.kumar import plots as F
from simlib.studies.kumar.runs import fig2_example

PNG = b"\x89PNG\r\n\x1a\n"


def test_policy_style_by_family():
    assert F.policy_style("easy_de")["color"] == F.policy_style("easy")["color"]
    assert F.policy_style("los_e")["color"] == F.policy_style("los")["color"]
    assert F.policy_style("hybrid_los")["color"] == F.policy_style("delayed_los_e")["color"]
    assert len({F.policy_style(p)["color"] for p in ("easy", "los", "delayed_los")}) == 3
    assert F.policy_style("delayed_los_e")["label"] == "Delayed-LOS-E"
    assert F.policy_style("my_policy")["label"] == "my_policy"


def test_seed_band_is_a_student_t_interval():
    da = xr.DataArray([[1.0, 2.0, 3.0], [5.0, 5.0, np.nan]], dims=("load", "seed"))
    mean, lo, hi = F.seed_band(da)
    assert mean.tolist() == [2.0, 5.0]
    # sd 1, n 3: t(0.975, 2) = 4.303 -> half-width 2.484.
    assert hi[0] - mean[0] == pytest.approx(4.302653 / np.sqrt(3), rel=1e-5)
    assert lo[1] == hi[1] == 5.0   # identical values: no band
    one = xr.DataArray([1.0, 2.0], dims=("load",))
    assert [a.tolist() for a in F.seed_band(one)] == [[1.0, 2.0]] * 3


def test_save_rejects_other_formats(tmp_path):
    fig, _ = F._new_figure(1, 1)
    with pytest.raises(ValueError, match="png or .svg"):
        F.save_figure(fig, tmp_path / "f.pdf")


def _svg_twice(draw, tmp_path):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    draw(a)
    draw(b)
    return a.read_bytes(), b.read_bytes()


def test_fig1_renders_deterministically(tmp_path):
    cube = fig1_cube()
    out = F.plot_fig1(cube, tmp_path / "f1.png", scale_label="smoke", note="a note")
    assert out.read_bytes()[:8] == PNG
    a, b = _svg_twice(lambda p: F.plot_fig1(cube, p, scale_label="smoke"), tmp_path)
    assert a == b
    assert b"deterministic input, one run per point" in a   # footnote (SVG comment)


def test_fig2_renders_both_schedules(tmp_path):
    out = F.plot_fig2(fig2_example(), tmp_path / "f2.png", titles={"los": "(a)"})
    assert out.read_bytes()[:8] == PNG
    a, b = _svg_twice(lambda p: F.plot_fig2(fig2_example(), p), tmp_path)
    assert a == b


def test_cs_sweep_figure_with_paired_panel(tmp_path):
    cube = cs_cube()
    out = F.plot_cs_sweep(cube, "ps05", tmp_path / "f5.png", scale_label="default", pick=3,
                          title="Fig. 5", subtitle="n = 1")
    assert out.read_bytes()[:8] == PNG
    a, b = _svg_twice(lambda p: F.plot_cs_sweep(cube, "ps08", p, scale_label="smoke",
                                                pick=5, paired=None), tmp_path)
    assert a == b
    # The paired panel is an extra axes.
    fig_a = (tmp_path / "a.svg").read_text()
    F.plot_cs_sweep(cube, "ps08", tmp_path / "c.svg", scale_label="smoke", pick=5)
    assert (tmp_path / "c.svg").read_text().count('id="axes_') == fig_a.count('id="axes_') + 1


def test_load_sweep_figure_one_row_per_workload(tmp_path):
    cube = load_cube()
    out = F.plot_load_sweep(cube, ["elastic_batch", "elastic_het"], tmp_path / "f11.svg",
                            scale_label="smoke",
                            policies={"elastic_batch": ["easy_e", "los_e", "delayed_los_e"],
                                      "elastic_het": ["easy_de", "los_de", "hybrid_los_e"]},
                            row_titles={"elastic_batch": "batch"}, note="second line")
    text = out.read_text()
    assert text.count('id="axes_') == 2 * 3
    one = F.plot_load_sweep(cube, ["ps05", "ps08"], tmp_path / "f8.svg", scale_label="smoke",
                            metrics=["mean_wait"])
    assert one.read_text().count('id="axes_') == 2


def test_a_band_of_a_quantity_that_cannot_be_negative_is_cut_at_zero():
    # Two seeds far apart: the t-interval of the mean reaches below 0.
    da = xr.DataArray([[1.0, 99.0], [10.0, 12.0]], dims=("load", "seed"))
    ax = F.new_figure(4, 3).add_subplot()
    assert F._draw(ax, np.array([0.5, 0.9]), da, "easy") is True
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == 0.0
    # An improvement (floor None) keeps its whole interval.
    ax2 = F.new_figure(4, 3).add_subplot()
    assert F._draw(ax2, np.array([0.5, 0.9]), da - 50, "easy", band=True, floor=None) is False
    assert ax2.collections[0].get_paths()[0].vertices[:, 1].min() < -50
    assert "cut at 0" in F._seeds_note(da, "smoke", cut=True)
    assert "cut at 0" not in F._seeds_note(da, "smoke")
