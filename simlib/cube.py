"""Result cubes: one xarray Dataset (netCDF file) per study.

A cube has one dimension per swept coordinate (``policy``, ``trace``,
``load``, ``seed`` ...) and one float variable per metric. Every variable
carries ``units``, ``long_name`` and ``description`` (from
:data:`simlib.metrics.METRICS`), and the global attributes carry provenance
(:func:`provenance`).

Determinism: building a cube twice from the same records gives identical
datasets and, through :func:`write_cube`, identical file bytes. Hence no
timestamps anywhere in the attributes, coordinates sorted, attributes in
sorted key order and a fixed on-disk encoding.

:func:`diff_cubes` and :func:`compare_cubes` compare two cubes with a tolerance
(``simlib diff``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np
import xarray as xr

from simlib import __version__
from simlib.errors import SimlibError
from simlib.io import atomic_path
from simlib.metrics import METRICS

__all__ = [
    "CubeReadError",
    "Difference",
    "build_cube",
    "study_attrs",
    "config_sha256",
    "provenance",
    "git_commit",
    "write_cube",
    "read_cube",
    "check_cube",
    "diff_cubes",
    "compare_cubes",
    "Comparison",
    "VariableSummary",
    "format_differences",
    "format_comparison",
]

#: Attributes of well-known dimension coordinates.
DIM_ATTRS: dict[str, dict[str, str]] = {
    "policy": {"long_name": "scheduling policy"},
    "trace": {"long_name": "workload trace"},
    "load": {"long_name": "offered load", "units": "1"},
    "seed": {"long_name": "random seed index"},
}

# Provenance attributes legitimately differ between two otherwise equal
# cubes (e.g. the golden cube was made at another commit); diff ignores them.
PROVENANCE_KEYS = ("simlib_version", "git_commit", "config_sha256", "created_by")


class CubeReadError(SimlibError, OSError):
    """A cube file is missing, unreadable, or not a well-formed cube."""

    def __init__(self, path, reason):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


# --------------------------------------------------------------------------
# provenance
# --------------------------------------------------------------------------
def _jsonable(obj: Any) -> Any:
    """``json.dumps`` fallback for numpy scalars/arrays, paths and sets."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    raise TypeError(f"config value of type {type(obj).__name__} is not JSON-serialisable: {obj!r}")


def config_sha256(config_subtree: Any) -> str:
    """sha256 of the canonical JSON of a config (sub-)tree.

    Canonical: sorted keys, no whitespace, UTF-8; tuples hash like lists and
    numpy scalars like Python numbers, so equal configs hash equally whatever
    produced them.

    Examples
    --------
    >>> config_sha256({"b": 1, "a": [1, 2]}) == config_sha256({"a": (1, 2), "b": 1})
    True
    """
    text = json.dumps(
        config_subtree, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        default=_jsonable,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _find_git_dir(start: Path) -> Path | None:
    for d in (start, *start.parents):
        g = d / ".git"
        if g.is_dir():
            return g
        if g.is_file():  # worktree / submodule: "gitdir: <path>"
            text = g.read_text().strip()
            if text.startswith("gitdir:"):
                p = Path(text[len("gitdir:"):].strip())
                return p if p.is_absolute() else (d / p).resolve()
    return None


def git_commit(repo_dir: str | os.PathLike | None = None) -> str:
    """Commit hash of the repository holding ``repo_dir`` (default: simlib's).

    Read from ``.git`` files directly (HEAD, loose refs, packed-refs), so it
    is cheap and needs no ``git`` executable. The environment variable
    ``SIMLIB_GIT_COMMIT`` overrides it (for builds outside a checkout).
    Returns ``"unknown"`` when no commit can be determined. Uncommitted
    changes are *not* detected (that needs a full ``git status``).

    Examples
    --------
    >>> len(git_commit()) in (40, 64) or git_commit() == "unknown"
    True
    """
    env = os.environ.get("SIMLIB_GIT_COMMIT")
    if env:
        return env
    start = Path(repo_dir) if repo_dir is not None else Path(__file__).resolve().parent
    try:
        gdir = _find_git_dir(start.resolve())
        if gdir is None:
            return "unknown"
        head = (gdir / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head or "unknown"  # detached HEAD holds the hash
        ref = head[len("ref:"):].strip()
        # Linked worktrees keep shared refs in the "common" directory.
        dirs = [gdir]
        common = gdir / "commondir"
        if common.is_file():
            dirs.append((gdir / common.read_text().strip()).resolve())
        for d in dirs:
            loose = d / ref
            if loose.is_file():
                return loose.read_text().strip()
        for d in dirs:
            packed = d / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    parts = line.split()
                    if len(parts) == 2 and parts[1] == ref:
                        return parts[0]
    except OSError:
        pass
    return "unknown"


def provenance(config_subtree: Any, *, repo_dir: str | os.PathLike | None = None) -> dict[str, str]:
    """Provenance attributes for a cube built from ``config_subtree``.

    Keys: ``simlib_version``, ``git_commit`` (see :func:`git_commit`),
    ``config_sha256`` (:func:`config_sha256`) and ``created_by``. No
    timestamp, on purpose: equal inputs must give byte-identical cubes.

    Examples
    --------
    >>> sorted(provenance({"policies": ["easy"]}))
    ['config_sha256', 'created_by', 'git_commit', 'simlib_version']
    """
    return {
        "simlib_version": __version__,
        "git_commit": git_commit(repo_dir),
        "config_sha256": config_sha256(config_subtree),
        "created_by": f"simlib.cube.build_cube (simlib {__version__})",
    }


def study_attrs(study: str, subtree: Any, repo: str | os.PathLike | None = None,
                **attrs: Any) -> dict[str, Any]:
    """Global attributes of a study's cube: :func:`provenance` of ``subtree``
    (the config the cube depends on; ``repo`` holds the commit), the study's key,
    the subtree itself as JSON (``config_subtree``), then ``attrs``.

    Examples
    --------
    >>> a = study_attrs("demo", {"x": 1}, scale="smoke")
    >>> a["study"], a["config_subtree"], a["scale"], len(a["config_sha256"])
    ('demo', '{"x": 1}', 'smoke', 64)
    """
    return {**provenance(subtree, repo_dir=repo), "study": study,
            "config_subtree": json.dumps(subtree, sort_keys=True), **attrs}


# --------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------
def _sorted_unique(values: Iterable[Any]) -> list[Any]:
    uniq = list(dict.fromkeys(values))
    try:
        return sorted(uniq)
    except TypeError:  # mixed types: still deterministic
        return sorted(uniq, key=lambda v: (type(v).__name__, repr(v)))


def _coord_array(values: list[Any]) -> np.ndarray:
    # numpy scalars -> Python scalars first, so a coordinate of np.float64 and
    # one of float give the same array (and the same file).
    return np.asarray([v.item() if isinstance(v, np.generic) else v for v in values])


def _check_attr_value(key: str, value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return int(value)  # netCDF has no boolean attribute type
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) for v in value):
        return list(value)
    raise TypeError(
        f"attribute {key!r}: netCDF attributes must be str, number or list of numbers, "
        f"got {type(value).__name__}"
    )


def build_cube(
    records: list[Mapping[str, Any]],
    dims: list[str],
    metrics: list[str],
    *,
    attrs: Mapping[str, Any] | None = None,
    metric_info: Mapping[str, tuple[str, str, str]] | None = None,
    coord_info: Mapping[str, Mapping[str, Any]] | None = None,
    ran_dims: list[str] | None = None,
    ran_reason: str = "",
) -> xr.Dataset:
    """Arrange per-run records into a cube with ``dims`` × ``metrics``.

    Parameters
    ----------
    records : list of dict
        One per run; each holds a value for every name in ``dims`` (the
        run's coordinates) and in ``metrics`` (a number, ``None`` or NaN).
    dims : list of str
        Dimension names, in the order of the variables' axes.
    metrics : list of str
        Variables to build; their attributes come from ``metric_info`` or
        else :data:`simlib.metrics.METRICS`.
    attrs : dict, optional
        Global attributes, e.g. ``provenance(cfg) | {"study": "baseline"}``.
        Stored in sorted key order; values must be str or numbers.
    metric_info : dict, optional
        Extra or overriding ``name -> (units, long_name, description)``.
    coord_info : dict, optional
        Extra or overriding attributes of coordinates: ``dim -> attributes``
        (added to :data:`DIM_ATTRS`'s).
    ran_dims : list of str, optional
        For a cube whose grid is sparse by design: add the boolean variable
        ``ran`` over these dims (a subset of ``dims``), True where some
        record has those coordinates, and the global attribute
        ``share_of_cells_run`` (records / cells of the whole grid), so that
        the NaN of the combinations never run are explained in the file.
    ran_reason : str
        Why some combinations were not run (the design, the config key),
        appended to ``ran``'s description.

    Returns
    -------
    xarray.Dataset
        Coordinates sorted ascending; combinations without a record are NaN.

    Raises
    ------
    ValueError
        A record lacks a dim or metric, two records share coordinates, or a
        metric has no known units.

    Examples
    --------
    >>> ds = build_cube([{"policy": "easy", "load": 0.5, "mean_wait": 3.0},
    ...                  {"policy": "fcfs", "load": 0.7, "mean_wait": 9.0}],
    ...                 ["policy", "load"], ["mean_wait"], attrs={"study": "demo"})
    >>> ds["mean_wait"].sel(policy="easy", load=0.7).item()
    nan
    >>> ds["mean_wait"].attrs["units"]
    's'
    >>> ds = build_cube([{"policy": "easy", "load": 0.5, "mean_wait": 3.0},
    ...                  {"policy": "fcfs", "load": 0.7, "mean_wait": 9.0}],
    ...                 ["policy", "load"], ["mean_wait"], ran_dims=["policy", "load"])
    >>> ds["ran"].values.tolist(), ds.attrs["share_of_cells_run"]
    ([[True, False], [False, True]], 0.5)
    """
    info = dict(METRICS)
    if metric_info:
        info.update(metric_info)
    if len(set(dims)) != len(dims):
        raise ValueError(f"duplicate dimension names in {dims}")
    if set(dims) & set(metrics):
        raise ValueError(f"names used both as dimension and metric: {sorted(set(dims) & set(metrics))}")
    for m in metrics:
        if m not in info:
            raise ValueError(
                f"metric {m!r} has no units/long_name/description: add it to "
                "simlib.metrics.METRICS or pass metric_info"
            )

    for i, rec in enumerate(records):
        missing = [k for k in (*dims, *metrics) if k not in rec]
        if missing:
            raise ValueError(f"record {i} lacks {', '.join(map(repr, missing))}: {dict(rec)!r}")

    coords = {d: _sorted_unique(rec[d] for rec in records) for d in dims}
    index = {d: {v: j for j, v in enumerate(coords[d])} for d in dims}
    shape = tuple(len(coords[d]) for d in dims)
    data = {m: np.full(shape, np.nan, dtype="float64") for m in metrics}
    seen: dict[tuple, int] = {}
    for i, rec in enumerate(records):
        pos = tuple(index[d][rec[d]] for d in dims)
        if pos in seen:
            key = {d: rec[d] for d in dims}
            raise ValueError(f"records {seen[pos]} and {i} have the same coordinates {key}")
        seen[pos] = i
        for m in metrics:
            v = rec[m]
            data[m][pos] = np.nan if v is None else float(v)

    variables = {}
    for m in metrics:
        units, long_name, description = info[m]
        variables[m] = xr.Variable(
            dims, data[m], attrs={"units": units, "long_name": long_name, "description": description}
        )
    coord_info = coord_info or {}
    coord_vars = {
        d: xr.Variable((d,), _coord_array(coords[d]),
                       attrs={**DIM_ATTRS.get(d, {"long_name": d}), **coord_info.get(d, {})})
        for d in dims
    }
    attrs = dict(attrs or {})
    if ran_dims is not None:
        variables["ran"] = _ran_variable(dims, ran_dims, shape, seen, ran_reason)
        attrs["share_of_cells_run"] = len(seen) / math.prod(shape) if math.prod(shape) else 0.0
    global_attrs = {k: _check_attr_value(k, attrs[k]) for k in sorted(attrs)}
    return xr.Dataset(variables, coords=coord_vars, attrs=global_attrs)


def _ran_variable(dims: list[str], ran_dims: list[str], shape: tuple, seen: Mapping[tuple, int],
                  reason: str) -> xr.Variable:
    """Variable ``ran`` over ``ran_dims``: True where a record (``seen``: its position
    in the whole grid) has those coordinates."""
    unknown = [d for d in ran_dims if d not in dims]
    if unknown or len(set(ran_dims)) != len(ran_dims):
        raise ValueError(f"ran_dims {ran_dims} must be distinct dimensions among {dims}")
    axes = [dims.index(d) for d in ran_dims]
    mask = np.zeros(tuple(shape[i] for i in axes), dtype=bool)
    for pos in seen:
        mask[tuple(pos[i] for i in axes)] = True
    description = (f"True where runs exist for this combination of {', '.join(ran_dims)}; "
                   "False where none was run, by design, and every variable is NaN there")
    return xr.Variable(tuple(ran_dims), mask, attrs={
        "units": "1", "long_name": "combination was run",
        "description": f"{description}: {reason}" if reason else description})


# --------------------------------------------------------------------------
# netCDF I/O
# --------------------------------------------------------------------------
def _encoding(ds: xr.Dataset) -> dict[str, dict[str, Any]]:
    enc: dict[str, dict[str, Any]] = {}
    for name, var in ds.variables.items():
        if var.dtype.kind in "fc":
            # Data variables keep NaN as their fill value; coordinates have
            # none, so xarray adds no _FillValue attribute to them.
            fill = np.nan if name in ds.data_vars else None
            enc[name] = {"dtype": var.dtype.str.lstrip("<>="), "_FillValue": fill}
            if name in ds.data_vars and var.ndim:
                enc[name].update({"zlib": True, "complevel": 4, "shuffle": True})
        elif var.dtype.kind in "iu":
            enc[name] = {"_FillValue": None}
    return enc


def write_cube(ds: xr.Dataset, path: str | os.PathLike, log=None) -> Path:
    """Write ``ds`` to a netCDF4 file, atomically and deterministically.

    The file is written next to ``path`` under a temporary name and renamed,
    so an interrupted run never leaves a partial cube behind. Encoding is
    fixed (float64, NaN fill for variables, zlib level 4 with shuffle), so
    the same dataset always gives the same bytes. ``log`` (a logger), if
    given, is told the file and the cube's sizes.

    Examples
    --------
    >>> import tempfile, os
    >>> ds = build_cube([{"load": 0.5, "makespan": 10.0}], ["load"], ["makespan"])
    >>> p = write_cube(ds, os.path.join(tempfile.mkdtemp(), "c.nc"))
    >>> read_cube(p)["makespan"].values.tolist()
    [10.0]
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine="netcdf4", format="NETCDF4", encoding=_encoding(ds))
    if log is not None:
        log.info("cube %s: dims %s", path, dict(ds.sizes))
    return path


def read_cube(path: str | os.PathLike) -> xr.Dataset:
    """Read a cube written by :func:`write_cube` fully into memory.

    The dataset is checked to be a cube (:func:`check_cube`): at least one
    data variable, a coordinate for every dimension, no coordinate value
    twice.

    Raises
    ------
    CubeReadError
        The file does not exist, is not a readable netCDF file, or is not a
        well-formed cube; the message names the file and the reason.

    Examples
    --------
    >>> read_cube("/nonexistent.nc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.cube.CubeReadError: /nonexistent.nc: no such file
    """
    p = Path(path)
    if not p.exists():
        raise CubeReadError(p, "no such file")
    if p.is_dir():
        raise CubeReadError(p, "is a directory, not a netCDF file")
    try:
        with xr.open_dataset(p, engine="netcdf4") as ds:
            ds = ds.load()
    except Exception as exc:  # netCDF4/HDF5 raise assorted types for bad files
        raise CubeReadError(p, f"not a readable netCDF cube ({type(exc).__name__}: {exc})") from exc
    problem = check_cube(ds)
    if problem:
        raise CubeReadError(p, f"not a well-formed cube: {problem}")
    return ds


def check_cube(ds: xr.Dataset) -> str | None:
    """What keeps ``ds`` from being a well-formed cube, or ``None``.

    A cube (what :func:`build_cube` makes) has at least one data variable,
    a one-dimensional coordinate for each of its dimensions, and no value
    twice in such a coordinate: cells are addressed by coordinate values,
    so a repeated or missing one makes a cell ambiguous.

    Examples
    --------
    >>> check_cube(build_cube([{"load": 0.5, "makespan": 1.0}], ["load"], ["makespan"])) is None
    True
    >>> check_cube(xr.Dataset({"makespan": ("load", [1.0, 2.0])},
    ...                       coords={"load": [0.5, 0.5]}))
    "coordinate 'load' has a value twice: 0.5"
    """
    if not ds.data_vars:
        return "no data variables"
    for dim in ds.dims:
        if dim not in ds.coords or ds[dim].dims != (dim,):
            return f"dimension {dim!r} has no coordinate values"
        values = ds.indexes[dim]
        if not values.is_unique:
            twice = values[values.duplicated()][0]
            return f"coordinate {dim!r} has a value twice: {_py(twice)!r}"
    return None


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Difference:
    """One way in which two cubes differ.

    Attributes
    ----------
    kind : str
        ``"dim"`` (dimension missing or resized), ``"coord"`` (coordinate
        values differ), ``"variable"`` (variable missing or on other dims),
        ``"value"`` (a cell differs beyond tolerance) or ``"attr"``.
    name : str
        The dimension, coordinate, variable or attribute concerned.
    coords : dict
        For ``"value"``: the cell's coordinates; else empty.
    a, b : object
        What each cube holds (``None`` when absent).
    detail : str
        A human-readable explanation.
    """

    kind: str
    name: str
    coords: dict = field(default_factory=dict)
    a: Any = None
    b: Any = None
    detail: str = ""


def _close(x: np.ndarray, y: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    if x.dtype.kind in "fciub" and y.dtype.kind in "fciub":
        x = x.astype(float)
        y = y.astype(float)
        with np.errstate(invalid="ignore"):
            ok = np.abs(x - y) <= atol + rtol * np.maximum(np.abs(x), np.abs(y))
        ok |= np.isnan(x) & np.isnan(y)
        ok |= (x == y)  # equal infinities
        return ok
    return np.asarray(x == y, dtype=bool)


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _dim_differences(a: xr.Dataset, b: xr.Dataset) -> Iterator[Difference]:
    """Dimensions in one cube only, or of different sizes."""
    for d in sorted(set(a.sizes) | set(b.sizes)):
        na, nb = a.sizes.get(d), b.sizes.get(d)
        if na is None or nb is None:
            yield Difference("dim", d, a=na, b=nb,
                             detail=f"dimension only in {'A' if nb is None else 'B'}")
        elif na != nb:
            yield Difference("dim", d, a=na, b=nb, detail=f"size {na} vs {nb}")


def _coord_differences(a: xr.Dataset, b: xr.Dataset, rtol: float,
                       atol: float) -> Iterator[Difference]:
    """Coordinates in one cube only, or with other values (which ones) or order."""
    for c in sorted(set(a.coords) | set(b.coords)):
        if c not in a.coords or c not in b.coords:
            yield Difference("coord", c, detail=f"coordinate only in {'A' if c in a.coords else 'B'}")
            continue
        va, vb = a[c].values, b[c].values
        if va.shape == vb.shape and bool(np.all(_close(va, vb, rtol, atol))):
            continue
        la, lb = [_py(v) for v in va.ravel()], [_py(v) for v in vb.ravel()]
        only_a = [v for v in la if v not in lb]
        only_b = [v for v in lb if v not in la]
        detail = ("; ".join(f"only in {side}: {only}" for side, only in (("A", only_a), ("B", only_b))
                            if only) or "same values, different order")
        yield Difference("coord", c, a=la, b=lb, detail=detail)


def _attr_differences(name: str, da: dict, db: dict) -> Iterator[Difference]:
    """Attributes of variable ``name`` (``""``: the cube's, provenance keys left out) that differ."""
    for k in sorted(set(da) | set(db)):
        if name == "" and k in PROVENANCE_KEYS:
            continue
        x, y = da.get(k), db.get(k)
        if not (x is not None and y is not None and np.array_equal(np.asarray(x), np.asarray(y))):
            yield Difference("attr", f"{name}:{k}" if name else k, a=_py(x), b=_py(y))


@dataclass(frozen=True)
class VariableSummary:
    """How one variable compares between two cubes (:func:`compare_cubes`).

    Attributes
    ----------
    name : str
        The variable.
    cells : int
        Cells compared: those on the coordinates both cubes share (0 when the
        variable is not comparable, see ``status``).
    differing : int
        Cells beyond tolerance, a NaN against a number included.
    max_abs, max_rel : float
        Largest ``|A - B|`` and ``|A - B| / max(|A|, |B|)`` over the cells
        where both values are finite (0 when there is none; NaN for
        non-numeric variables).
    rtol, atol : float
        The tolerances this variable was compared with.
    status : str
        ``"compared"``, ``"only in A"``, ``"only in B"`` or
        ``"dimensions (...) vs (...)"``.
    """

    name: str
    cells: int = 0
    differing: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    rtol: float = 0.0
    atol: float = 0.0
    status: str = "compared"


@dataclass
class Comparison:
    """The whole comparison of two cubes (:func:`compare_cubes`).

    Attributes
    ----------
    differences : list of Difference
        As :func:`diff_cubes` returns them.
    variables : dict
        Variable name -> :class:`VariableSummary`, in sorted order.
    only_in : dict
        Coordinate name -> ``{"A": [...], "B": [...]}``, the values only one
        cube has (a coordinate only one cube has: all its values on that
        side); coordinates with the same values are left out.
    """

    differences: list[Difference]
    variables: dict[str, VariableSummary]
    only_in: dict[str, dict[str, list]]

    @property
    def equal(self) -> bool:
        """No difference at all (structure, values, compared attributes)."""
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the structure ``simlib diff --json`` prints).

        Keys: ``equal``; ``variables`` (name -> summary fields);
        ``only_in`` (coordinate -> ``{"A": [...], "B": [...]}``);
        ``cells`` (every differing cell: ``variable``, ``coords``, ``a``,
        ``b``, ``abs``, ``rel``); ``structure`` (dimension, coordinate and
        variable differences: ``kind``, ``name``, ``a``, ``b``, ``detail``);
        ``attrs`` (attribute differences: ``name``, ``a``, ``b``; empty unless
        compared). NaN is ``null``, infinities are ``"inf"``/``"-inf"``.

        Examples
        --------
        >>> x = build_cube([{"load": 0.5, "makespan": 10.0}], ["load"], ["makespan"])
        >>> y = x.copy(deep=True); y["makespan"][0] = 12.5
        >>> d = compare_cubes(x, y).to_dict()
        >>> d["equal"], d["variables"]["makespan"]["max_rel"], d["cells"][0]["coords"]
        (False, 0.2, {'load': 0.5})
        """
        cells, structure, attrs = [], [], []
        for d in self.differences:
            if d.kind == "value":
                delta = _deltas(d.a, d.b)
                cells.append({"variable": d.name, "coords": d.coords, "a": d.a, "b": d.b,
                              "abs": delta[0], "rel": delta[1]})
            elif d.kind == "attr":
                attrs.append({"name": d.name, "a": d.a, "b": d.b})
            else:
                structure.append({"kind": d.kind, "name": d.name, "a": d.a, "b": d.b,
                                  "detail": d.detail})
        out = {"equal": self.equal,
               "variables": {k: {f: getattr(s, f) for f in _SUMMARY_FIELDS}
                             for k, s in self.variables.items()},
               "only_in": self.only_in, "cells": cells, "structure": structure, "attrs": attrs}
        return _json_ready(out)


_SUMMARY_FIELDS = ("status", "cells", "differing", "max_abs", "max_rel", "rtol", "atol")


def _json_ready(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python ones, tuples as lists, NaN as None and
    infinities as strings: strict JSON has neither NaN nor Infinity."""
    obj = _py(obj)
    if isinstance(obj, dict):
        return {str(k): _json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_ready(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def _deltas(a: Any, b: Any) -> tuple[float | None, float | None]:
    """``|a - b|`` and ``|a - b| / max(|a|, |b|)`` of two numbers (``None`` otherwise)."""
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return None, None
    absd = abs(x - y) if x != y else 0.0  # equal infinities: 0, not NaN
    big = max(abs(x), abs(y))
    return absd, (absd / big if big > 0 and math.isfinite(big) else (0.0 if absd == 0 else math.nan))


def _array_deltas(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Largest absolute and relative difference over the cells where both are finite."""
    if not (x.dtype.kind in "fiub" and y.dtype.kind in "fiub"):
        return math.nan, math.nan
    x, y = x.astype(float), y.astype(float)
    both = np.isfinite(x) & np.isfinite(y)
    if not both.any():
        return 0.0, 0.0
    absd = np.abs(x[both] - y[both])
    big = np.maximum(np.abs(x[both]), np.abs(y[both]))
    rel = np.divide(absd, big, out=np.zeros_like(absd), where=big > 0)
    return float(absd.max()), float(rel.max())


def _only_in(a: xr.Dataset, b: xr.Dataset) -> dict[str, dict[str, list]]:
    """Coordinate -> values only ``a`` (``"A"``) or only ``b`` (``"B"``) has."""
    out = {}
    for c in sorted(set(a.coords) | set(b.coords)):
        la = [_py(v) for v in a[c].values.ravel()] if c in a.coords else []
        lb = [_py(v) for v in b[c].values.ravel()] if c in b.coords else []
        only = {"A": [v for v in la if v not in lb], "B": [v for v in lb if v not in la]}
        if only["A"] or only["B"]:
            out[str(c)] = only
    return out


def _compare_variable(v: str, a: xr.Dataset, b: xr.Dataset, rtol: float,
                      atol: float) -> tuple[VariableSummary, list[Difference]]:
    """Summary and differences of variable ``v``: in one cube only, other dimensions, or
    its cells that differ (on the coordinates both cubes share, in array order)."""
    if v not in a.data_vars or v not in b.data_vars:
        side = "A" if v in a.data_vars else "B"
        return (VariableSummary(v, rtol=rtol, atol=atol, status=f"only in {side}"),
                [Difference("variable", v, detail=f"variable only in {side}")])
    xa, xb = a[v], b[v]
    if set(xa.dims) != set(xb.dims):
        detail = f"dimensions {xa.dims} vs {xb.dims}"
        return (VariableSummary(v, rtol=rtol, atol=atol, status=detail),
                [Difference("variable", v, a=xa.dims, b=xb.dims, detail=detail)])
    xa, xb = xr.align(xa, xb, join="inner")
    xb = xb.transpose(*xa.dims)
    va, vb = xa.values, xb.values
    ok = _close(va, vb, rtol, atol)
    diffs = [Difference("value", v, coords={d: _py(xa[d].values[i]) for d, i in zip(xa.dims, idx)},
                        a=_py(va[idx]), b=_py(vb[idx]))
             for idx in zip(*np.nonzero(~ok))]
    max_abs, max_rel = _array_deltas(va, vb)
    return VariableSummary(v, int(ok.size), len(diffs), max_abs, max_rel, rtol, atol), diffs


def _check_tolerances(rtol: float, atol: float, var_rtol: Mapping[str, float],
                      var_atol: Mapping[str, float], names: set) -> None:
    tols = [rtol, atol, *var_rtol.values(), *var_atol.values()]
    if any(not (t >= 0) for t in tols):  # NaN too
        raise ValueError("rtol and atol must be non-negative")
    unknown = sorted((set(var_rtol) | set(var_atol)) - names)
    if unknown:
        raise ValueError(f"tolerance for a variable neither cube has: {', '.join(unknown)} "
                         f"(variables: {', '.join(sorted(names))})")


def compare_cubes(
    a: xr.Dataset,
    b: xr.Dataset,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    check_attrs: bool = False,
    var_rtol: Mapping[str, float] | None = None,
    var_atol: Mapping[str, float] | None = None,
) -> Comparison:
    """Compare cubes ``a`` and ``b``: the differences and a summary per variable.

    Compares dimensions (names and sizes), coordinate values, the set of
    variables and their dimensions, and every value. Values ``x``, ``y`` are
    equal when ``|x - y| <= atol + rtol * max(|x|, |y|)`` (symmetric, so the
    order of the cubes does not matter), and NaN equals NaN. ``var_rtol``
    and ``var_atol`` (variable -> tolerance) override ``rtol`` and ``atol``
    for the variables they name. Where the coordinates differ, values are
    still compared on the coordinates both cubes share, and
    :attr:`Comparison.only_in` lists the rest. With ``check_attrs`` variable
    and global attributes are compared too, except the provenance keys
    (commit, config hash...), which differ legitimately between a golden
    cube and a fresh one.

    Raises
    ------
    ValueError
        A negative tolerance, or one for a variable neither cube has.

    Examples
    --------
    >>> x = build_cube([{"load": 0.5, "makespan": 10.0}], ["load"], ["makespan"])
    >>> y = x.copy(deep=True); y["makespan"][0] = 10.5
    >>> c = compare_cubes(x, y)
    >>> c.equal, c.variables["makespan"].differing, c.variables["makespan"].max_abs
    (False, 1, 0.5)
    >>> compare_cubes(x, y, var_atol={"makespan": 1.0}).equal
    True
    """
    var_rtol, var_atol = dict(var_rtol or {}), dict(var_atol or {})
    names = set(a.data_vars) | set(b.data_vars)
    _check_tolerances(rtol, atol, var_rtol, var_atol, {str(n) for n in names})
    values, summaries = [], {}
    for v in sorted(names):
        summaries[v], diffs = _compare_variable(v, a, b, var_rtol.get(v, rtol), var_atol.get(v, atol))
        values.extend(diffs)
    out = [*_dim_differences(a, b), *_coord_differences(a, b, rtol, atol)]
    # "variable" rows before the "value" rows, as diff_cubes has always ordered them.
    out += [d for d in values if d.kind != "value"] + [d for d in values if d.kind == "value"]
    if check_attrs:
        out.extend(_attr_differences("", a.attrs, b.attrs))
        for v in sorted((set(a.variables) & set(b.variables))):
            out.extend(_attr_differences(v, a[v].attrs, b[v].attrs))
    return Comparison(out, summaries, _only_in(a, b))


def diff_cubes(
    a: xr.Dataset,
    b: xr.Dataset,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    check_attrs: bool = False,
    var_rtol: Mapping[str, float] | None = None,
    var_atol: Mapping[str, float] | None = None,
) -> list[Difference]:
    """List the differences between cubes ``a`` and ``b`` (see :func:`compare_cubes`).

    Returns
    -------
    list of Difference
        Empty when the cubes are equal within tolerance. Ordered: dims,
        coords, variables, values (per variable in sorted order, cells in
        array order), attributes.

    Examples
    --------
    >>> x = build_cube([{"load": 0.5, "makespan": 10.0}], ["load"], ["makespan"])
    >>> y = x.copy(deep=True); y["makespan"][0] = 10.5
    >>> [d.kind for d in diff_cubes(x, y)]
    ['value']
    >>> diff_cubes(x, y, atol=1.0)
    []
    """
    return compare_cubes(a, b, rtol=rtol, atol=atol, check_attrs=check_attrs,
                         var_rtol=var_rtol, var_atol=var_atol).differences


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.10g}"
    if isinstance(v, list) and len(v) > 6:
        return f"[{', '.join(_fmt(x) for x in v[:6])}, ... ({len(v)} values)]"
    return str(v)


def _fmt_pair(a: Any, b: Any) -> tuple[str, str]:
    """``a`` and ``b`` with the fewest significant digits (10 at least) that tell
    them apart: 16461.25333 and 16461.25333002, not twice 16461.25333.

    Examples
    --------
    >>> _fmt_pair(16461.25333, 16461.25333 * (1 + 1e-12))
    ('16461.25333', '16461.25333002')
    """
    if isinstance(a, float) and isinstance(b, float) and a != b:
        for digits in range(10, 18):
            sa, sb = f"{a:.{digits}g}", f"{b:.{digits}g}"
            if sa != sb:
                return sa, sb
    return _fmt(a), _fmt(b)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned columns, a rule under the first (the header)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for j, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def format_differences(diffs: list[Difference], *, max_rows: int = 50) -> str:
    """Render differences as a plain-text table for a terminal or CI log.

    Columns: kind, variable (or dim/coord/attr), coordinates of the cell,
    value in A, value in B (each with the digits that tell them apart),
    ``|A - B|`` and ``|A - B| / max(|A|, |B|)`` for numeric cells. At most
    ``max_rows`` rows; the rest is counted.

    Examples
    --------
    >>> print(format_differences([Difference("value", "mean_wait", {"load": 0.5}, 1.0, 2.0)]))
    1 difference (1 value in 1 variable: mean_wait)
    kind   variable   coordinates  A  B  |A-B|  rel
    -----  ---------  -----------  -  -  -----  ---
    value  mean_wait  load=0.5     1  2  1      0.5
    """
    if not diffs:
        return "no differences"
    values = [d for d in diffs if d.kind == "value"]
    vars_ = sorted({d.name for d in values})
    head = f"{len(diffs)} difference{'s' if len(diffs) != 1 else ''}"
    if values:
        head += (f" ({len(values)} value{'s' if len(values) != 1 else ''} in {len(vars_)} "
                 f"variable{'s' if len(vars_) != 1 else ''}: {', '.join(vars_)})")
    rows = [("kind", "variable", "coordinates", "A", "B", "|A-B|", "rel")]
    for d in diffs[:max_rows]:
        if d.kind == "value":
            where = ", ".join(f"{k}={_fmt(v)}" for k, v in d.coords.items())
            absd, rel = _deltas(d.a, d.b)
            rows.append((d.kind, d.name, where, *_fmt_pair(d.a, d.b),
                         "" if absd is None else f"{absd:.4g}", "" if rel is None else f"{rel:.3g}"))
        else:
            rows.append((d.kind, d.name, d.detail, _fmt(d.a), _fmt(d.b), "", ""))
    lines = [head, *_table(rows)]
    if len(diffs) > max_rows:
        lines.append(f"... and {len(diffs) - max_rows} more")
    return "\n".join(lines)


def format_comparison(comparison: Comparison, *, max_rows: int = 50) -> str:
    """Render a :class:`Comparison` for a terminal or CI log: a summary per
    variable, the coordinate values only one cube has, then
    :func:`format_differences`' table.

    Examples
    --------
    >>> x = build_cube([{"load": 0.5, "makespan": 10.0}], ["load"], ["makespan"])
    >>> y = build_cube([{"load": l, "makespan": 10.0} for l in (0.5, 0.7)], ["load"], ["makespan"])
    >>> print(format_comparison(compare_cubes(x, y)))  # doctest: +NORMALIZE_WHITESPACE
    variable  status    cells  differing  max |A-B|  max rel  rtol  atol
    --------  --------  -----  ---------  ---------  -------  ----  ----
    makespan  compared  1      0          0          0        0     0
    only in one cube:
      load: only in B: 0.7
    2 differences
    kind   variable  coordinates       A      B           |A-B|  rel
    -----  --------  ----------------  -----  ----------  -----  ---
    dim    load      size 1 vs 2       1      2
    coord  load      only in B: [0.7]  [0.5]  [0.5, 0.7]
    """
    rows = [("variable", "status", "cells", "differing", "max |A-B|", "max rel", "rtol", "atol")]
    for s in comparison.variables.values():
        rows.append((s.name, s.status, str(s.cells), str(s.differing), f"{s.max_abs:.4g}",
                     f"{s.max_rel:.3g}", f"{s.rtol:g}", f"{s.atol:g}"))
    lines = _table(rows)
    if comparison.only_in:
        lines.append("only in one cube:")
        for c, sides in comparison.only_in.items():
            lines += [f"  {c}: only in {side}: {', '.join(_fmt(v) for v in vals)}"
                      for side, vals in sides.items() if vals]
    lines.append(format_differences(comparison.differences, max_rows=max_rows))
    return "\n".join(lines)
