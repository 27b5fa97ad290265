"""Published numbers: the papers' printed values, kept in ``config/published/*.yaml``.

They are reference data shown beside our results, never results. Each paper's
report module checks its own blocks; the reading and the checks every file
shares live here.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import yaml

from .errors import ConfigError


def read_published(path, blocks: Iterable[str], sourced: Iterable[str] | None = None) -> dict:
    """Read a published-numbers file and check its top-level blocks.

    Parameters
    ----------
    path : path-like
    blocks : iterable of str
        Keys that must be present, each a mapping.
    sourced : iterable of str, optional
        Blocks that must carry a ``source`` string (which table/section the
        numbers come from); default: all of ``blocks``.

    Raises
    ------
    ConfigError
        Naming the file and the missing or malformed key.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "p.yaml")
    >>> _ = open(p, "w").write("t1: {source: 'Table 1', values: {a: 1.5}}\\n")
    >>> read_published(p, ["t1"])["t1"]["values"]["a"]
    1.5
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read published numbers ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    blocks = list(blocks)
    for block in blocks:
        if not isinstance(data.get(block), dict):
            raise ConfigError(f"{path}: key {block!r} missing or not a mapping")
    for block in (blocks if sourced is None else sourced):
        if not isinstance(data[block].get("source"), str):
            raise ConfigError(f"{path}: {block}.source missing (say which table/section)")
    return data


def published_number(path, x, key: str) -> float:
    """``x`` as a float, or a ConfigError naming ``path`` and ``key``."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ConfigError(f"{path}: {key} must be a number, got {x!r}")
    return float(x)
