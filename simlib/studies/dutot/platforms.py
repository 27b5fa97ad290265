"""Paper D's platforms (§5.1, §5.3, §5.4, Table 1) from the published parameters.

Every platform is 8 clusters of 16 nodes; each node sits on a private link
(``bw``, ``lat``) to its cluster switch (``switch_bw``, ``switch_lat``), the
switches meet at one shared main switch (``backbone_bw``, ``backbone_lat``):
a :class:`~simlib.backends.simgrid.NetworkPlatform`, whose node ids follow
cluster order (so contiguity is an id range and locality one cluster).

The printed numbers live in ``config/published/dutot.yaml`` only; the grid
(``studies.dutot``) says how to read what the paper leaves open:

* **homogeneous** (§5.3), one platform per *model*: ``printed`` takes §5.3's
  values as printed, with the node speed (not printed there) from
  ``homogeneous.printed_speed`` (``table1_base``: Table 1's base cp);
  ``griffon`` takes SimGrid's own Griffon description (grid
  ``homogeneous.griffon``), which §5.3 says its platform derives from.
* **heterogeneous** (§5.4), one platform per (*set*, *ordering*): cluster
  ``c`` of Table 1 has the base cluster's values times its multipliers; the
  ordering's k-th entry (1-based) picks the set's cluster of the platform's
  k-th group of 16 node ids. The main switch is not printed for these
  platforms: ``heterogeneous.backbone`` (``homogeneous``: §5.3's).

Platform names (file names and the simulation steps' ``platform``
wildcard): ``hom-<model>`` and ``het-<set>-<ordering>``. A platform's
description (:func:`describe`) is plain JSON, built while the workflow is
parsed and passed to the steps as a parameter (a change reruns exactly the
runs on that platform): each run rebuilds the :class:`NetworkPlatform`
(:func:`from_description`) and writes its SimGrid file from it, as the
figures step does for ``paper_figures/dutot/platforms/<name>.xml``.

Examples
--------
>>> pub = {"homogeneous": {"clusters": 2, "nodes_per_cluster": 2, "switch_bw": 1.25e9,
...        "switch_lat": 0.0, "bw": 1.25e6, "lat": 2.4e-8, "backbone_bw": 1.25e9,
...        "backbone_lat": 2.4e-8},
...        "heterogeneous": {"base": {"speed": 286.097e3}}}
>>> net = homogeneous_platform(pub, {"printed_speed": "table1_base"}, "printed")
>>> net.name, net.nodes, net.clusters[0].speed, net.clusters[1].bw
('hom-printed', 4, 286097.0, 1250000.0)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from simlib.backends.simgrid import Cluster, NetworkPlatform
from simlib.errors import ConfigError

__all__ = ["FIELDS", "HOMOGENEOUS_MODELS", "homogeneous_name", "heterogeneous_name", "parse_name",
           "homogeneous_values", "cluster_values", "table1_frame", "ordering_values",
           "ordering_clusters", "heterogeneous_backbone", "homogeneous_platform",
           "heterogeneous_platform", "describe", "from_description"]

#: A cluster's parameters, in Table 1's column order (bw_s, lat_s, cp, bw, lat).
FIELDS = ("switch_bw", "switch_lat", "speed", "bw", "lat")
#: Readings of §5.3's platform.
HOMOGENEOUS_MODELS = ("printed", "griffon")


def homogeneous_name(model: str) -> str:
    """File name of a homogeneous platform.

    Examples
    --------
    >>> homogeneous_name("griffon")
    'hom-griffon'
    """
    return f"hom-{model}"


def heterogeneous_name(set_name: str, ordering: str) -> str:
    """File name of a heterogeneous platform.

    Examples
    --------
    >>> heterogeneous_name("low", "o3")
    'het-low-o3'
    """
    return f"het-{set_name}-{ordering}"


def parse_name(name: str) -> dict:
    """A platform name's parts: ``experiment`` and ``model`` or ``set`` and ``ordering``.

    Examples
    --------
    >>> parse_name("het-high-o2")
    {'experiment': 'heterogeneous', 'set': 'high', 'ordering': 'o2'}
    >>> parse_name("hom-printed")
    {'experiment': 'homogeneous', 'model': 'printed'}
    """
    kind, _, rest = name.partition("-")
    if kind == "hom" and rest:
        return {"experiment": "homogeneous", "model": rest}
    if kind == "het" and rest.count("-") == 1:
        set_name, ordering = rest.split("-")
        return {"experiment": "heterogeneous", "set": set_name, "ordering": ordering}
    raise ValueError(f"not a paper D platform name: {name!r}")


# ---------------------------------------------------------------- homogeneous
def homogeneous_values(published: Mapping, grid: Mapping, model: str) -> dict:
    """Switch, link, backbone and node parameters of a homogeneous model.

    Parameters
    ----------
    published : mapping
        ``config/published/dutot.yaml``.
    grid : mapping
        The grid's ``homogeneous`` block (``printed_speed``, ``griffon``).
    model : str
        One of :data:`HOMOGENEOUS_MODELS`.

    Returns
    -------
    dict
        ``speed, bw, lat, switch_bw, switch_lat, backbone_bw, backbone_lat``
        (flop/s, bytes/s, s).

    Examples
    --------
    >>> g = {"griffon": {"speed": 286.087e3, "bw": 1.25e8, "lat": 24e-6, "switch_bw": 1.25e9,
    ...                  "switch_lat": 0.0, "backbone_bw": 1.25e9, "backbone_lat": 24e-6}}
    >>> homogeneous_values({}, g, "griffon")["bw"]
    125000000.0
    """
    keys = ("speed", "bw", "lat", "switch_bw", "switch_lat", "backbone_bw", "backbone_lat")
    if model == "printed":
        hom = published["homogeneous"]
        speed = grid.get("printed_speed", "table1_base")
        if speed == "table1_base":
            speed = published["heterogeneous"]["base"]["speed"]
        values = {k: hom[k] for k in keys if k != "speed"}
        values["speed"] = speed
    elif model == "griffon":
        values = dict(grid["griffon"])
    else:
        raise ConfigError(f"homogeneous model {model!r}: not one of {', '.join(HOMOGENEOUS_MODELS)}")
    return {k: float(values[k]) for k in keys}


def homogeneous_platform(published: Mapping, grid: Mapping, model: str) -> NetworkPlatform:
    """§5.3's platform under one reading (see :func:`homogeneous_values`)."""
    v = homogeneous_values(published, grid, model)
    hom = published["homogeneous"]
    return NetworkPlatform.homogeneous(
        clusters=int(hom["clusters"]), nodes=int(hom["nodes_per_cluster"]), speed=v["speed"],
        bw=v["bw"], lat=v["lat"], switch_bw=v["switch_bw"], switch_lat=v["switch_lat"],
        backbone_bw=v["backbone_bw"], backbone_lat=v["backbone_lat"],
        name=homogeneous_name(model))


# -------------------------------------------------------------- heterogeneous
def cluster_values(published: Mapping, cluster: str) -> dict:
    """Absolute values of one Table 1 cluster: the base cluster's times its multipliers.

    Examples
    --------
    >>> pub = {"heterogeneous": {"base": {"switch_bw": 1.25e9, "switch_lat": 0.0,
    ...        "speed": 286.097e3, "bw": 1.25e9, "lat": 24e-9}, "multipliers": {"values": {
    ...        "c2": {"switch_bw": 4, "switch_lat": 0, "speed": 2.02, "bw": 1, "lat": 1}}}}}
    >>> v = cluster_values(pub, "c2")
    >>> v["switch_bw"], round(v["speed"], 2), v["lat"]
    (5000000000.0, 577915.94, 2.4e-08)
    """
    het = published["heterogeneous"]
    try:
        factors = het["multipliers"]["values"][cluster]
    except KeyError:
        raise ConfigError(f"cluster {cluster!r} is not in Table 1 (published "
                          "heterogeneous.multipliers.values)") from None
    return {f: float(het["base"][f]) * float(factors[f]) for f in FIELDS}


def table1_frame(published: Mapping):
    """Table 1 with absolute values: one row per cluster.

    Columns: ``cluster``, ``set`` (the sets holding it), the five
    multipliers (``<field>_factor``) and the five absolute values.

    Examples
    --------
    >>> pub = {"heterogeneous": {"base": {"switch_bw": 1.0, "switch_lat": 0.0, "speed": 2.0,
    ...        "bw": 1.0, "lat": 1.0}, "multipliers": {"values": {"c1": {"switch_bw": 2,
    ...        "switch_lat": 0, "speed": 3, "bw": 1, "lat": 1}}}, "sets": {"values": {"a": ["c1"]}}}}
    >>> table1_frame(pub)[["cluster", "set", "speed_factor", "speed"]].values.tolist()
    [['c1', 'a', 3.0, 6.0]]
    """
    import pandas as pd

    het = published["heterogeneous"]
    sets = het["sets"]["values"]
    rows = []
    for cluster, factors in het["multipliers"]["values"].items():
        row = {"cluster": cluster, "set": ", ".join(s for s, cs in sets.items() if cluster in cs)}
        row.update({f"{f}_factor": float(factors[f]) for f in FIELDS})
        row.update(cluster_values(published, cluster))
        rows.append(row)
    return pd.DataFrame(rows)


def ordering_values(published: Mapping, grid: Mapping | None = None) -> dict[str, list[int]]:
    """Every ordering: the printed ones, replaced or extended by the grid's ``ordering_values``.

    Examples
    --------
    >>> pub = {"heterogeneous": {"orderings": {"values": {"o1": [1, 2], "o2": [2, 1]}}}}
    >>> ordering_values(pub, {"ordering_values": {"o2": [1, 1]}})
    {'o1': [1, 2], 'o2': [1, 1]}
    """
    out = {k: list(v) for k, v in published["heterogeneous"]["orderings"]["values"].items()}
    out.update({k: list(v) for k, v in ((grid or {}).get("ordering_values") or {}).items()})
    return out


def ordering_clusters(published: Mapping, set_name: str, ordering: Sequence[int]) -> list[str]:
    """Table 1 cluster of each cluster position of a platform (node-id order).

    Examples
    --------
    >>> pub = {"heterogeneous": {"sets": {"values": {"high": ["c1", "c2", "c3"]}}}}
    >>> ordering_clusters(pub, "high", [3, 1, 2])
    ['c3', 'c1', 'c2']
    """
    try:
        members = published["heterogeneous"]["sets"]["values"][set_name]
    except KeyError:
        raise ConfigError(f"set {set_name!r} is not in the published heterogeneous.sets") from None
    out = []
    for k, index in enumerate(ordering):
        if not 1 <= int(index) <= len(members):
            raise ConfigError(f"ordering entry {k} is {index}: set {set_name!r} has "
                              f"{len(members)} clusters (1-based indices)")
        out.append(members[int(index) - 1])
    return out


def heterogeneous_backbone(published: Mapping, grid: Mapping) -> tuple[float, float]:
    """``(bw, lat)`` of the heterogeneous platforms' main switch (not printed).

    Examples
    --------
    >>> heterogeneous_backbone({"homogeneous": {"backbone_bw": 5.0, "backbone_lat": 0.1}},
    ...                        {"backbone": "homogeneous"})
    (5.0, 0.1)
    """
    bb = grid.get("backbone", "homogeneous")
    if bb == "homogeneous":
        hom = published["homogeneous"]
        return float(hom["backbone_bw"]), float(hom["backbone_lat"])
    return float(bb["bw"]), float(bb["lat"])


def heterogeneous_platform(published: Mapping, grid: Mapping, set_name: str,
                           ordering: str) -> NetworkPlatform:
    """§5.4's platform of one set and ordering.

    Cluster ``k`` (nodes ``16 k .. 16 k + 15``) is named after its Table 1
    cluster (``"c3"``); its values are :func:`cluster_values`.
    """
    orderings = ordering_values(published, grid)
    if ordering not in orderings:
        raise ConfigError(f"ordering {ordering!r} is neither printed nor in the grid's "
                          f"ordering_values ({', '.join(orderings)})")
    nodes = int(published["heterogeneous"]["nodes_per_cluster"])
    clusters = []
    for name in ordering_clusters(published, set_name, orderings[ordering]):
        v = cluster_values(published, name)
        clusters.append(Cluster(name, nodes, v["speed"], v["bw"], v["lat"], v["switch_bw"],
                                v["switch_lat"]))
    bw, lat = heterogeneous_backbone(published, grid)
    return NetworkPlatform(tuple(clusters), bw, lat, heterogeneous_name(set_name, ordering))


# ---------------------------------------------------------------- as data
def describe(net: NetworkPlatform) -> dict:
    """A platform as plain JSON-able data (:func:`from_description` gives it back).

    Examples
    --------
    >>> net = NetworkPlatform.homogeneous(clusters=2, nodes=1, speed=1.0, bw=2.0, lat=0.0,
    ...                                   switch_bw=3.0, switch_lat=0.0, backbone_bw=4.0,
    ...                                   backbone_lat=0.5, name="x")
    >>> from_description(describe(net)) == net
    True
    """
    return {"name": net.name, "backbone_bw": net.backbone_bw, "backbone_lat": net.backbone_lat,
            "nodes": net.nodes, "first_ids": net.first_ids(),
            "clusters": [{"name": c.name, "nodes": c.nodes, "speed": c.speed, "bw": c.bw,
                          "lat": c.lat, "switch_bw": c.switch_bw, "switch_lat": c.switch_lat}
                         for c in net.clusters]}


def from_description(data: Mapping) -> NetworkPlatform:
    """The :class:`NetworkPlatform` of a :func:`describe` dict."""
    clusters = tuple(Cluster(c["name"], int(c["nodes"]), float(c["speed"]), float(c["bw"]),
                             float(c["lat"]), float(c["switch_bw"]), float(c["switch_lat"]))
                     for c in data["clusters"])
    return NetworkPlatform(clusters, float(data["backbone_bw"]), float(data["backbone_lat"]),
                           data["name"])
