"""Paper D's README (simlib.studies.dutot.readme)."""
import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from simlib.claims import Claim, write_claims
from simlib.studies.base import Files, StepContext
from simlib.studies.dutot.platforms import describe, heterogeneous_platform, homogeneous_platform
from simlib.studies.dutot.published import load_published
from simlib.studies.dutot.readme import bottlenecks, findings, readme_step

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "config/published/dutot.yaml"
PUB = load_published(PUBLISHED)
GRIFFON = {"speed": 286.087e3, "bw": 1.25e8, "lat": 24e-6, "switch_bw": 1.25e9,
           "switch_lat": 0.0, "backbone_bw": 1.25e9, "backbone_lat": 24e-6}
HOM = {"printed_speed": "table1_base", "griffon": GRIFFON}


def test_the_printed_private_links_bind_every_communicating_job():
    nets = [homogeneous_platform(PUB, HOM, m) for m in ("printed", "griffon")]
    b = bottlenecks([describe(n) for n in nets], size=16, f_comp=1e6, f_comm=1e8)
    one = b[b["placement"] == "one cluster"].set_index("platform")
    # 16 x 1e8 B per second of runtime through 1.25e6 B/s: 1280 s, past F_w = 1000.
    assert one.loc["hom-printed", "private link"] == pytest.approx(1280.0)
    assert one.loc["hom-printed", "binding"] == "private link"
    # Griffon: 256 flows of 1e8 B through the 1.25e9 B/s cluster switch bind.
    assert one.loc["hom-griffon", "cluster switch"] == pytest.approx(20.48)
    assert one.loc["hom-griffon", "binding"] == "cluster switch"
    assert one.loc["hom-griffon", "compute"] == pytest.approx(1e6 / 286.087e3)
    two = b[b["placement"] == "two clusters"].set_index("platform")
    # 8 + 8 hosts: 128 flows each way cross the main switch.
    assert two.loc["hom-griffon", "main switch"] == pytest.approx(128 * 1e8 / 1.25e9)
    no_self = bottlenecks([describe(nets[1])], size=16, f_comp=1e6, f_comm=1e8,
                          self_communication=False)
    assert no_self.loc[0, "cluster switch"] == pytest.approx(240 * 1e8 / 1.25e9)
    # Table 1's base cluster: 1.25e9 B/s private links, the cluster switch binds.
    base = bottlenecks([describe(homogeneous_platform(PUB, HOM, "base"))], size=16, f_comp=1e6,
                       f_comm=1e8)
    assert base.loc[0, "private link"] == pytest.approx(16 * 1e8 / 1.25e9)
    assert base.loc[0, "binding"] == "cluster switch"
    # A shared private link carries what the host sends and receives: 15 + 15 flows
    # to and from the others and its traffic to itself once.
    shared = homogeneous_platform(PUB, {**HOM, "private_links": "shared"}, "printed")
    b2 = bottlenecks([describe(shared)], size=16, f_comp=1e6, f_comm=1e8)
    assert b2.loc[0, "private link"] == pytest.approx(31 * 1e8 / 1.25e6)


def test_findings_per_reading():
    b = pd.DataFrame({"platform": ["hom-printed"] * 2, "placement": ["one cluster", "two clusters"],
                      "bound": [2e3, 2e3], "binding": ["private link"] * 2})
    t = pd.DataFrame({"model": ["printed"], "runs": [4], "runs_with_kills": [2], "killed_share": [0.1]})
    het = pd.DataFrame(columns=["grouping", "runs", "runs_with_kills", "killed_share"])
    [f] = findings(b, t, het, 1000.0)
    assert f["model"] == "printed" and f["parts"][1] == {
        "placement": "two clusters", "binding": "private link", "bound": "2e+03"}
    assert f["above"] and f["private_only"] and (f["kills"], f["runs"], f["share"]) == (2, 4, 0.1)


def test_readme_step(tmp_path):
    claim = Claim("dutot", "(a) basic has the worst makespan", "§5.3, Fig. 1", '"quote"',
                  "basic worse in 3/3", "a rule", "reproduced", "fig1_homogeneous_printed.png",
                  "homogeneous, printed model", unit="seed (workload)", n="1", key="basic_worst")
    write_claims([claim], tmp_path / "claims.csv", scale="smoke")
    trend = {"slope": 1e-4, "intercept": 1e5, "resid_sd": 10.0, "resid_sd_rel": 0.01,
             "mean_makespan": 2e5, "runs": 4, "runs_with_kills": 1, "killed_share": 0.05}
    pd.DataFrame([{"model": "printed", "variant": "basic", **trend}]).to_csv(tmp_path / "th.csv",
                                                                             index=False)
    pd.DataFrame([{"grouping": "all", "group": "both sets", "variant": "local", **trend}]).to_csv(
        tmp_path / "tt.csv", index=False)
    (tmp_path / "eligible.json").write_text(json.dumps({
        "cleaning_counts": {"jobs_in": 100, "jobs_dropped": 3}, "size_from_allocated": 7,
        "filter_counts": {"eligible": 50, "too_wide": 20, "too_short": 20, "too_long": 7},
        "pool_sizes": {"1": 30, "16": 20},
        "pool_rules": {"rule": "filter_then_clip", "other": "clip_then_filter",
                       "pool_jobs": {"filter_then_clip": 50, "clip_then_filter": 53},
                       "runtime_above_request": {"filter_then_clip": 4, "clip_then_filter": 7},
                       "entering": 3, "leaving": 0, "runtime_changed": 0}}))
    (tmp_path / "seed0.json").write_text(json.dumps({
        "seed": 0, "jobs": 40, "runtime_mean": 7200.0, "walltime_from_request": 0}))
    spec = {"variants": ["basic", "local"], "recompute": "rebuild",
            "workload": {"max_size": 16, "runtime_min": 3600, "runtime_max": 14400,
                         "f_w": 1000.0, "base_seed": 2015, "order": "trace", "jobs": {}},
            "task": {"f_comp": 1e6, "self_communication": True},
            "homogeneous": HOM, "heterogeneous": {"backbone": "homogeneous"},
            "claims": {"alpha": 0.05, "spread": 0.05}}
    nets = {n.name: n for n in (homogeneous_platform(PUB, HOM, "printed"),
                                heterogeneous_platform(PUB, {"backbone": "homogeneous"}, "low", "o1"))}
    arts = [{"section": "dutot", "path": f"paper_figures/dutot/{f}", "title": f"title of {f}"}
            for f in ("README.md", "fig1_homogeneous_printed.png", "trends_heterogeneous.md",
                      "table1.md")]
    ctx = StepContext(
        Files(claims=str(tmp_path / "claims.csv"), published=str(PUBLISHED),
              trends_homogeneous=str(tmp_path / "th.csv"), trends_heterogeneous=str(tmp_path / "tt.csv"),
              eligible=str(tmp_path / "eligible.json"), workloads=[str(tmp_path / "seed0.json")],
              others=[]),
        Files(readme=str(tmp_path / "out" / "README.md")),
        {"scale": "smoke", "scale_description": "CI scale", "spec": spec,
         "seeds": {"homogeneous": [0], "heterogeneous": [0]},
         "f_comm": {"homogeneous": [0.0, 2e8], "heterogeneous": [0.0, 2e8]},
         "runs": {"homogeneous": 4, "heterogeneous": 4}, "models": ["printed"], "jobs": 40,
         "platforms": {n: {"experiment": "homogeneous" if n.startswith("hom") else "heterogeneous",
                           "coords": {}, "source": "s", "description": describe(net)}
                       for n, net in nets.items()},
         "artifacts": arts},
        {}, logging.getLogger("test"), {})
    readme_step(ctx)
    text = (tmp_path / "out" / "README.md").read_text()
    assert "**Scale: smoke**." in text
    assert "Summary: 1 reproduced" in text
    assert "| homogeneous, printed model | seed (workload) | 1 |" in text
    assert "**The unit of replication is the seed**" in text
    assert "fewer than 6 seeds" in text and "with 10 seeds or more" in text
    assert "within 5 % of the mean makespan" in text and "too few for most tests" in text
    assert "![fig1_homogeneous_printed.png](fig1_homogeneous_printed.png)" in text
    assert "the paper's own picks cannot be recovered" in text
    assert "Generator(PCG64(SeedSequence([2015, s])))" in text
    assert "look like unit slips" in text and "50 eligible jobs" in text
    # The paper's run counts and bounds come from the published file, not typed.
    assert "(the paper: 20 seeds x 40 F_comm x 5 = 4,000 on one platform)" in text
    assert "(the paper: 10 x 20 x 5 x 8 = 8,000, 4,000 per set)" in text
    assert "(l_t = 1 h, u_t = 4 h as in §5.3" in text
    # The pool rule and the other one's effect, from the eligible step's counts.
    assert "**Pool rule** (`workload.pool_rule: filter_then_clip`): §5.1's order" in text
    assert "runtimes of the 4 eligible jobs that ran past their requested time" in text
    assert ("The other order, `clip_then_filter`, gives 53 eligible jobs instead of 50: 3 enter, "
            "0 leave, and 7 of its runtimes are clipped instead of 4.") in text
    # The three readings of §5.3, their numbers from the published file and the grid.
    assert "three readings" in text
    for words in ("- `printed`: §5.3's values as printed: private links 1.25 MB/s and 24 ns",
                  "- `griffon`: SimGrid's own Griffon description",
                  "links 125 MB/s and 24 us", "- `base`: Table 1's base cluster b",
                  "private links 1.25 GB/s and 24 ns",
                  "It differs from `printed` only in private link bandwidth (1.25 GB/s instead "
                  "of 1.25 MB/s).",
                  "`split_duplex` is SimGrid's `SPLITDUPLEX`"):
        assert words in " ".join(text.split()), words
    assert "| hom-printed | one cluster |" in text and "| het-low-o1 |" in text
    assert ("- **homogeneous, printed model**: a job of the largest size alone is bound by its "
            "private link in one cluster (2.56e+03 s per s of runtime)") in text
    assert "- [`paper_figures/dutot/table1.md`](table1.md) — title of table1.md" in text
