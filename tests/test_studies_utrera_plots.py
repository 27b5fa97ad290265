"""Tests of simlib.studies.utrera.plots: paper U's figures and tables."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.studies.utrera import plots as F
from simlib.studies.utrera.metrics import run_metrics
from simlib.allocations import simulate_with_allocations
from simlib.studies.utrera.published import load_published
from simlib.studies.utrera.transforms import toy_workload

PNG = b"\x89PNG\r\n\x1a\n"
PUBLISHED = Path(__file__).resolve().parents[1] / "config/published/utrera.yaml"
FIG2 = [(0, 8, 2), (0, 4, 1), (0, 2, 1), (0, 8, 2), (0, 4, 2), (0, 8, 1)]


@pytest.fixture(scope="module")
def pub():
    return load_published(PUBLISHED)


@pytest.fixture(scope="module")
def schedules():
    out = {"cpus": 10, "policies": {}}
    for pol in ("fcfs", "easy", "fcfs_malleable"):
        params = {"ov_max": 0.0} if pol == "fcfs_malleable" else {}
        res, seg = simulate_with_allocations(toy_workload(FIG2), pol, cpus=10, policy_params=params)
        out["policies"][pol] = {"metrics": run_metrics(res),
                                "segments": [{**r, "cpu_ids": list(r["cpu_ids"])}
                                             for r in seg.to_dict("records")]}
    return out


def _png(path):
    data = Path(path).read_bytes()
    assert data.startswith(PNG) and len(data) > 10_000
    return data


def test_fig2_table_nine_numbers_match(schedules, pub):
    t = F.fig2_table(schedules, pub["fig2"])
    assert len(t) == 9 and t["match"].all()
    row = t[(t["policy"] == "easy") & (t["metric"] == "utrera_slowdown")].iloc[0]
    assert row["ours"] == pytest.approx(19 / 6) and row["ours_truncated"] == 3.16


def test_fig2_gantt(tmp_path, schedules, pub):
    _png(F.plot_fig2(schedules, pub["fig2"], tmp_path / "g.png", scale_label="smoke"))
    a = F.plot_fig2(schedules, pub["fig2"], tmp_path / "a.svg", scale_label="smoke").read_bytes()
    b = F.plot_fig2(schedules, pub["fig2"], tmp_path / "b.svg", scale_label="smoke").read_bytes()
    assert a == b  # deterministic output
    assert b"J6" in a or b"<path" in a


def _table1_rows():
    rows = []
    for load in (0.3, 0.5, 0.7, 0.9):
        for pol, f in (("easy", 1.0), ("fcfs_malleable", 0.7)):
            for m, v in (("mean_wait", 50.0), ("mean_response", 100.0), ("utrera_slowdown", 3.0)):
                rows.append(dict(load=load, policy=pol, metric=m, mean=f * v * (1 + load),
                                 ci95=1.0, n=5, paper_S=f * v, paper_R=f * v * 1.05))
    return pd.DataFrame(rows)


def test_table1_figure_and_gains(tmp_path):
    t1 = _table1_rows()
    _png(F.plot_table1(t1, tmp_path / "t1.png", scale_label="default", n_seeds=5, note="x"))
    g = F._gains(t1, "mean")
    assert np.allclose(g.values, 30.0)


def _traces_rows(policies=("easy", "fcfs_malleable")):
    rows = []
    for t in ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2"):
        for k, p in enumerate(policies):
            for m in ("mean_wait", "mean_execution", "mean_response", "utrera_slowdown"):
                rows.append(dict(trace=t, policy=p, metric=m, mean=1000.0 * (k + 1), ci95=50.0, n=5))
    return pd.DataFrame(rows)


def test_fig3_orders_readings(tmp_path):
    _png(F.plot_fig3(_traces_rows(), tmp_path / "f3.png", scale_label="smoke", n_seeds=2))
    pols = ("fcfs_malleable", "fcfs_malleable:order=longest")
    tf = _traces_rows(pols)
    _png(F.plot_ratios(tf, {"oldest": pols[0], "longest": pols[1]}, pols[0], tmp_path / "o.png",
                       "orders", base="oldest", scale="smoke", n_seeds=2))
    ratio = F._ratio_frame(tf, "mean_response", {"oldest": pols[0], "longest": pols[1]}, pols[0])
    assert ratio.set_index("member")["mean"].loc["longest"].tolist() == [2.0, 2.0, 2.0]
    _png(F.plot_ratios(_traces_rows(("easy", "fcfs_malleable", "fcfs_malleable:ov0")),
                       {"main": "fcfs_malleable", "ov0": "fcfs_malleable:ov0"}, "easy",
                       tmp_path / "r.png", "readings", scale="smoke", n_seeds=2))


def test_long_util_and_fig1(tmp_path):
    lu = pd.DataFrame([dict(long_util=u, policy=p, metric=m, mean=v + u, ci95=0.1, n=3)
                       for u in (0.6, 0.8, 1.0) for p, v in (("easy", 5.0), ("fcfs_malleable", 4.0))
                       for m in ("utrera_slowdown", "mean_response")])
    _png(F.plot_long_util(lu, tmp_path / "l.png", trace="SDSC-SP2", scale_label="smoke", n_seeds=3))
    t = np.arange(0, 10 * 86400, 3600.0)
    tl = pd.DataFrame({"time": t, "busy_cpus": (t // 3600) % 100, "queued_jobs": (t // 7200) % 7,
                       "processes": (t // 3600) % 100})
    _png(F.plot_fig1(tl, np.zeros(len(t)), 128, 86400.0, 7 * 86400.0, tmp_path / "f1.png",
                     trace="SDSC-BLUE", scale_label="smoke"))


def test_to_markdown_formats():
    md = F.to_markdown(pd.DataFrame({"x": [1.0, 2.5, np.nan], "y": ["a", None, "c"]}))
    assert md.splitlines()[1] == "|---:|---|"
    assert "| 1 | a |" in md and "| – |  |" not in md and "| – | c |" in md


def test_bad_format_is_rejected(tmp_path, schedules, pub):
    with pytest.raises(ValueError, match="png or .svg"):
        F.plot_fig2(schedules, pub["fig2"], tmp_path / "g.pdf", scale_label="smoke")


# ------------------------------------------------------------ extra_policies
def test_user_policies_and_their_styles():
    assert F.user_policies(["easy", "mine", "fcfs_malleable", "fcfs_malleable:ov0", "mine"]) == [
        "mine"]
    s = F.styles(["easy", "fcfs_malleable", "b_user", "a_user"])
    assert s["easy"] == {"color": "tab:blue", "marker": "o", "label": "EASY backfilling"}
    # The users' in the order given: the reserved styles, their names as labels.
    assert [s[p]["color"] for p in ("b_user", "a_user")] == ["tab:purple", "tab:brown"]
    assert s["a_user"]["label"] == "a_user" and s["a_user"]["linestyle"] == "-."
    assert F.users_note([]) is None and "a_user, b_user" in F.users_note(["a_user", "b_user"])


@pytest.fixture
def drawn(monkeypatch):
    """The figures drawn (instead of saved), by file name."""
    figs = {}

    def keep(fig, out):
        figs[Path(out).name] = fig
        return Path(out)
    monkeypatch.setattr(F, "save_figure", keep)
    return figs


def _legend(ax) -> dict:
    handles, labels = ax.get_legend_handles_labels()
    return dict(zip(labels, handles))


def test_users_policies_take_user_styles_in_every_comparison(tmp_path, drawn):
    from matplotlib.colors import to_rgba

    from simlib.figures.styles import is_user_style
    users = ["sjf_easy", "mine"]
    F.plot_fig3(_traces_rows(("easy", "fcfs_malleable", *users)), tmp_path / "f3.png",
                scale_label="smoke", n_seeds=2, policies=["easy", "fcfs_malleable", *users])
    bars = _legend(drawn["f3.png"].axes[0])
    assert list(bars) == ["EASY backfilling", "FCFS-malleable", *users]
    for name, color in zip(users, ("tab:purple", "tab:brown")):
        # A bar container: its patches' colour, the users' reserved ones in the order given.
        assert bars[name].patches[0].get_facecolor() == to_rgba(color)
    assert bars["EASY backfilling"].patches[0].get_facecolor() == to_rgba("tab:blue")
    t1 = _table1_rows()
    t1 = pd.concat([t1, t1[t1["policy"] == "easy"].assign(policy="mine", mean=t1["mean"] / 2,
                                                          paper_S=np.nan, paper_R=np.nan)])
    F.plot_table1(t1, tmp_path / "t1.png", scale_label="smoke", n_seeds=5)
    top, bottom = (_legend(drawn["t1.png"].axes[k]) for k in (0, 4))
    for legend in (top, bottom):
        line = legend["mine"].lines[0] if hasattr(legend["mine"], "lines") else legend["mine"]
        assert is_user_style(line.get_color(), line.get_marker())
        assert line.get_linestyle() == "-."
    # The paper's lines only for the paper's policies; the user's gain over EASY: 50 %.
    assert "mine (paper S)" not in top
    assert np.allclose(F._gains(t1, "mean", "mine").values, 50.0)
    lu = pd.DataFrame([dict(long_util=u, policy=p, metric=m, mean=v + u, ci95=0.1, n=3)
                       for u in (0.6, 1.0) for p, v in (("easy", 5.0), ("fcfs_malleable", 4.0),
                                                        ("mine", 3.0))
                       for m in ("utrera_slowdown", "mean_response")])
    F.plot_long_util(lu, tmp_path / "l.png", trace="SDSC-SP2", scale_label="smoke", n_seeds=3)
    line = _legend(drawn["l.png"].axes[0])["mine"].lines[0]
    assert is_user_style(line.get_color(), line.get_marker())
    easy = _legend(drawn["l.png"].axes[0])["EASY backfilling"].lines[0]
    assert not is_user_style(easy.get_color(), easy.get_marker())
