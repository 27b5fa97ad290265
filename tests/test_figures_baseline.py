"""Tests of simlib.figures.baseline: wait-vs-load figure and the baseline table."""
import math

import numpy as np
import pandas as pd
import pytest

from simlib.cube import build_cube
from simlib.figures import baseline as B


def sweep(seeds=(0, 1, 2)):
    """Baseline-shaped cube; ``seeds=None`` gives one run per point and no seed dim."""
    recs = []
    for trace in ["SDSC-SP2", "CTC-SP2"]:
        for p, policy in enumerate(["fcfs", "easy", "conservative"]):
            for load in [0.5, 0.7, 0.9]:
                for s in seeds if seeds is not None else [None]:
                    rec = {"trace": trace, "policy": policy, "load": load,
                           "mean_wait": 1000.0 * (p + 1) * load + (s or 0),
                           "utilization": load * 0.9}
                    if s is not None:
                        rec["seed"] = s
                    recs.append(rec)
    dims = ["trace", "policy", "load"] + (["seed"] if seeds is not None else [])
    return build_cube(recs, dims, ["mean_wait", "utilization"])


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_plot_writes_png(tmp_path):
    out = B.plot_wait_vs_load(sweep(), tmp_path / "fig" / "wait.png", scale_label="smoke")
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_plot_svg_is_deterministic(tmp_path):
    a = B.plot_wait_vs_load(sweep(), tmp_path / "a.svg", scale_label="default")
    b = B.plot_wait_vs_load(sweep(), tmp_path / "b.svg", scale_label="default")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_text().lstrip().startswith("<?xml") and a.stat().st_size > 10_000


def test_plot_footnote_states_scale_and_seeds(tmp_path, monkeypatch):
    texts = []
    orig = B.Figure.text

    def spy(self, x, y, s, *args, **kwargs):
        texts.append(s)
        return orig(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(B.Figure, "text", spy)
    B.plot_wait_vs_load(sweep(), tmp_path / "f.png", scale_label="smoke")
    B.plot_wait_vs_load(sweep(seeds=None), tmp_path / "g.png", scale_label="full")
    assert [t for t in texts if t.startswith("scale")] == [
        "scale: smoke; seeds: 3 (mean over seeds, band = min–max)",
                     "scale: full; seeds: 1 (single run per point)"]


def test_plot_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        B.plot_wait_vs_load(sweep(), tmp_path / "f.pdf", scale_label="smoke")
    with pytest.raises(ValueError, match="no values"):
        B.plot_wait_vs_load(sweep().sel(load=[]), tmp_path / "f.png", scale_label="smoke")
    with pytest.raises(KeyError, match="nope"):
        B.plot_wait_vs_load(sweep(), tmp_path / "f.png", metric="nope", scale_label="smoke")


def test_time_scale_choice():
    cube = sweep()
    assert B._time_scale(cube["mean_wait"]) == (60.0, "min")  # peak ~2702 s
    assert B._time_scale(cube["utilization"]) == (1.0, "1")


def test_baseline_table_means_over_seeds():
    df = B.baseline_table(sweep())
    assert list(df.columns) == ["trace", "policy", "load", "mean_wait", "utilization", "n_seeds"]
    assert len(df) == 2 * 3 * 3
    row = df[(df.trace == "SDSC-SP2") & (df.policy == "easy") & (df.load == 0.7)].iloc[0]
    # seeds 0, 1, 2 add 0, 1, 2 -> mean 1
    assert row.mean_wait == pytest.approx(2000 * 0.7 + 1)
    assert row.n_seeds == 3
    # Sorted by trace, policy, load.
    assert df.trace.tolist()[:9] == ["CTC-SP2"] * 9
    assert df.policy.tolist()[:3] == ["conservative"] * 3
    assert df.load.tolist()[:3] == [0.5, 0.7, 0.9]


def test_baseline_table_without_seed_and_with_nan():
    cube = sweep(seeds=None)
    cube["mean_wait"].loc[dict(trace="CTC-SP2", policy="fcfs", load=0.5)] = np.nan
    df = B.baseline_table(cube, metrics=["mean_wait"])
    assert list(df.columns) == ["trace", "policy", "load", "mean_wait"]
    assert math.isnan(df.iloc[6].mean_wait)  # CTC-SP2, fcfs (after conservative, easy), 0.5
    md = B.table_to_markdown(df, {"mean_wait": "s"})
    lines = md.splitlines()
    assert lines[0] == "| trace | policy | load | mean_wait (s) |"
    assert lines[1] == "|---|---|---:|---:|"
    assert lines[2] == "| CTC-SP2 | conservative | 0.5 | 1500 |"
    assert "| CTC-SP2 | fcfs | 0.5 | — |" in lines


def test_write_table_csv_and_md(tmp_path):
    df = B.baseline_table(sweep())
    csv = B.write_table(df, tmp_path / "t.csv")
    back = pd.read_csv(csv)
    pd.testing.assert_frame_equal(back, df)
    md = B.write_table(df, tmp_path / "t.md")
    assert md.read_text().count("\n") == len(df) + 2
    with pytest.raises(ValueError):
        B.write_table(df, tmp_path / "t.xlsx")
