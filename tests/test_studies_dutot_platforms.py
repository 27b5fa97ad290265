"""Paper D's platforms (simlib.studies.dutot.platforms): Table 1, orderings,
node ids, the three readings of §5.3, private links, SimGrid files."""
from pathlib import Path

import pytest

from simlib.studies.dutot.platforms import (cluster_values, describe, from_description,
                                            heterogeneous_backbone, heterogeneous_platform,
                                            homogeneous_platform, homogeneous_values,
                                            ordering_clusters, ordering_values, table1_frame)
from simlib.errors import ConfigError
from simlib.studies.dutot.published import load_published

REPO = Path(__file__).resolve().parents[1]
PUB = load_published(REPO / "config/published/dutot.yaml")
GRIFFON = {"speed": 286.087e3, "bw": 1.25e8, "lat": 24e-6, "switch_bw": 1.25e9,
           "switch_lat": 0.0, "backbone_bw": 1.25e9, "backbone_lat": 24e-6}
HOM = {"printed_speed": "table1_base", "griffon": GRIFFON}
HET = {"backbone": "homogeneous", "ordering_values": {}}


def test_table1_multipliers_give_the_absolute_values():
    c2 = cluster_values(PUB, "c2")
    assert c2["switch_bw"] == 4 * 1.25e9 and c2["switch_lat"] == 0.0
    assert c2["speed"] == pytest.approx(2.02 * 286.097e3)
    assert c2["bw"] == 1.25e9 and c2["lat"] == pytest.approx(24e-9)
    expected = {"c1": (2, 1), "c2": (4, 2.02), "c3": (1, 2.94), "c4": (1, 1.24),
                "c5": (2, 1.61), "c6": (1, 1.72)}
    frame = table1_frame(PUB).set_index("cluster")
    assert list(frame.index) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    for c, (bw_s, cp) in expected.items():
        assert frame.loc[c, "switch_bw_factor"] == bw_s and frame.loc[c, "speed_factor"] == cp
        assert frame.loc[c, "switch_bw"] == pytest.approx(bw_s * 1.25e9)
        assert frame.loc[c, "speed"] == pytest.approx(cp * 286.097e3)
    assert frame.loc["c1", "set"] == "high" and frame.loc["c6", "set"] == "low"


def test_orderings_index_into_the_set():
    assert ordering_values(PUB)["o2"] == [3, 3, 3, 2, 2, 2, 1, 1]
    assert ordering_clusters(PUB, "high", [3, 1, 2, 3, 1, 2, 1, 2]) == [
        "c3", "c1", "c2", "c3", "c1", "c2", "c1", "c2"]
    assert ordering_clusters(PUB, "low", [1, 2, 2, 3, 3, 2, 1, 1]) == [
        "c4", "c5", "c5", "c6", "c6", "c5", "c4", "c4"]
    # Unknown sets and indices past a set are the study's and the published file's checks
    # (tests/test_studies_dutot_study.py, tests/test_studies_dutot_published.py).
    assert ordering_values(PUB, {"ordering_values": {"o2": [3, 3, 2, 2, 2, 1, 1, 1]}})["o2"][2] == 2


def test_heterogeneous_platform_puts_node_ids_in_cluster_order():
    net = heterogeneous_platform(PUB, HET, "high", "o4")
    assert net.name == "het-high-o4" and net.nodes == 128
    assert [c.name for c in net.clusters] == ["c3", "c1", "c2", "c3", "c1", "c2", "c1", "c2"]
    assert net.first_ids() == list(range(0, 128, 16))
    p = net.platform()
    # Node 16k..16k+15 is cluster k; speeds relative to the slowest (c1).
    assert p.node_cluster.tolist() == [k for k in range(8) for _ in range(16)]
    assert p.node_speed[0] == pytest.approx(2.94) and p.node_speed[16] == pytest.approx(1.0)
    assert (net.backbone_bw, net.backbone_lat) == (1.25e9, pytest.approx(24e-9))


def test_heterogeneous_backbone_is_the_homogeneous_one_unless_given():
    assert heterogeneous_backbone(PUB, HET) == (1.25e9, pytest.approx(24e-9))
    assert heterogeneous_backbone(PUB, {"backbone": {"bw": 5e9, "lat": 1e-6}}) == (5e9, 1e-6)


def test_homogeneous_readings():
    printed = homogeneous_values(PUB, HOM, "printed")
    assert printed == {"speed": 286.097e3, "bw": 1.25e6, "lat": pytest.approx(24e-9),
                       "switch_bw": 1.25e9, "switch_lat": 0.0, "backbone_bw": 1.25e9,
                       "backbone_lat": pytest.approx(24e-9)}
    assert homogeneous_values(PUB, {**HOM, "printed_speed": 1e9}, "printed")["speed"] == 1e9
    assert homogeneous_values(PUB, HOM, "griffon") == GRIFFON
    net = homogeneous_platform(PUB, HOM, "griffon")
    assert net.name == "hom-griffon" and len(net.clusters) == 8 and net.nodes == 128
    assert {c.bw for c in net.clusters} == {1.25e8}
    # Table 1's base cluster b with §5.3's main switch: the printed reading but
    # for its private links (10 Gbit/s = 1.25e9 B/s instead of 1.25e6).
    base = homogeneous_values(PUB, HOM, "base")
    assert base == {**printed, "bw": 1.25e9}
    assert homogeneous_platform(PUB, HOM, "base").name == "hom-base"
    # Another model is refused by the grid's schema (tests/test_workflow_dutot.py).
    with pytest.raises(ConfigError, match="unknown homogeneous model 'table2'"):
        homogeneous_values(PUB, HOM, "table2")


def test_private_links_are_split_duplex_unless_the_grid_says_shared():
    for net in (homogeneous_platform(PUB, HOM, "base"),
                heterogeneous_platform(PUB, HET, "low", "o1")):
        assert net.private_links == "split_duplex"
        assert net.to_xml().count('sharing_policy="SPLITDUPLEX"') == 8
    for net in (homogeneous_platform(PUB, {**HOM, "private_links": "shared"}, "base"),
                heterogeneous_platform(PUB, {**HET, "private_links": "shared"}, "low", "o1")):
        assert describe(net)["private_links"] == "shared"
        assert from_description(describe(net)) == net
        xml = net.to_xml()
        assert "SPLITDUPLEX" not in xml and xml.count('sharing_policy="SHARED" bb_sharing_policy') == 8


def test_names_and_descriptions_round_trip():
    assert homogeneous_platform(PUB, HOM, "printed").name == "hom-printed"
    assert heterogeneous_platform(PUB, HET, "low", "o1").name == "het-low-o1"
    for net in (homogeneous_platform(PUB, HOM, "printed"),
                heterogeneous_platform(PUB, HET, "low", "o3")):
        d = describe(net)
        assert from_description(d) == net
        assert d["first_ids"] == list(range(0, 128, 16))


@pytest.mark.simgrid
def test_platform_files_load_in_simgrid(tmp_path):
    """Every platform's file loads, with 128 hosts named in id order at their speeds."""
    from simlib.backends.simgrid import run_isolated
    nets = [homogeneous_platform(PUB, {**HOM, "private_links": links}, m)
            for m in ("printed", "griffon", "base") for links in ("split_duplex", "shared")]
    nets += [heterogeneous_platform(PUB, HET, s, o) for s in ("high", "low")
             for o in ("o1", "o2", "o3", "o4")]
    for net in nets:
        path = tmp_path / f"{net.name}.xml"
        path.write_text(net.to_xml())
        speeds = run_isolated(_host_speeds, str(path))
        assert len(speeds) == 128, net.name
        expected = [c.speed for c in net.clusters for _ in range(c.nodes)]
        assert speeds == pytest.approx(expected), net.name


def _host_speeds(path):
    import simgrid
    engine = simgrid.Engine(["test", "--log=root.thres:warning"])
    engine.load_platform(path)
    return [engine.host_by_name(f"node-{i}").speed for i in range(128)]
