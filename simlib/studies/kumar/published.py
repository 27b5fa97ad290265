"""Paper K's printed numbers: reading and checking ``config/published/kumar.yaml``.

Reference values shown beside ours (Table III, n̄, Tables IV–VII, the C_s
claims), never results; :func:`load_published` checks their structure
before any job runs.
"""
from __future__ import annotations

from functools import partial

from ...errors import ConfigError
from ...policies import POLICIES
from ...published import published_number, read_published
from .plan import TABLE_WORKLOADS

__all__ = ["load_published"]


def load_published(path) -> dict:
    """Read ``config/published/kumar.yaml`` and check its structure.

    Raises
    ------
    ConfigError
        Naming the file and the missing or malformed key.

    Examples
    --------
    >>> pub = load_published("config/published/kumar.yaml")   # doctest: +SKIP
    >>> pub["tables"]["IV"]["values"]["los"]["mean_wait"]       # doctest: +SKIP
    31.88
    """
    blocks = ("table3", "n_bar", "tables", "headline", "cs_optimum", "cs_insensitive")
    data = read_published(path, blocks, sourced=[b for b in blocks if b != "tables"])
    num = partial(published_number, path)

    for name, row in data["table3"].get("values", {}).items():
        if name not in POLICIES:
            raise ConfigError(f"{path}: table3.values.{name}: not a registered policy")
        if not (isinstance(row, list) and len(row) == 3):
            raise ConfigError(f"{path}: table3.values.{name} must be [paper name, workload, ECC]")
    for i, e in enumerate(data["n_bar"].get("values", [])):
        for k in ("p_s", "p_d", "n_bar"):
            num((e or {}).get(k), f"n_bar.values[{i}].{k}")
    for table in TABLE_WORKLOADS:
        t = data["tables"].get(table)
        if not isinstance(t, dict) or not isinstance(t.get("source"), str):
            raise ConfigError(f"{path}: tables.{table} missing or without source")
        if t.get("new") not in POLICIES:
            raise ConfigError(f"{path}: tables.{table}.new: not a registered policy")
        for base, vals in (t.get("values") or {}).items():
            if base not in POLICIES:
                raise ConfigError(f"{path}: tables.{table}.values.{base}: not a registered policy")
            for m in ("utilization", "mean_wait", "kumar_slowdown"):
                num((vals or {}).get(m), f"tables.{table}.values.{base}.{m}")
    num(data["cs_optimum"].get("p_s"), "cs_optimum.p_s")
    num(data["cs_insensitive"].get("p_s"), "cs_insensitive.p_s")
    num(data["cs_insensitive"].get("above"), "cs_insensitive.above")
    return data
