"""Scheduling policies and their registry.

Add a policy: write one module with a :class:`~simlib.policies.base.Policy`
subclass and register it here with one line in :data:`BUILTIN` (its name
and where its class is). A policy's module is imported the first time its
class is asked for (``POLICIES[name]``, :func:`make_policy`), so that a run
of one policy does not pay for importing all the others; the names are
known without importing anything. User code registers classes with
:func:`register` (usable as a decorator).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

from ..errors import ConfigError
from .base import Policy, QueuePolicy

#: Built-in policies in listing order: name -> ``"module:Class"``.
BUILTIN: dict[str, str] = {
    "fcfs": "simlib.policies.fcfs:FCFS",
    "easy": "simlib.policies.easy:EASY",
    "conservative": "simlib.policies.conservative:Conservative",
    "fcfs_malleable": "simlib.policies.fcfs_malleable:FCFSMalleable",
    # Paper K, Table III: the twelve algorithms (EASY above).
    "los": "simlib.policies.los:LOS",
    "delayed_los": "simlib.policies.delayed_los:DelayedLOS",
    "easy_d": "simlib.policies.dedicated:EASYD",
    "los_d": "simlib.policies.dedicated:LOSD",
    "hybrid_los": "simlib.policies.hybrid_los:HybridLOS",
    "easy_e": "simlib.policies.ecc:EASYE",
    "los_e": "simlib.policies.ecc:LOSE",
    "delayed_los_e": "simlib.policies.ecc:DelayedLOSE",
    "easy_de": "simlib.policies.ecc:EASYDE",
    "los_de": "simlib.policies.ecc:LOSDE",
    "hybrid_los_e": "simlib.policies.ecc:HybridLOSE",
    # Paper Z: Scojo-PECT time slices with space sharing (SSP).
    "scojo_pect": "simlib.policies.scojo_pect:ScojoPECT",
    "glomarc_ts": "simlib.policies.glomarc_ts:GLomarcTS",
}


def _load(spec: str) -> type[Policy]:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


class PolicyRegistry(MutableMapping):
    """Name -> policy class, importing a built-in policy's module on first access.

    A mapping in registration order. Entries are classes or ``"module:Class"``
    strings; reading an entry (``[]``, ``get``, ``items``, ``values``)
    imports a string entry's module and keeps the class. Membership,
    iteration and ``len`` import nothing.

    Examples
    --------
    >>> reg = PolicyRegistry({"fcfs": "simlib.policies.fcfs:FCFS"})
    >>> "fcfs" in reg, list(reg)
    (True, ['fcfs'])
    >>> reg["fcfs"].__name__
    'FCFS'
    """

    def __init__(self, entries: dict[str, str | type[Policy]] | None = None) -> None:
        self._entries: dict[str, str | type[Policy]] = dict(entries or {})

    def __getitem__(self, name: str) -> type[Policy]:
        entry = self._entries[name]
        if isinstance(entry, str):
            entry = self._entries[name] = _load(entry)
        return entry

    def __setitem__(self, name: str, cls: type[Policy]) -> None:
        self._entries[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"PolicyRegistry({list(self._entries)})"


#: name -> policy class (see :class:`PolicyRegistry`)
POLICIES = PolicyRegistry(BUILTIN)


def register(cls: type[Policy]) -> type[Policy]:
    """Register a policy class under ``cls.name`` (usable as a decorator)."""
    if cls.name in POLICIES and POLICIES[cls.name] is not cls:
        raise ConfigError(f"policy name {cls.name!r} registered twice")
    POLICIES[cls.name] = cls
    return cls


def make_policy(name: str, **params) -> Policy:
    """Instantiate a registered policy, rejecting unknown names and parameters.

    Examples
    --------
    >>> make_policy("easy").name
    'easy'
    """
    try:
        cls = POLICIES[name]
    except KeyError:
        raise ConfigError(f"unknown policy {name!r}; registered: {', '.join(sorted(POLICIES))}") from None
    unknown = set(params) - set(cls.defaults)
    if unknown:
        raise ConfigError(f"policy {name!r}: unknown parameter(s) {sorted(unknown)}; "
                          f"accepted: {sorted(cls.defaults) or 'none'}")
    return cls(**params)


#: Built-in class name -> its registry spec, for ``from simlib.policies import EASY``.
_CLASSES = {spec.rpartition(":")[2]: spec for spec in BUILTIN.values()}


def __getattr__(attr: str):
    # The policy classes used to be imported here eagerly; importing them by
    # name from this package still works, importing only that module.
    if attr in _CLASSES:
        return _load(_CLASSES[attr])
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = ["BUILTIN", "POLICIES", "Policy", "PolicyRegistry", "QueuePolicy", "make_policy",
           "register"]
