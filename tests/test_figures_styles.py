"""simlib.figures.styles: the papers' policies keep their styles, a user's take reserved ones."""
from __future__ import annotations

import numpy as np
from matplotlib.colors import to_hex

from helpers_figures import assert_user_styles, legend_entries
from simlib.cube import build_cube
from simlib.figures.baseline import plot_wait_vs_load
from simlib.figures.styles import USER_COLORS, USER_MARKERS, policy_styles, user_style
from simlib.studies.baseline.figures import PAPER_STYLES as BASELINE
from simlib.studies.dutot.figures import _VARIANT_COLORS as DUTOT
from simlib.studies.kumar.plots import _FAMILIES as KUMAR
from simlib.studies.kumar.plots import policy_style
from simlib.studies.utrera.plots import _COLORS as UTRERA


def test_user_colours_and_markers_are_no_paper_policys():
    paper = ({s["color"] for s in BASELINE.values()} | {f[1] for f in KUMAR}
             | set(UTRERA.values()) | set(DUTOT.values()))
    assert not {to_hex(c) for c in USER_COLORS} & {to_hex(c) for c in paper}
    markers = {s["marker"] for s in BASELINE.values()} | {f[2] for f in KUMAR}
    assert not set(USER_MARKERS) & markers


def test_the_first_36_user_styles_are_distinct():
    pairs = {(s["color"], s["marker"]) for s in map(user_style, range(36))}
    assert len(pairs) == 36


def test_adding_policies_moves_no_paper_style():
    alone = policy_styles(["conservative", "easy", "fcfs"], BASELINE)
    more = policy_styles(["aaa", "conservative", "easy", "easy_small", "fcfs"], BASELINE)
    assert all(more[p] == alone[p] for p in alone)
    assert more["aaa"] != more["easy_small"]
    # Paper K: a user's policy named like a family is not drawn as that family.
    assert policy_style("easy_small", ["easy_small"])["color"] == USER_COLORS[0]
    assert policy_style("easy")["color"] == "tab:blue"


def test_the_baseline_figure_names_user_policies_in_user_colours(tmp_path):
    policies = ["conservative", "easy", "easy_small", "fcfs", "sjf_easy"]
    loads = [0.5, 0.9]
    cube = build_cube([{"policy": p, "load": x, "mean_wait": 10.0 * (k + 1) * x}
                       for k, p in enumerate(policies) for x in loads], ["policy", "load"],
                      ["mean_wait"])
    svg = plot_wait_vs_load(cube, tmp_path / "w.svg", scale_label="smoke",
                            paper_styles=BASELINE)
    assert_user_styles(svg, ["easy_small", "sjf_easy"])
    colours = dict(legend_entries(svg))
    assert colours["fcfs"] == to_hex(BASELINE["fcfs"]["color"])
    assert np.all([colours[p] == to_hex(BASELINE[p]["color"]) for p in BASELINE])
