"""Paper U's published numbers: reading ``config/published/utrera.yaml``.

The numbers the paper prints (tables, headline percentages, toy-example
values), each block with its source, kept as data shown beside ours. The
structure and types are the JSON schema ``published.schema.json`` beside
this module, validated by :func:`simlib.claims.read_published`;
:func:`check_published` adds what a schema cannot say.
"""
from __future__ import annotations

from collections.abc import Mapping

from simlib.claims import published_loader
from simlib.errors import ConfigError

__all__ = ["load_published", "check_published"]


def check_published(data: Mapping, path) -> None:
    """What the schema cannot express: Table 3 and the fragmentation name Table 2's traces.

    Raises
    ------
    ConfigError
        ``<path>: <key>: ...`` naming a trace that Table 2 does not list.

    Examples
    --------
    >>> check_published({"table2": {"values": {"A": {}}}, "table3": {"values": {"B": {}}},
    ...                  "fragmentation": {"values": {}}}, "u.yaml")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: u.yaml: table3.values.B: not a trace of table2.values (A)
    """
    traces = data["table2"]["values"]
    named = [(f"table3.values.{t}", t) for t in data["table3"]["values"]]
    named += [(f"fragmentation.values.{pol}.{t}", t)
              for pol, per in data["fragmentation"]["values"].items() for t in per]
    for key, t in named:
        if t not in traces:
            raise ConfigError(f"{path}: {key}: not a trace of table2.values "
                              f"({', '.join(traces)})")


#: Read ``config/published/utrera.yaml``, checked by its schema and :func:`check_published`
#: (errors name the file and the key; :func:`simlib.claims.published_loader`).
load_published = published_loader(__file__, check_published)
