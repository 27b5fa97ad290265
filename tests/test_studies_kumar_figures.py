"""Which figure of paper K is drawn from what (simlib.studies.kumar.figures):
Fig. 1 and its data, Fig. 2 and its schedules, Figs. 5-11 from the cubes."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from helpers_kumar_study import config, cs_cube, load_cube

from simlib.cube import build_cube
from simlib.studies.kumar import figures as F
from simlib.studies.kumar.plan import FIGURES, KumarPlan, artifact_list
from simlib.studies.kumar.runs import fig2_example
from simlib.studies.kumar.published import load_published

PNG = b"\x89PNG\r\n\x1a\n"


def test_draw_fig1_writes_the_figure_and_its_data(tmp_path):
    recs = [{"policy": p, "trace": "SDSC-SP2", "load": x, "mean_wait": w, "offered_load": x + 0.01}
            for p, vals in (("easy", (10.0, 50.0)), ("los", (9.0, 60.0)))
            for x, w in zip((0.5, 0.9), vals)]
    cube = build_cube(recs, ["policy", "trace", "load"], ["mean_wait", "offered_load"],
                      metric_info={"offered_load": ("1", "offered load reached", "")})
    out = {k: tmp_path / f"f1.{k}" for k in ("png", "svg", "csv")}
    F.draw_fig1(cube, scale="smoke", **out)
    assert out["png"].read_bytes()[:8] == PNG
    # The trace's source is cited under the figure (wrapped: one comment per
    # text, its line breaks kept).
    assert "Parallel Workloads Archive" in " ".join(out["svg"].read_text().split())
    with open(out["csv"]) as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["scale", "policy", "trace", "load", "mean_wait", "offered_load"]
    assert {(r["policy"], r["load"], r["mean_wait"]) for r in rows} == {
        ("easy", "0.5", "10.0"), ("easy", "0.9", "50.0"), ("los", "0.5", "9.0"),
        ("los", "0.9", "60.0")}
    assert {r["scale"] for r in rows} == {"smoke"}


def test_draw_fig2_writes_both_schedules(tmp_path):
    out = {k: tmp_path / f"f2.{k}" for k in ("png", "svg", "csv")}
    F.draw_fig2(fig2_example(), **out)
    assert out["png"].read_bytes()[:8] == PNG
    assert F.FIG2_TITLES["delayed_los"] in out["svg"].read_text()
    lines = out["csv"].read_text().splitlines()
    assert lines[0] == "policy,job_id,processors,start,end,allocated_resources"
    # LOS starts the head job of 7 at once; Delayed-LOS skips it.
    assert lines[1].startswith("los,1,7,0.0,10.0,")
    assert "delayed_los,1,7,10.0,20.0," in out["csv"].read_text()


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """Every figure of the sweeps, drawn once from the synthetic cubes: (plan, dir, files)."""
    out = tmp_path_factory.mktemp("kumar_figs")
    plan = KumarPlan.from_config(config())
    picks = {"by_workload": {"ps02": 2, "ps05": 3, "ps08": 4}}
    published = load_published(Path(__file__).resolve().parents[1] / "config/published/kumar.yaml")
    written = F.draw_sweeps(plan, cs_cube(), load_cube(), picks, out, published=published)
    return plan, out, written


def test_draw_sweeps_writes_every_figures_artifact_once(sweeps):
    plan, out, written = sweeps
    expected = [(out / a["file"]).as_posix() for a in artifact_list(plan)
                if a["rule"] == "figures"]
    assert sorted(written) == sorted(expected) and len(set(written)) == len(written)
    for path in written:
        assert (out / path.rsplit("/", 1)[1]).exists(), path


def test_draw_sweeps_names_the_picks_and_n_bar(sweeps):
    _, out, _ = sweeps
    # Fig. 9 (P_S = 0.2) uses the C_s picked for ps02; n-bar beside the paper's.
    # (SVG text is drawn as paths; each string is kept in a comment.)
    fig9 = (out / f"{FIGURES['fig9']['file']}.svg").read_text()
    assert "<!-- het_pd05_ps02: n̄ = 100.0 (paper: 177.7), C_s = 2 -->" in fig9
    # The C_s sweep of ps02 is no figure of the paper and says so.
    assert "<!-- C_s sweep, Load 0.9, P_S = 0.2 (not in the paper) -->" in (
        out / "cs_sweep_ps02.svg").read_text()
