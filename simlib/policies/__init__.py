"""Scheduling policies and their registry.

Add a policy: write one module with a :class:`~simlib.policies.base.Policy`
subclass and register it here with one line.
"""
from __future__ import annotations

from ..errors import ConfigError
from .base import Policy, QueuePolicy
from .conservative import Conservative
from .dedicated import EASYD, LOSD
from .delayed_los import DelayedLOS
from .easy import EASY
from .ecc import EASYDE, EASYE, LOSDE, LOSE, DelayedLOSE, HybridLOSE
from .fcfs import FCFS
from .fcfs_malleable import FCFSMalleable
from .glomarc_ts import GLomarcTS
from .hybrid_los import HybridLOS
from .los import LOS
from .scojo_pect import ScojoPECT

#: name -> policy class
POLICIES: dict[str, type[Policy]] = {}


def register(cls: type[Policy]) -> type[Policy]:
    """Register a policy class under ``cls.name`` (usable as a decorator)."""
    if cls.name in POLICIES and POLICIES[cls.name] is not cls:
        raise ConfigError(f"policy name {cls.name!r} registered twice")
    POLICIES[cls.name] = cls
    return cls


register(FCFS)
register(EASY)
register(Conservative)
register(FCFSMalleable)
# Paper K, Table III: the twelve algorithms (EASY above).
register(LOS)
register(DelayedLOS)
register(EASYD)
register(LOSD)
register(HybridLOS)
register(EASYE)
register(LOSE)
register(DelayedLOSE)
register(EASYDE)
register(LOSDE)
register(HybridLOSE)
# Paper Z: Scojo-PECT time slices with space sharing (SSP).
register(ScojoPECT)
register(GLomarcTS)


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


__all__ = ["POLICIES", "Policy", "QueuePolicy", "make_policy", "register"]
