"""Paper Z's figures (simlib.studies.zeng.figures): the grouped bars every bar chart uses."""
import numpy as np

from simlib.figures.common import new_figure
from simlib.studies.zeng.figures import bars


def test_bars_group_series_per_tick_with_their_confidence_intervals():
    fig = new_figure(4, 3)
    ax = fig.add_subplot()
    x, _ = bars(ax, {"a": [np.array([1.0, 3.0]), np.array([2.0])],
                     "b": [np.array([4.0, 4.0]), np.array([5.0, 7.0])]}, ["one", "two"],
                colors=["red"])
    assert x.tolist() == [0, 1] and [t.get_text() for t in ax.get_xticklabels()] == ["one", "two"]
    heights = [[r.get_height() for r in c] for c in ax.containers if hasattr(c, "patches")]
    assert heights == [[2.0, 2.0], [4.0, 6.0]]
    # Side by side within a group, centred on the tick.
    lefts = [c.patches[0].get_x() + c.patches[0].get_width() / 2 for c in ax.containers
             if hasattr(c, "patches")]
    assert np.allclose(lefts, [-0.2, 0.2])
