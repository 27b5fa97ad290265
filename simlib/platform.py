"""Platforms: processing units with identity.

A platform is a set of *cores* grouped into *nodes*, nodes grouped into
*clusters*; each node has a relative speed, and its cores may be split into
*sockets* (physical CPUs: paper Z's nodes hold two dual-core CPUs). Policies
that reason in CPU counts (paper U, K, the baseline) simply ignore identity;
placement-aware policies (paper D's contiguous/local allocations, paper Z's
per-core placement on 4-core nodes) use ``core_node``, ``node_cluster`` and
``core_socket`` through the allocation strategies of
:mod:`simlib.engine.allocation` to choose explicit core sets.

Examples
--------
>>> p = Platform.homogeneous(128)
>>> p.cpus, p.nodes
(128, 128)
>>> q = Platform.homogeneous(16, cores_per_node=4)
>>> q.core_node[:6].tolist()
[0, 0, 0, 0, 1, 1]
>>> z = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2)
>>> z.core_socket.tolist()       # node 0: CPUs 0 and 1, node 1: CPUs 2 and 3
[0, 0, 1, 1, 2, 2, 3, 3]
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .errors import ConfigError


@dataclass(frozen=True)
class Platform:
    """A machine of ``cpus`` cores with node/cluster membership.

    Attributes
    ----------
    cores_per_node : numpy.ndarray of int
        Cores of each node; node ``i`` owns a contiguous block of core ids.
    node_cluster : numpy.ndarray of int
        Cluster id of each node.
    node_speed : numpy.ndarray of float
        Relative speed of each node (1.0 = reference speed of the trace).
    allocation_unit : int
        Cores are allocated in multiples of this (paper K's BlueGene/P: 32).
    name : str
        Free-form label used in outputs.
    sockets_per_node : int
        Physical CPUs (sockets) per node, each owning an equal, contiguous
        share of the node's cores (paper Z: 2 dual-core CPUs per node). The
        word "cpus" is taken: ``Platform.cpus`` counts cores, as the papers'
        "processors" do.
    core_node : numpy.ndarray of int
        Node of each core (derived).
    core_socket : numpy.ndarray of int
        Machine-wide socket id of each core (derived): node ``i``'s sockets
        are ``i * sockets_per_node`` and up.
    """

    cores_per_node: np.ndarray
    node_cluster: np.ndarray
    node_speed: np.ndarray
    allocation_unit: int = 1
    name: str = "platform"
    # Last, with a default, so that existing positional constructions still work.
    sockets_per_node: int = 1
    # Derived per core on first use (plans and allocations ask for them per
    # job; a count-based run never does, so a machine of 2**31 cores costs
    # no per-core memory).
    _core_node: np.ndarray | None = field(init=False, repr=False, compare=False, default=None)
    _core_socket: np.ndarray | None = field(init=False, repr=False, compare=False, default=None)
    _cpus: int = field(init=False, repr=False, compare=False, default=0)
    _core_node_ids: tuple | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self):
        cpn = np.asarray(self.cores_per_node, dtype=np.int64)
        if cpn.ndim != 1 or cpn.size == 0 or (cpn[:1] if cpn.strides == (0,) else cpn).min() <= 0:
            raise ConfigError("platform: cores_per_node must be a non-empty list of positive integers")
        if len(self.node_cluster) != cpn.size or len(self.node_speed) != cpn.size:
            raise ConfigError("platform: node_cluster and node_speed need one entry per node")
        if self.allocation_unit < 1:
            raise ConfigError("platform: allocation_unit must be >= 1")
        sockets = _positive_int(self.sockets_per_node, "sockets_per_node")
        if sockets > 1 and (cpn % sockets).any():
            raise ConfigError(f"platform: every node's cores must split evenly into "
                              f"{sockets} sockets per node")
        object.__setattr__(self, "sockets_per_node", sockets)
        object.__setattr__(self, "cores_per_node", cpn)
        object.__setattr__(self, "node_cluster", np.asarray(self.node_cluster, dtype=np.int64))
        object.__setattr__(self, "node_speed", np.asarray(self.node_speed, dtype=np.float64))
        # A constant view (homogeneous) sums without reading every node.
        object.__setattr__(self, "_cpus", int(cpn[0]) * cpn.size if cpn.strides == (0,)
                           else int(cpn.sum()))

    @property
    def cpus(self) -> int:
        """Total number of cores (the 'processors' of the papers)."""
        return self._cpus

    @property
    def core_node(self) -> np.ndarray:
        """Node of each core (made on first use: per-core memory)."""
        if self._core_node is None:
            cpn = self.cores_per_node
            object.__setattr__(self, "_core_node", np.repeat(np.arange(cpn.size), cpn))
        return self._core_node

    @property
    def core_socket(self) -> np.ndarray:
        """Machine-wide socket of each core (made on first use)."""
        if self._core_socket is None:
            # Rank of each core inside its node, then its socket: sockets own
            # contiguous blocks of the node's cores (cores 0-1 CPU 0, 2-3 CPU 1).
            cpn, sockets, core_node = self.cores_per_node, self.sockets_per_node, self.core_node
            first = np.concatenate(([0], np.cumsum(cpn)[:-1]))
            rank = np.arange(core_node.size) - first[core_node]
            local = rank // (cpn // sockets)[core_node]
            object.__setattr__(self, "_core_socket", core_node * sockets + local)
        return self._core_socket

    @property
    def core_node_ids(self) -> tuple[int, ...]:
        """``core_node`` as Python ints (a lookup per core without numpy scalars)."""
        if self._core_node_ids is None:
            object.__setattr__(self, "_core_node_ids", tuple(self.core_node.tolist()))
        return self._core_node_ids

    @property
    def nodes(self) -> int:
        return int(self.cores_per_node.size)

    @classmethod
    def homogeneous(cls, cpus: int, *, cores_per_node: int = 1, clusters: int = 1,
                    allocation_unit: int = 1, name: str = "",
                    sockets_per_node: int = 1) -> "Platform":
        """``cpus`` identical cores, ``cores_per_node`` per node, split evenly into clusters.

        Nodes are numbered cluster after cluster (cluster ``c`` holds a
        contiguous block of node ids), as paper D assumes administrators
        number resources by proximity.

        ``cpus`` and ``cores_per_node`` must be positive integers. An
        integral float (``64.0``, as JSON or a computation may give) is
        accepted; a fractional one (``64.7``), a bool or a string is a
        :class:`~simlib.errors.ConfigError` rather than silently truncated.

        Examples
        --------
        >>> Platform.homogeneous(64.0).cpus
        64
        >>> Platform.homogeneous(64.7)
        Traceback (most recent call last):
        ...
        simlib.errors.ConfigError: platform: cpus must be a positive integer, got 64.7
        """
        cpus = _positive_int(cpus, "cpus")
        cores_per_node = _positive_int(cores_per_node, "cores_per_node")
        if cpus % cores_per_node:
            raise ConfigError(f"platform: {cpus} cpus is not a positive multiple of "
                              f"{cores_per_node} cores per node")
        nodes = cpus // cores_per_node
        # Per node, but constant: views of one value (no memory per node; a
        # count-based run on 2**31 cores allocates nothing per core or node).
        cluster = (np.arange(nodes) * clusters) // nodes if clusters > 1 else \
            np.broadcast_to(np.int64(0), (nodes,))
        return cls(np.broadcast_to(np.int64(cores_per_node), (nodes,)), cluster,
                   np.broadcast_to(np.float64(1.0), (nodes,)), allocation_unit,
                   name or f"{cpus}cpus", sockets_per_node)


def _positive_int(value, what: str) -> int:
    """``value`` as an int if it is a positive integer (or integral float)."""
    if isinstance(value, (bool, np.bool_)):
        ok = False
    elif isinstance(value, numbers.Integral):
        ok = True
    elif isinstance(value, (float, np.floating)):
        ok = bool(np.isfinite(value)) and float(value).is_integer()
    else:
        ok = False
    if not ok or value <= 0:
        raise ConfigError(f"platform: {what} must be a positive integer, got {value!r}")
    return int(value)
