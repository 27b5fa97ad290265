"""JSON schemas of the config: validation that fills defaults and names the key.

Every study's grid has a schema (``Study.schema``), the one place where each
of its defaults is written: :func:`validate` fills them in, as Snakemake's
own validation of the config does, so a study reads its grid the same way
in the workflow, in a job and in a test.

Examples
--------
>>> schema = {"type": "object", "properties": {"tolerance": {"type": "number", "default": 0.01}},
...           "additionalProperties": False}
>>> validate({}, schema, "config studies.x")
{'tolerance': 0.01}
>>> validate({"tolerence": 1}, schema, "config studies.x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simlib.errors.ConfigError: config studies.x: Additional properties are not allowed ('tolerence' was ...)
"""
from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from pathlib import Path

from .errors import ConfigError

__all__ = ["validate", "load_schema"]


@functools.lru_cache(maxsize=None)
def _load(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_schema(schema) -> dict:
    """A schema given as a mapping or a JSON file (read once)."""
    return dict(schema) if isinstance(schema, Mapping) else _load(str(Path(schema).resolve()))


@functools.lru_cache(maxsize=None)
def _validator_class():
    from jsonschema import Draft202012Validator, validators

    properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, schema):
        # Defaults first, then the checks (a default is checked too).
        if isinstance(instance, dict):
            for name, sub in props.items():
                if "default" in sub:
                    instance.setdefault(name, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, schema)

    return validators.extend(Draft202012Validator, {"properties": set_defaults})


def validate(data, schema, where: str, *, source: str | None = None):
    """Check ``data`` against ``schema``, filling its defaults in place; return ``data``.

    Parameters
    ----------
    data : dict
    schema : mapping or path-like
    where : str
        What ``data`` is, for the message (``config studies.kumar``).
    source : str, optional
        The schema's name shown in the message.

    Raises
    ------
    ConfigError
        The violation jsonschema finds most relevant, naming its key:
        ``config studies.kumar.tolerance: -1 is less than the minimum of 0``.
    """
    from jsonschema.exceptions import best_match
    err = best_match(_validator_class()(load_schema(schema)).iter_errors(data))
    if err is not None:
        key = where + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in err.absolute_path)
        raise ConfigError(f"{key}: {err.message}" + (f" (schema: {source})" if source else ""))
    return data
