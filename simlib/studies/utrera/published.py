"""Paper U's published numbers: reading ``config/published/utrera.yaml``.

The numbers the paper prints (tables, headline percentages, toy-example
values), each block with its source, kept as data shown beside ours. The
structure and types are the JSON schema ``published.schema.json`` beside
this module (:data:`SCHEMA`), validated by
:func:`simlib.claims.read_published`; :func:`check_published` adds what a
schema cannot say.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from simlib.claims import read_published
from simlib.errors import ConfigError

__all__ = ["SCHEMA", "load_published", "check_published"]

#: JSON schema of ``config/published/utrera.yaml``.
SCHEMA = Path(__file__).resolve().with_name("published.schema.json")


def load_published(path) -> dict:
    """Read ``config/published/utrera.yaml``, checked by :data:`SCHEMA` and :func:`check_published`.

    See :func:`simlib.claims.read_published` (errors name the file and the key).

    Examples
    --------
    >>> pub = load_published("config/published/utrera.yaml")   # doctest: +SKIP
    >>> pub["table3"]["values"]["SDSC-SP2"]["fcfs_malleable"]   # doctest: +SKIP
    1.47
    """
    return read_published(path, SCHEMA, check_published)


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
