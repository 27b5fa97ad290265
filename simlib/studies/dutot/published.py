"""Paper D's published parameters and claims: reading ``config/published/dutot.yaml``.

The paper prints no result numbers; the file holds its claims (with where
in the paper) and the platform, workload and experiment parameters it
prints, each block with its source. Its structure and types are the JSON
schema ``published.schema.json`` beside this module;
:func:`check_published` adds what a schema cannot say.
"""
from __future__ import annotations

from collections.abc import Mapping

from simlib.claims import published_loader
from simlib.errors import ConfigError

__all__ = ["load_published", "check_published"]


def check_published(data: Mapping, path) -> None:
    """Sets name Table 1 clusters; every ordering indexes into every set."""
    het = data["heterogeneous"]
    clusters = het["multipliers"]["values"]
    for name, members in het["sets"]["values"].items():
        for i, c in enumerate(members):
            if c not in clusters:
                raise ConfigError(f"{path}: heterogeneous.sets.values.{name}[{i}]: {c!r} is not a "
                                  f"cluster of Table 1 (heterogeneous.multipliers.values: "
                                  f"{', '.join(clusters)})")
    smallest = min((len(m) for m in het["sets"]["values"].values()), default=0)
    for name, indices in het["orderings"]["values"].items():
        for i, k in enumerate(indices):
            if k > smallest:
                raise ConfigError(f"{path}: heterogeneous.orderings.values.{name}[{i}]: index {k} "
                                  f"is past the smallest set ({smallest} clusters)")


#: Read ``config/published/dutot.yaml``, validated (schema, then :func:`check_published`);
#: a ConfigError names the file and the key that is missing or malformed.
load_published = published_loader(__file__, check_published)
