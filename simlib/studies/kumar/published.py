"""Paper K's printed numbers: reading ``config/published/kumar.yaml``.

Reference values shown beside ours (Table III, n̄, Tables IV–VII, the C_s
claims), never results. Their structure and types are the JSON schema
``published.schema.json`` beside this module, validated by
:func:`simlib.claims.read_published`; :func:`check_published` adds what a
schema cannot know: policy names are registered, and the abstract's
percentages are the Tables' own.
"""
from __future__ import annotations

from collections.abc import Mapping

from ...claims import published_loader
from ...errors import ConfigError
from ...policies import POLICIES

__all__ = ["load_published", "check_published"]

#: Table whose LOS column the abstract quotes, per new policy (``headline``).
_HEADLINE_TABLES = ("IV", "V")


def check_published(data: Mapping, path) -> None:
    """Checks of a schema-valid file that the schema cannot express.

    Every policy named is registered (the registry grows with
    ``policy_modules``, so the schema cannot list it), and each
    ``headline`` entry equals its Table's column over LOS (the abstract
    quotes Tables IV and V: two copies of one number must not drift).

    Raises
    ------
    ConfigError
        ``<path>: <key>: ...`` naming an unregistered policy, or a headline number that
        differs from its table's.

    Examples
    --------
    >>> check_published({"table3": {"values": {"nope": []}}, "tables": {}, "headline": {}}, "k.yaml")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: k.yaml: table3.values.nope: not a registered policy
    """
    def registered(name, key):
        if name not in POLICIES:
            raise ConfigError(f"{path}: {key}: not a registered policy")

    for name in data["table3"]["values"]:
        registered(name, f"table3.values.{name}")
    for table, t in data["tables"].items():
        registered(t["new"], f"tables.{table}.new")
        for base in t["values"]:
            registered(base, f"tables.{table}.values.{base}")
    quoted = {data["tables"][t]["new"]: (t, data["tables"][t]) for t in _HEADLINE_TABLES
              if t in data["tables"]}
    for new, values in (data["headline"].get("values") or {}).items():
        if new not in quoted:
            raise ConfigError(f"{path}: headline.values.{new}: not the new policy of Table "
                              f"{' or '.join(_HEADLINE_TABLES)}")
        table, t = quoted[new]
        los = [b for b in t["values"] if b.startswith("los")]
        if not los or t["values"][los[0]] != values:
            raise ConfigError(f"{path}: headline.values.{new}: differs from "
                              f"tables.{table}.values.{los[0] if los else 'los'}")


#: Read ``config/published/kumar.yaml``, checked by its schema and :func:`check_published`
#: (errors name the file and the key; :func:`simlib.claims.published_loader`).
load_published = published_loader(__file__, check_published)
