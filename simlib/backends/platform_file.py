"""Read SimGrid platform files of homogeneous clusters (Batsim's platforms too).

:meth:`~simlib.backends.simgrid.NetworkPlatform.to_xml` writes paper D's
platforms; :func:`read_platform` reads those back, and any file of the same
shape a Batsim user brings: one zone holding

* ``<cluster>`` elements (each one homogeneous cluster: ``prefix``,
  ``suffix``, ``radical``, ``speed``, ``bw``, ``lat``, ``bb_bw``, ``bb_lat``,
  ``sharing_policy`` SPLITDUPLEX or SHARED, ``bb_sharing_policy`` SHARED),
* at most one link joining the compute clusters' switches (the backbone;
  every ``<zoneRoute>`` between two compute clusters must cross just it),
* optionally Batsim's master host: the cluster with the property
  ``role=master`` (Batsim runs its own processes there, never a job), and
  the ``<link>`` and ``<zoneRoute>`` elements that reach it.

Anything else (``<host>``, ``<router>``, ``<route>``, nested zones, other
routing models, a FATPIPE switch, a cluster without switch) is not a
platform of homogeneous clusters joined by one backbone: the reader says
which element, on which line, and why, rather than guess.

Node ids
--------
simlib numbers compute hosts in the numeric-aware order of their names
(``node-2`` before ``node-10``), and each cluster's hosts must then be
consecutive: that is how :meth:`NetworkPlatform.to_xml` writes them. Batsim
v4.2.1 numbers them in SimGrid's host order, the *lexicographic* order of
the names (``node-10`` before ``node-2``): :attr:`PlatformFile.batsim_order`
gives it, and the two agree when the numbers have a fixed width
(``to_xml(fixed_width=True)``).

Units (SimGrid 3.32's): speed in flop/s (``f``, ``kf``, ``Mf``, ``Gf``,
``Tf``, ``Pf``, ``Ef``, ``Zf``, ``Yf``, or ``flops`` spelled out), bandwidth
in bytes/s (``Bps`` with ``k M G T P E Z Y`` or ``Ki Mi Gi Ti Pi Ei Zi Yi``)
or bits/s (``bps``, same prefixes), time in ``ps ns us ms s m h d w``. A
number without a unit is read in the base unit, as SimGrid does.

Examples
--------
>>> import os, tempfile
>>> from simlib.backends.simgrid import NetworkPlatform
>>> net = NetworkPlatform.homogeneous(clusters=2, nodes=3, speed=2e9, bw=1.25e8, lat=2.4e-5,
...                                   switch_bw=1e9, switch_lat=0.0, backbone_bw=5e8,
...                                   backbone_lat=1e-4, name="two")
>>> path = os.path.join(tempfile.mkdtemp(), "p.xml")
>>> _ = open(path, "w").write(net.to_xml(master="master_host"))
>>> got = read_platform(path)
>>> same_structure(got.network, net), got.master, got.hosts[:2]
(True, 'master_host0', ['node-0', 'node-1'])
"""
from __future__ import annotations

import math
import os
import re
import xml.parsers.expat
from dataclasses import dataclass, field

from simlib.errors import TraceFormatError

from .simgrid import PRIVATE_LINKS, Cluster, NetworkPlatform

__all__ = ["PlatformFile", "parse_quantity", "read_platform", "same_structure"]

_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "Z": 1e21,
           "Y": 1e24, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40,
           "Pi": 2.0**50, "Ei": 2.0**60, "Zi": 2.0**70, "Yi": 2.0**80}
_DECIMAL = ("", "k", "M", "G", "T", "P", "E", "Z", "Y")
#: Unit -> factor to the base unit, per kind of quantity.
UNITS = {
    "speed": {**{f"{p}f": _PREFIX[p] for p in _DECIMAL},
              **{f"{p}flops": _PREFIX[p] for p in _DECIMAL}},
    "bandwidth": {**{f"{p}Bps": v for p, v in _PREFIX.items()},
                  **{f"{p}bps": v / 8 for p, v in _PREFIX.items()}},
    "time": {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
             "h": 3600.0, "d": 86400.0, "w": 604800.0},
}
#: Routing models of the top zone whose routes between clusters are its <zoneRoute>s.
ROUTINGS = ("Full", "Floyd", "Dijkstra", "DijkstraCache")
_QUANTITY = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)\s*\Z")
_RADICAL = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?\Z")


def parse_quantity(text: str, kind: str) -> float:
    """A SimGrid quantity in its base unit (flop/s, bytes/s or s).

    Raises
    ------
    ValueError
        Not a number followed by one of :data:`UNITS` ``[kind]``.

    Examples
    --------
    >>> parse_quantity("286.097kf", "speed"), parse_quantity("125MBps", "bandwidth")
    (286097.0, 125000000.0)
    >>> parse_quantity("1Gbps", "bandwidth"), parse_quantity("24us", "time")
    (125000000.0, 2.4e-05)
    """
    m = _QUANTITY.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a number with a unit")
    value, unit = float(m.group(1)), m.group(2)
    units = UNITS[kind]
    if unit and unit not in units:
        raise ValueError(f"unknown {kind} unit {unit!r} in {text!r} (SimGrid's: "
                         f"{', '.join(sorted(units, key=lambda u: (units[u], u)))})")
    return value * units.get(unit, 1.0)


def same_structure(a: NetworkPlatform, b: NetworkPlatform) -> bool:
    """Whether two platforms have the same hosts and links (names aside).

    A platform file names its clusters ``cluster-<k>`` (:meth:`NetworkPlatform.to_xml`),
    not by :attr:`Cluster.name`, so a platform read back differs from the one
    written only in those names. The backbone counts only where it joins
    clusters: a file of one cluster has none (:class:`PlatformFile`).
    """
    def shape(net, backbone: bool):
        return ([(c.nodes, c.speed, c.bw, c.lat, c.switch_bw, c.switch_lat) for c in net.clusters],
                net.private_links, (net.backbone_bw, net.backbone_lat) if backbone else None)

    backbone = len(a.clusters) > 1 or len(b.clusters) > 1
    return shape(a, backbone) == shape(b, backbone)


def _natural_key(name: str):
    """Numeric-aware sort key: ``node-2`` before ``node-10``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", name) if part]


@dataclass
class PlatformFile:
    """What :func:`read_platform` found.

    Attributes
    ----------
    network : NetworkPlatform
        The compute clusters, in node-id order, and the backbone. With one
        compute cluster no backbone link joins clusters: ``backbone_bw`` and
        ``backbone_lat`` are then the master link's, if any (``to_xml``
        writes it with no latency), else the cluster switch's bandwidth and
        0 (no job crosses it).
    hosts : list of str
        Compute host names by simlib node id.
    master : str or None
        Batsim's master host (``role=master``).
    batsim_order : list of int
        Batsim's machine ``k`` is simlib node ``batsim_order[k]`` (SimGrid's
        host order, by name).
    """

    network: NetworkPlatform
    hosts: list[str]
    master: str | None
    batsim_order: list[int] = field(default_factory=list)


class _Element:
    __slots__ = ("tag", "attrs", "line", "children")

    def __init__(self, tag, attrs, line):
        self.tag, self.attrs, self.line, self.children = tag, attrs, line, []


def _parse(path: str) -> _Element:
    root: list[_Element] = []
    stack: list[_Element] = []
    parser = xml.parsers.expat.ParserCreate()

    def start(tag, attrs):
        el = _Element(tag, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(el)
        stack.append(el)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    try:
        with open(path, "rb") as f:
            parser.ParseFile(f)
    except OSError as exc:
        raise TraceFormatError(path, None, None, f"cannot read the file: {exc}") from None
    except xml.parsers.expat.ExpatError as exc:
        raise TraceFormatError(path, exc.lineno, None, f"not well-formed XML: "
                               f"{xml.parsers.expat.ErrorString(exc.code)}") from None
    return root[0]


def read_platform(path: str | os.PathLike) -> PlatformFile:
    """Read a SimGrid platform file of homogeneous clusters (see the module's notes).

    Raises
    ------
    TraceFormatError
        File, line, the element or attribute, and the reason.
    """
    where = str(path)

    def fail(el: _Element, what: str | None, reason: str):
        raise TraceFormatError(where, el.line, what, reason)

    zone, clusters, links, routes = _zone(_parse(where), fail)
    compute, master_el = _split_master(zone, clusters, fail)
    parsed = [_cluster(el, fail) for el in compute]
    shares = {p["sharing"] for p in parsed}
    if len(shares) > 1:
        fail(compute[0], "sharing_policy", "clusters with SPLITDUPLEX and SHARED private links "
                                           "in one platform are not supported")
    hosts, order = _node_order(compute, parsed, fail)
    link = _backbone(compute, master_el, links, routes, fail)
    if link is not None:
        bb_bw, bb_lat = _link(link, fail)
    else:   # one cluster, no master: no link leaves the cluster
        bb_bw, bb_lat = parsed[order[0]]["switch_bw"], 0.0
    network = NetworkPlatform(
        tuple(Cluster(parsed[k]["name"], len(parsed[k]["hosts"]), parsed[k]["speed"],
                      parsed[k]["bw"], parsed[k]["lat"], parsed[k]["switch_bw"],
                      parsed[k]["switch_lat"]) for k in order),
        bb_bw, bb_lat, name=zone.attrs.get("id", "platform"),
        private_links=next(iter(shares)))
    master = None
    if master_el is not None:
        m = _cluster(master_el, fail)
        if len(m["hosts"]) != 1:
            fail(master_el, "radical", f"Batsim's master is one host, not {len(m['hosts'])}")
        master = m["hosts"][0]
    by_name = sorted(range(len(hosts)), key=lambda i: hosts[i])
    return PlatformFile(network, hosts, master, by_name)


def _zone(root: _Element, fail):
    """The one top-level zone and its clusters, links (by id) and zone routes."""
    if root.tag != "platform":
        fail(root, None, f"the root element is <{root.tag}>, not <platform>")
    zones = [el for el in root.children if el.tag in ("zone", "AS")]
    others = [el for el in root.children if el.tag not in ("zone", "AS", "config", "prop")]
    if others:
        fail(others[0], others[0].tag, "only one <zone> of clusters is read at the top level")
    if len(zones) != 1:
        fail(root, None, f"{len(zones)} top-level zones: a platform of clusters has exactly one")
    zone = zones[0]
    routing = zone.attrs.get("routing", "Full")
    if routing not in ROUTINGS:
        fail(zone, "routing", f"{routing!r}: read are the zones whose routes are the "
                              f"<zoneRoute> elements given ({', '.join(ROUTINGS)})")
    clusters, links, routes = [], {}, []
    for el in zone.children:
        if el.tag == "cluster":
            clusters.append(el)
        elif el.tag == "link":
            links[el.attrs.get("id")] = el
        elif el.tag == "zoneRoute":
            routes.append(el)
        elif el.tag != "prop":
            fail(el, el.tag, f"<{el.tag}> is not read: only <cluster>, <link> and <zoneRoute> "
                             "elements make a platform of homogeneous clusters")
    if not clusters:
        fail(zone, None, "no <cluster> in the zone")
    return zone, clusters, links, routes


def _split_master(zone: _Element, clusters: list[_Element], fail):
    """``(compute clusters, the master's cluster or None)``: Batsim's ``role=master``."""
    compute, master = [], None
    for el in clusters:
        props = {p.attrs.get("id"): p.attrs.get("value") for p in el.children if p.tag == "prop"}
        if props.get("role") != "master":
            compute.append(el)
        elif master is not None:
            fail(el, "role", f"a second master cluster (the first is on line {master.line})")
        else:
            master = el
    if not compute:
        fail(zone, None, "every cluster is Batsim's master: no compute host")
    return compute, master


def _node_order(compute: list[_Element], parsed: list[dict], fail):
    """Host names by node id (numeric-aware name order) and the clusters in id order.

    Each cluster's hosts must be consecutive in that order (a range of ids).
    """
    hosts = sorted((name for p in parsed for name in p["hosts"]), key=_natural_key)
    index = {h: i for i, h in enumerate(hosts)}
    if len(index) != len(hosts):
        dup = next(h for h in hosts if hosts.count(h) > 1)
        fail(compute[0], None, f"host name {dup!r} is used twice")
    order = sorted(range(len(parsed)), key=lambda k: index[parsed[k]["hosts"][0]])
    for k in order:
        ids = [index[h] for h in parsed[k]["hosts"]]
        if ids != list(range(ids[0], ids[0] + len(ids))):
            fail(compute[k], "radical", "this cluster's hosts are not consecutive in name "
                                        "order among all hosts, so it has no range of node ids")
    return hosts, order


def _backbone(compute: list[_Element], master: _Element | None, links: dict,
              routes: list[_Element], fail):
    """The link every route between compute clusters crosses, else the master's, else None."""
    ids = {el.attrs.get("id") for el in compute}
    backbone = master_link = None
    for r in routes:
        src, dst = r.attrs.get("src"), r.attrs.get("dst")
        used = [c.attrs.get("id") for c in r.children if c.tag == "link_ctn"]
        for name in used:
            if name not in links:
                fail(r, "link_ctn", f"no <link id={name!r}> in the zone")
        if master is not None and master.attrs.get("id") in (src, dst):
            if len(used) == 1 and master_link is None:
                master_link = links[used[0]]
            continue
        if src not in ids or dst not in ids:
            fail(r, "src" if src not in ids else "dst",
                 f"zone {src if src not in ids else dst!r} is not a cluster of this zone")
        if len(used) != 1 or (backbone is not None and used[0] != backbone.attrs.get("id")):
            fail(r, "link_ctn", "every route between two clusters must cross one and the same "
                                "link (the backbone)")
        backbone = links[used[0]]
    pairs = {frozenset((r.attrs.get("src"), r.attrs.get("dst"))) for r in routes}
    for a in compute:
        for b in compute:
            if a is not b and frozenset((a.attrs.get("id"), b.attrs.get("id"))) not in pairs:
                fail(a, None, f"no <zoneRoute> between clusters {a.attrs.get('id')!r} and "
                              f"{b.attrs.get('id')!r}")
    return backbone if backbone is not None else master_link


def _cluster(el: _Element, fail) -> dict:
    """A ``<cluster>``'s hosts and numbers (base units), checked."""
    a = el.attrs
    for key in ("id", "prefix", "radical", "speed", "bw", "lat"):
        if key not in a:
            fail(el, key, "missing")
    if "bb_bw" not in a:
        fail(el, "bb_bw", "missing: a cluster without a switch (backbone) is not supported")
    hosts = []
    for part in a["radical"].split(","):
        m = _RADICAL.match(part)
        if not m:
            fail(el, "radical", f"{a['radical']!r} is not a list of ids and ranges (0-15,17)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            fail(el, "radical", f"range {part.strip()!r} is empty")
        hosts += [f"{a['prefix']}{i}{a.get('suffix', '')}" for i in range(lo, hi + 1)]
    out = {"name": a["id"], "prefix": a["prefix"], "hosts": hosts}
    for key, attr, kind in (("speed", "speed", "speed"), ("bw", "bw", "bandwidth"),
                            ("lat", "lat", "time"), ("switch_bw", "bb_bw", "bandwidth"),
                            ("switch_lat", "bb_lat", "time")):
        text = a.get(attr, "0s")
        if kind == "speed" and "," in text:
            fail(el, attr, "several power states: only one speed per host is read")
        try:
            value = parse_quantity(text, kind)
        except ValueError as exc:
            fail(el, attr, str(exc))
        if not math.isfinite(value) or value < 0 or (kind != "time" and value == 0):
            fail(el, attr, f"{text!r} must be a {'positive' if kind != 'time' else '>= 0'} "
                           f"{kind}")
        out[key] = value
    sharing = a.get("sharing_policy", "SPLITDUPLEX")
    private = {v: k for k, v in PRIVATE_LINKS.items()}
    if sharing not in private:
        fail(el, "sharing_policy", f"{sharing!r}: the private links are read as "
                                   f"{' or '.join(private)}")
    out["sharing"] = private[sharing]
    if a.get("bb_sharing_policy", "SHARED") != "SHARED":
        fail(el, "bb_sharing_policy", f"{a['bb_sharing_policy']!r}: the cluster switch is read "
                                      "as SHARED only (paper D's model)")
    for key in ("topology", "loopback_bw", "limiter_link"):
        if key in a and not (key == "topology" and a[key] == "FLAT"):
            fail(el, key, "not supported (flat clusters of private links to one switch only)")
    return out


def _link(el: _Element, fail) -> tuple[float, float]:
    a = el.attrs
    if a.get("sharing_policy", "SHARED") != "SHARED":
        fail(el, "sharing_policy", f"{a['sharing_policy']!r}: the backbone is read as SHARED "
                                   "only")
    values = {}
    for attr, kind, default in (("bandwidth", "bandwidth", ""), ("latency", "time", "0s")):
        try:
            values[attr] = parse_quantity(a.get(attr, default), kind)
        except ValueError as exc:
            fail(el, attr, str(exc))
    bw, lat = values["bandwidth"], values["latency"]
    if not (bw > 0 and math.isfinite(bw)) or not (lat >= 0 and math.isfinite(lat)):
        fail(el, None, "bandwidth must be positive and latency >= 0")
    return bw, lat
