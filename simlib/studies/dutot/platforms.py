"""Paper D's platforms (§5.1, §5.3, §5.4, Table 1) from the published parameters.

Every platform is 8 clusters of 16 nodes; each node sits on a private link
(``bw``, ``lat``) to its cluster switch (``switch_bw``, ``switch_lat``), the
switches meet at one shared main switch (``backbone_bw``, ``backbone_lat``);
the private links carry each direction on its own link (``split_duplex``,
SimGrid's ``SPLITDUPLEX``) or both on one (``shared``), as each experiment's
grid block says (``private_links``):
a :class:`~simlib.backends.simgrid.NetworkPlatform`, whose node ids follow
cluster order (so contiguity is an id range and locality one cluster).

The printed numbers live in ``config/published/dutot.yaml`` only; the grid
(``studies.dutot``) says how to read what the paper leaves open: one
platform ``hom-<model>`` per reading of §5.3 (``printed``, ``griffon``,
``base``: :data:`MODELS`) and
one ``het-<set>-<ordering>`` per set and ordering of §5.4, as the README's
interpretation choices 4-5 say (``templates/README.md.j2``). The names they
use are checked before (the study's and the published file's checks).

A platform's description (:func:`describe`) is plain JSON, built while the
workflow is parsed and passed to the steps as a parameter (a change reruns
exactly the runs on that platform); each run rebuilds the platform from it
(:func:`from_description`) and writes its SimGrid file.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from simlib.backends.simgrid import Cluster, NetworkPlatform
from simlib.errors import ConfigError

__all__ = ["FIELDS", "MODELS", "homogeneous_values", "cluster_values", "table1_frame", "ordering_values",
           "ordering_clusters", "heterogeneous_backbone", "homogeneous_platform",
           "heterogeneous_platform", "describe", "from_description"]

#: A cluster's parameters, in Table 1's column order (bw_s, lat_s, cp, bw, lat).
FIELDS = ("switch_bw", "switch_lat", "speed", "bw", "lat")
_VALUES = ("speed", "bw", "lat", "switch_bw", "switch_lat", "backbone_bw", "backbone_lat")


#: The readings of §5.3's platform (cube coordinate ``model``), in display order.
MODELS = ("printed", "griffon", "base")


def homogeneous_values(published: Mapping, grid: Mapping, model: str) -> dict:
    """Node, link, switch and backbone values (flop/s, bytes/s, s) of a homogeneous ``model``
    under the grid's ``homogeneous`` block: ``printed``, §5.3's values with the node speed
    ``printed_speed`` (``table1_base``: Table 1's base cp); ``griffon``, the grid's;
    ``base``, Table 1's base cluster b (its caption's node speed, private links and cluster
    switch) joined by §5.3's main switch, which Table 1 does not give.
    """
    if model not in MODELS:
        raise ConfigError(f"unknown homogeneous model {model!r}; known: {', '.join(MODELS)}")
    values = grid["griffon"]
    if model == "printed":
        speed = grid["printed_speed"]
        if speed == "table1_base":
            speed = published["heterogeneous"]["base"]["speed"]
        values = {**published["homogeneous"], "speed": speed}
    elif model == "base":
        hom = published["homogeneous"]
        values = {**published["heterogeneous"]["base"],
                  "backbone_bw": hom["backbone_bw"], "backbone_lat": hom["backbone_lat"]}
    return {k: float(values[k]) for k in _VALUES}


def homogeneous_platform(published: Mapping, grid: Mapping, model: str) -> NetworkPlatform:
    """§5.3's platform under one reading (see :func:`homogeneous_values`), its private links
    as the grid's ``private_links`` says (default ``split_duplex``)."""
    hom = published["homogeneous"]
    return NetworkPlatform.homogeneous(clusters=int(hom["clusters"]),
                                       nodes=int(hom["nodes_per_cluster"]), name=f"hom-{model}",
                                       private_links=grid.get("private_links", "split_duplex"),
                                       **homogeneous_values(published, grid, model))


def cluster_values(published: Mapping, cluster: str) -> dict:
    """Absolute values of one Table 1 cluster: the base cluster's times its multipliers."""
    het = published["heterogeneous"]
    factors = het["multipliers"]["values"][cluster]
    return {f: float(het["base"][f]) * float(factors[f]) for f in FIELDS}


def table1_frame(published: Mapping):
    """Table 1 with absolute values: one row per cluster, columns ``cluster``, ``set`` (the
    sets holding it), the five multipliers (``<field>_factor``) and the five values.
    """
    import pandas as pd

    het = published["heterogeneous"]
    return pd.DataFrame([
        {"cluster": cluster,
         "set": ", ".join(s for s, cs in het["sets"]["values"].items() if cluster in cs),
         **{f"{f}_factor": float(factors[f]) for f in FIELDS}, **cluster_values(published, cluster)}
        for cluster, factors in het["multipliers"]["values"].items()])


def ordering_values(published: Mapping, grid: Mapping | None = None) -> dict[str, list[int]]:
    """Every ordering: the printed ones, replaced or extended by the grid's ``ordering_values``."""
    out = {k: list(v) for k, v in published["heterogeneous"]["orderings"]["values"].items()}
    out.update({k: list(v) for k, v in ((grid or {}).get("ordering_values") or {}).items()})
    return out


def ordering_clusters(published: Mapping, set_name: str, ordering: Sequence[int]) -> list[str]:
    """Table 1 cluster of each cluster position of a platform (node-id order): the
    ordering's k-th entry (1-based) picks the set's cluster of the k-th group of node ids."""
    members = published["heterogeneous"]["sets"]["values"][set_name]
    return [members[int(index) - 1] for index in ordering]


def heterogeneous_backbone(published: Mapping, grid: Mapping) -> tuple[float, float]:
    """``(bw, lat)`` of the heterogeneous platforms' main switch (not printed): the grid's
    ``backbone``, or §5.3's main switch (``homogeneous``)."""
    hom, bb = published["homogeneous"], grid["backbone"]
    if bb == "homogeneous":
        return float(hom["backbone_bw"]), float(hom["backbone_lat"])
    return float(bb["bw"]), float(bb["lat"])


def heterogeneous_platform(published: Mapping, grid: Mapping, set_name: str,
                           ordering: str) -> NetworkPlatform:
    """§5.4's platform of one set and ordering: cluster ``k`` (nodes ``16 k .. 16 k + 15``)
    is named after its Table 1 cluster (``"c3"``), with its :func:`cluster_values`."""
    nodes = int(published["heterogeneous"]["nodes_per_cluster"])
    names = ordering_clusters(published, set_name, ordering_values(published, grid)[ordering])
    clusters = [Cluster(name, nodes, **cluster_values(published, name)) for name in names]
    return NetworkPlatform(tuple(clusters), *heterogeneous_backbone(published, grid),
                           f"het-{set_name}-{ordering}",
                           grid.get("private_links", "split_duplex"))


def describe(net: NetworkPlatform) -> dict:
    """A platform as plain JSON-able data (:func:`from_description` gives it back)."""
    return {"name": net.name, "backbone_bw": net.backbone_bw, "backbone_lat": net.backbone_lat,
            "private_links": net.private_links, "nodes": net.nodes, "first_ids": net.first_ids(),
            "clusters": [dataclasses.asdict(c) for c in net.clusters]}


def from_description(data: Mapping) -> NetworkPlatform:
    """The :class:`NetworkPlatform` of a :func:`describe` dict."""
    clusters = tuple(Cluster(c["name"], int(c["nodes"]), *(float(c[f]) for f in (
        "speed", "bw", "lat", "switch_bw", "switch_lat"))) for c in data["clusters"])
    return NetworkPlatform(clusters, float(data["backbone_bw"]), float(data["backbone_lat"]),
                           data["name"], data.get("private_links", "split_duplex"))
