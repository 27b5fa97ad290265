"""Paper D's figures and tables (simlib.studies.dutot.figures)."""
import itertools
import logging
from pathlib import Path

import pandas as pd

from simlib.cube import write_cube
from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.cubes import build
from simlib.studies.dutot.figures import (format_latency, format_rate, grid_facts, heterogeneous_step,
                                          homogeneous_step, platforms_step, table1_markdown,
                                          trends_markdown, variant_label)
from simlib.studies.dutot.platforms import describe, heterogeneous_platform, homogeneous_platform
from simlib.studies.dutot.published import load_published
from simlib.studies.dutot.report import trends_frame

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "config/published/dutot.yaml"
VARIANTS = ["basic", "best_effort_contiguous", "best_effort_local", "contiguous", "local"]


def records(dims):
    out = []
    for values in itertools.product(*dims.values()):
        rec = dict(zip(dims, values))
        f = rec["f_comm"]
        rec.update(makespan=1e5 * (1 + f / 1e8) * (1 + VARIANTS.index(rec["variant"]) / 10)
                   + 100 * rec["seed"], mean_execution=1.0, mean_wait=1.0,
                   jobs_killed=int(f > 1e8 and rec["variant"] == "basic"), jobs=10)
        out.append(rec)
    return out


def ctx(tmp_path, inputs, outputs, params):
    return StepContext(Files(inputs), Files({k: str(tmp_path / v) for k, v in outputs.items()}),
                       params, {}, logging.getLogger("test"), {})


COMMON = {"scale": "smoke", "scale_description": "", "variants": VARIANTS, "jobs": 40}


def test_homogeneous_step_draws_fig1_per_model_and_tabulates_trends(tmp_path):
    recs = records({"model": ["printed", "griffon"], "variant": VARIANTS, "seed": [0, 1],
                    "f_comm": [0.0, 1e8, 2e8]})
    write_cube(build(recs, "homogeneous"), tmp_path / "hom.nc")
    c = ctx(tmp_path, {"cube": str(tmp_path / "hom.nc")},
            {"fig1_printed": "f1p.png", "fig1_griffon": "f1g.png", "trends_csv": "t.csv",
             "trends_md": "t.md"}, {**COMMON, "models": ["printed", "griffon"]})
    homogeneous_step(c)
    for name in ("f1p.png", "f1g.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    trends = pd.read_csv(tmp_path / "t.csv")
    assert trends["model"].tolist()[:1] == ["printed"] and len(trends) == 10
    assert trends.loc[0, "runs_with_kills"] == 2  # basic, F_comm 2e8, two seeds
    md = (tmp_path / "t.md").read_text()
    assert "smoke scale" in md and "| printed | basic |" in md


def test_heterogeneous_step_draws_fig3_by_set_and_ordering(tmp_path):
    recs = records({"set": ["high", "low"], "ordering": ["o1", "o2"], "variant": VARIANTS,
                    "seed": [0], "f_comm": [0.0, 2e8]})
    write_cube(build(recs, "heterogeneous"), tmp_path / "het.nc")
    outs = {"fig3": "f3.png", "fig3_by_set": "f3s.png", "fig3_by_ordering": "f3o.png",
            "trends_csv": "t.csv", "trends_md": "t.md"}
    heterogeneous_step(ctx(tmp_path, {"cube": str(tmp_path / "het.nc")}, outs, COMMON))
    for name in ("f3.png", "f3s.png", "f3o.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    trends = pd.read_csv(tmp_path / "t.csv")
    assert trends.groupby("grouping").size().to_dict() == {"all": 5, "ordering": 10, "set": 10}
    assert "## Per ordering" in (tmp_path / "t.md").read_text()


def test_figures_are_byte_identical_on_rerun(tmp_path):
    recs = records({"model": ["printed"], "variant": VARIANTS, "seed": [0],
                    "f_comm": [0.0, 1e8, 2e8]})
    write_cube(build(recs, "homogeneous"), tmp_path / "hom.nc")
    outs = {"fig1_printed": "a.png", "trends_csv": "t.csv", "trends_md": "t.md"}
    params = {**COMMON, "models": ["printed"]}
    homogeneous_step(ctx(tmp_path, {"cube": str(tmp_path / "hom.nc")}, outs, params))
    first = (tmp_path / "a.png").read_bytes()
    homogeneous_step(ctx(tmp_path, {"cube": str(tmp_path / "hom.nc")}, outs, params))
    assert (tmp_path / "a.png").read_bytes() == first


def test_platforms_step_writes_the_simgrid_files_the_drawing_and_table1(tmp_path):
    pub = load_published(PUBLISHED)
    griffon = {"speed": 286.087e3, "bw": 1.25e8, "lat": 24e-6, "switch_bw": 1.25e9,
               "switch_lat": 0.0, "backbone_bw": 1.25e9, "backbone_lat": 24e-6}
    nets = [homogeneous_platform(pub, {"printed_speed": "table1_base", "griffon": griffon}, "griffon"),
            heterogeneous_platform(pub, {"backbone": "homogeneous"}, "high", "o2")]
    params = {"platforms": {n.name: describe(n) for n in nets},
              "sources": {n.name: f"source of {n.name} -- here" for n in nets}}
    outs = {"drawing": "p.png", "table1_md": "t1.md", "table1_csv": "t1.csv",
            "xml_hom_griffon": "hom-griffon.xml", "xml_het_high_o2": "het-high-o2.xml"}
    platforms_step(ctx(tmp_path, {"published": str(PUBLISHED)}, outs, params))
    xml = (tmp_path / "het-high-o2.xml").read_text()
    assert "<!-- source: source of het-high-o2 - here -->" in xml
    assert xml.replace("  <!-- source: source of het-high-o2 - here -->\n", "") == nets[1].to_xml()
    assert (tmp_path / "p.png").stat().st_size > 10_000
    t1 = pd.read_csv(tmp_path / "t1.csv")
    assert t1["cluster"].tolist() == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert "| c3 | high |" in (tmp_path / "t1.md").read_text()


def test_table1_markdown_and_units():
    frame, md = table1_markdown(load_published(PUBLISHED))
    assert "| c2 | high | 4 | 0 | 2.02 | 1 | 1 | 5 GB/s | 0 s | 577.9 | 1.25 GB/s | 24 ns |" in md
    assert format_rate(1.25e8) == "125 MB/s" and format_latency(24e-6) == "24 us"
    assert variant_label("best_effort_local") == "best effort local"


def test_grid_facts():
    assert grid_facts(pd.DataFrame({"seed": [1, 0, 1], "f_comm": [0.0, 2e8, 4e8]})) == {
        "seeds": 2, "first": 0, "last": 1, "f_count": 3, "f_max": 4e8}


def test_trends_markdown_in_hours():
    runs = pd.DataFrame({"variant": ["basic"] * 3, "f_comm": [0.0, 1e8, 2e8],
                         "makespan": [3600.0, 7200.0, 10800.0], "jobs_killed": [0, 0, 0],
                         "jobs": [1, 1, 1]})
    md = trends_markdown(trends_frame(runs, ["variant"]), ["variant"])
    assert "| basic | 2 | 1 | 1 |" in md
