"""Tests of simlib.backends.platform_file: SimGrid platforms of homogeneous clusters read back."""
from __future__ import annotations

import pytest
from helpers_errors import assert_names_where

from simlib.backends.platform_file import parse_quantity, read_platform, same_structure
from simlib.backends.simgrid import Cluster, NetworkPlatform
from simlib.errors import TraceFormatError


def _hetero(private_links="split_duplex") -> NetworkPlatform:
    """Three clusters of different sizes, speeds and links (paper D's heterogeneous kind)."""
    return NetworkPlatform((Cluster("a", 12, 1.5e9, 1.25e8, 2.4e-5, 1.25e9, 1e-6),
                            Cluster("b", 3, 3.2e10, 1.25e9, 0.0, 1e10, 0.0),
                            Cluster("c", 7, 286097.0, 1.2e7, 1.5e-4, 1.3e8, 2e-4)),
                           backbone_bw=5e8, backbone_lat=1e-4, name="hetero",
                           private_links=private_links)


@pytest.mark.parametrize("master", [None, "master_host"])
@pytest.mark.parametrize("fixed_width", [False, True])
@pytest.mark.parametrize("private_links", ["split_duplex", "shared"])
def test_a_platform_written_then_read_has_the_same_hosts_and_links(tmp_path, master, fixed_width,
                                                                   private_links):
    net = _hetero(private_links)
    path = tmp_path / "p.xml"
    path.write_text(net.to_xml(master=master, fixed_width=fixed_width))
    got = read_platform(path)
    assert same_structure(got.network, net)
    assert got.network.backbone_bw == net.backbone_bw
    assert got.network.backbone_lat == net.backbone_lat
    assert got.hosts == net.host_names(fixed_width=fixed_width)
    assert got.master == (None if master is None else f"{master}0")
    assert [c.name for c in got.network.clusters] == ["cluster-0", "cluster-1", "cluster-2"]


def test_batsim_order_is_the_name_order_and_fixed_width_makes_it_the_id_order(tmp_path):
    net = _hetero()
    path = tmp_path / "p.xml"
    path.write_text(net.to_xml())
    order = read_platform(path).batsim_order
    # node-0, node-1, node-10, node-11, node-12, ..., node-2, ...
    assert order[:5] == [0, 1, 10, 11, 12] and sorted(order) == list(range(net.nodes))
    path.write_text(net.to_xml(fixed_width=True))
    assert read_platform(path).batsim_order == list(range(net.nodes))


def test_one_cluster_without_master_has_no_backbone_in_the_file(tmp_path):
    net = NetworkPlatform.homogeneous(clusters=1, nodes=4, speed=1e9, bw=1e9, lat=0.0,
                                      switch_bw=2e9, switch_lat=0.0, backbone_bw=7e9,
                                      backbone_lat=0.5)
    path = tmp_path / "p.xml"
    path.write_text(net.to_xml())
    got = read_platform(path).network
    assert same_structure(got, net)
    assert (got.backbone_bw, got.backbone_lat) == (2e9, 0.0)   # the switch's, documented


def test_a_batsim_style_platform_is_read(tmp_path):
    # The shape of Batsim's own example platforms: SI units, a master cluster, a route to it.
    path = tmp_path / "batsim.xml"
    path.write_text("""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
    <cluster id="compute" prefix="host" suffix=".site" radical="0-31"
        speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us" />
    <cluster id="master_cluster" prefix="master_host" suffix="" radical="0-0"
        speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us">
        <prop id="role" value="master" />
    </cluster>
    <link id="backbone" bandwidth="10Gbps" latency="0.5ms" />
    <zoneRoute src="compute" dst="master_cluster" gw_src="hostcompute_router.site"
        gw_dst="master_hostmaster_cluster_router"><link_ctn id="backbone" /></zoneRoute>
</zone>
</platform>
""")
    got = read_platform(path)
    (c,) = got.network.clusters
    # Units are factors, as SimGrid applies them: 50us is 50 * 1e-6.
    assert (c.nodes, c.speed, c.bw, c.lat, c.switch_bw, c.switch_lat) == pytest.approx(
        (32, 1e9, 1.25e8, 5e-5, 2.25e9, 5e-4), rel=1e-15)
    assert (got.network.backbone_bw, got.network.backbone_lat) == (1.25e9, 5e-4)
    assert got.hosts[:3] == ["host0.site", "host1.site", "host2.site"]
    assert got.master == "master_host0"


@pytest.mark.parametrize("text, kind, value", [
    ("1Gf", "speed", 1e9), ("286.097kf", "speed", 286097.0), ("2.5Mflops", "speed", 2.5e6),
    ("7", "speed", 7.0), ("125MBps", "bandwidth", 1.25e8), ("1KiBps", "bandwidth", 1024.0),
    ("8Gbps", "bandwidth", 1e9), ("24us", "time", 2.4e-5), ("1.5h", "time", 5400.0),
    ("1e-3s", "time", 1e-3), ("2m", "time", 120.0),
])
def test_simgrid_units(text, kind, value):
    assert parse_quantity(text, kind) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, kind", [("1GHz", "speed"), ("10MB", "bandwidth"),
                                        ("fast", "time"), ("1 Gf f", "speed")])
def test_an_unknown_unit_is_an_error(text, kind):
    with pytest.raises(ValueError):
        parse_quantity(text, kind)


CLUSTER = ('<cluster id="c0" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1GBps" '
           'lat="0s" bb_bw="1GBps" bb_lat="0s"{extra}/>')


def _file(*body: str) -> str:
    return ("<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
            + "\n".join(body) + "\n</zone>\n</platform>\n")


@pytest.mark.parametrize("text, line, field, reason", [
    ("<platform><zone>", 1, None, "not well-formed XML"),
    (_file(CLUSTER.format(extra=""), '<host id="h" speed="1Gf"/>'), 5, "host",
     "<host> is not read"),
    (_file(CLUSTER.format(extra="").replace(' bb_bw="1GBps"', "")), 4, "bb_bw",
     "a cluster without a switch"),
    (_file(CLUSTER.format(extra="").replace('speed="1Gf"', 'speed="1GHz"')), 4, "speed",
     "unknown speed unit 'GHz'"),
    (_file(CLUSTER.format(extra="").replace('radical="0-3"', 'radical="3-1"')), 4, "radical",
     "is empty"),
    (_file(CLUSTER.format(extra=' bb_sharing_policy="FATPIPE"')), 4, "bb_sharing_policy",
     "SHARED only"),
    (_file(CLUSTER.format(extra=""), CLUSTER.format(extra="").replace('id="c0"', 'id="c1"')
           .replace('radical="0-3"', 'radical="4-7"')), 4, None, "no <zoneRoute> between"),
    (_file(CLUSTER.format(extra=""), CLUSTER.format(extra="").replace('id="c0"', 'id="c1"')
           .replace('radical="0-3"', 'radical="10-13"'),
           '<link id="bb" bandwidth="1GBps"/>',
           '<zoneRoute src="c0" dst="c1" gw_src="nc0_router" gw_dst="nc1_router">'
           '<link_ctn id="bb"/><link_ctn id="bb"/></zoneRoute>'),
     7, "link_ctn", "one and the same link"),
    (_file(CLUSTER.format(extra=""), '<zoneRoute src="c0" dst="c9" gw_src="a" gw_dst="b">'
                                     '<link_ctn id="gone"/></zoneRoute>'),
     5, "link_ctn", "no <link id='gone'>"),
    # Hosts n0..n3 and m0..m3 are consecutive by name; n0-1 + n4-5 and n2-3 interleave.
    (_file(CLUSTER.format(extra="").replace('radical="0-3"', 'radical="0-1,4-5"'),
           CLUSTER.format(extra="").replace('id="c0"', 'id="c1"').replace('radical="0-3"',
                                                                           'radical="2-3"')),
     4, "radical", "not consecutive in name order"),
    (_file(CLUSTER.format(extra=""), CLUSTER.format(extra="").replace('id="c0"', 'id="c1"')),
     4, None, "host name 'n0' is used twice"),
    (_file(CLUSTER.format(extra="")).replace('routing="Full"', 'routing="Vivaldi"'), 3,
     "routing", "'Vivaldi': read are the zones"),
    (_file(CLUSTER.format(extra=""), CLUSTER.format(extra="").replace('id="c0"', 'id="c1"')
           .replace('radical="0-3"', 'radical="10-13"'),
           '<link id="bb" bandwidth="1GBps" latency="soon"/>',
           '<zoneRoute src="c0" dst="c1" gw_src="nc0_router" gw_dst="nc1_router">'
           '<link_ctn id="bb"/></zoneRoute>'), 6, "latency", "'soon' is not a number"),
])
def test_a_malformed_platform_names_file_line_field_and_reason(tmp_path, text, line, field,
                                                               reason):
    path = tmp_path / "bad.xml"
    path.write_text(text)
    assert_names_where(read_platform, path, line, field, reason)


def test_two_masters_are_an_error(tmp_path):
    master = ('<cluster id="m{k}" prefix="master{k}" suffix="" radical="0-0" speed="1Gf" '
              'bw="1GBps" lat="0s" bb_bw="1GBps"><prop id="role" value="master"/></cluster>')
    path = tmp_path / "p.xml"
    path.write_text(_file(CLUSTER.format(extra=""), master.format(k=1), master.format(k=2)))
    with pytest.raises(TraceFormatError, match=r"p\.xml:6: field 'role': a second master"):
        read_platform(path)


@pytest.mark.simgrid
def test_simgrid_loads_the_batsim_platform_and_lists_hosts_in_batsim_order(tmp_path):
    from simlib.backends.simgrid import require_simgrid, run_isolated

    require_simgrid()
    net = _hetero()
    path = tmp_path / "p.xml"
    path.write_text(net.to_xml(master="master_host"))
    names = run_isolated(_simgrid_host_names, str(path))
    got = read_platform(path)
    compute = [n for n in names if n != got.master]
    # SimGrid's host order (Batsim's machine ids) is what batsim_order says.
    assert compute == [got.hosts[i] for i in got.batsim_order]
    assert got.master in names


def _simgrid_host_names(path: str) -> list[str]:
    import simgrid

    engine = simgrid.Engine(["test", "--log=root.thres:critical"])
    engine.load_platform(path)
    return [h.name for h in engine.all_hosts]
