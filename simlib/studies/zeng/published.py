"""Paper Z's printed tables, parameters and claims: reading ``config/published/zeng.yaml``.

The structure and types are the JSON schema ``published.schema.json`` beside
this module, validated by :func:`simlib.claims.read_published`;
:func:`check_published` adds what a schema cannot say.
"""
from __future__ import annotations

from collections.abc import Mapping

from simlib.claims import published_loader
from simlib.errors import ConfigError

__all__ = ["load_published", "check_published"]


def check_published(data: Mapping, path) -> None:
    """Table 4: one share per bin, non-empty bins in increasing order without overlap;
    Tables 2-3: one value per column per row.

    Examples
    --------
    >>> t4 = {"bins": [[1.0, 1.1]], "sl_scr": [100], "sl_sno": [100], "sl_cos": [50, 50]}
    >>> check_published({"table4": t4, "table2": {"columns": [], "rows": {}},
    ...                  "table3": {"columns": [], "rows": {}}}, "z.yaml")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: z.yaml: table4.sl_cos: 2 shares for 1 bins
    """
    t4 = data["table4"]
    for col in ("sl_scr", "sl_sno", "sl_cos"):
        _require(len(t4[col]) == len(t4["bins"]),
                 f"{path}: table4.{col}: {len(t4[col])} shares for {len(t4['bins'])} bins")
    for i, (lo, hi) in enumerate(t4["bins"]):
        _require(lo < hi, f"{path}: table4.bins[{i}]: [{lo}, {hi}) is empty")
        _require(i == 0 or lo >= t4["bins"][i - 1][1],
                 f"{path}: table4.bins[{i}]: [{lo}, {hi}) overlaps or precedes the range before")
    for name in ("table2", "table3"):
        cols = data[name]["columns"]
        for row, values in data[name]["rows"].items():
            _require(len(values) == len(cols), f"{path}: {name}.rows.{row}: {len(values)} values "
                                               f"for {len(cols)} columns")


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


#: Read ``config/published/zeng.yaml``, validated (schema, then :func:`check_published`).
load_published = published_loader(__file__, check_published)
