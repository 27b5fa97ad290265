"""A table as named numpy columns: what a run needs of a DataFrame, without pandas.

Importing pandas costs ~0.15 s of CPU, about a third of a whole ``simlib
simulate`` process on a 50,000-job trace. The path of such a run (read a
trace, clean it, simulate, write the jobs table, print the summary) only
needs columns of numbers, so it keeps them in a :class:`Table`; the
DataFrame a library user or a pipeline step asks for
(:attr:`simlib.workload.swf.Workload.jobs`, :attr:`simlib.runner.SimResult.jobs`)
is built from it on first use, with the same values, dtypes and a RangeIndex.

Examples
--------
>>> import numpy as np
>>> t = Table({"a": np.array([1, 2]), "b": np.array([0.5, 1.5])})
>>> len(t), t.columns, t["b"].tolist(), "a" in t.columns
(2, ('a', 'b'), [0.5, 1.5], True)
>>> t.to_frame().dtypes.tolist()
[dtype('int64'), dtype('float64')]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Table", "duplicated"]


class Table:
    """Named one-dimensional numpy arrays of one length, in column order.

    The subset of the DataFrame interface that the metrics, the CSV writer
    and the readers use: ``columns``, ``table[name]`` (the array itself, not
    a copy), ``len(table)`` (rows) and ``empty``. Tables are not modified in
    place by simlib: functions that change a column build a new table
    (:meth:`assign`, :meth:`take`).

    Parameters
    ----------
    columns : mapping of str to array-like
        Each becomes a 1-D numpy array (strings: an object array of str,
        which a DataFrame holds as pandas chooses for str cells).

    Raises
    ------
    ValueError
        A column is not one-dimensional, or the lengths differ.
    """

    __slots__ = ("_columns", "_rows")

    def __init__(self, columns: Mapping[str, object]) -> None:
        arrays = {}
        rows = None
        for name, values in columns.items():
            if isinstance(values, list) and values and isinstance(values[0], str):
                # Straight to an object array: numpy's fixed-width str type
                # first (np.asarray) costs ~20 ms per 50,000 cells.
                values = np.array(values, dtype=object)
            array = np.asarray(values)
            if array.dtype.kind == "U":
                array = array.astype(object)  # pandas' own representation of str cells
            if array.ndim != 1:
                raise ValueError(f"Table: column {name!r} is not one-dimensional "
                                 f"(shape {array.shape})")
            if rows is None:
                rows = len(array)
            elif len(array) != rows:
                raise ValueError(f"Table: column {name!r} has {len(array)} rows, "
                                 f"the first column {rows}")
            arrays[name] = array
        self._columns = arrays
        self._rows = 0 if rows is None else rows

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Table:
        """The columns of a DataFrame as arrays (views where pandas allows).

        Examples
        --------
        >>> import pandas as pd
        >>> Table.from_frame(pd.DataFrame({"x": [3, 4]}))["x"].tolist()
        [3, 4]
        """
        return cls({name: frame[name].to_numpy() for name in frame.columns})

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names, in order."""
        return tuple(self._columns)

    @property
    def empty(self) -> bool:
        """True when the table has no rows (as ``DataFrame.empty``)."""
        return self._rows == 0

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name]

    def __repr__(self) -> str:
        return f"Table({self._rows} rows: {', '.join(self._columns)})"

    def assign(self, **columns) -> Table:
        """A new table with these columns replaced (or appended at the end).

        Examples
        --------
        >>> Table({"a": [1], "b": [2]}).assign(a=[5.0])["a"].tolist()
        [5.0]
        """
        return Table({**self._columns, **columns})

    def take(self, rows) -> Table:
        """A new table of the given rows (indices or a boolean mask), in that order.

        Examples
        --------
        >>> Table({"a": [1, 2, 3]}).take([2, 0])["a"].tolist()
        [3, 1]
        """
        return Table({name: values[rows] for name, values in self._columns.items()})

    @classmethod
    def concat(cls, tables: list[Table]) -> Table:
        """The rows of ``tables`` one after the other (as ``pandas.concat`` with
        ``ignore_index=True``); every table has the same columns in the same order.

        Examples
        --------
        >>> t = Table.concat([Table({"a": [1], "b": ["x"]}), Table({"a": [2], "b": ["y"]})])
        >>> t["a"].tolist(), t["b"].tolist()
        ([1, 2], ['x', 'y'])
        """
        if not tables:
            raise ValueError("Table.concat: no tables")
        names = tables[0].columns
        for t in tables[1:]:
            if t.columns != names:
                raise ValueError(f"Table.concat: columns {t.columns} differ from {names}")
        return cls({name: np.concatenate([t._columns[name] for t in tables]) for name in names})

    def to_frame(self) -> pd.DataFrame:
        """The DataFrame of these columns (a RangeIndex; the arrays copied).

        Examples
        --------
        >>> Table({"s": ["x", "y"], "n": [1, 2]}).to_frame().shape
        (2, 2)
        """
        import pandas as pd

        return pd.DataFrame(dict(self._columns), columns=list(self._columns))


def duplicated(values: np.ndarray) -> np.ndarray:
    """True for each value seen before it (as ``pandas.Series.duplicated()``).

    Examples
    --------
    >>> duplicated(np.array([3, 1, 3, 3, 2])).tolist()
    [False, False, True, True, False]
    >>> duplicated(np.array([np.nan, 1.0, np.nan])).tolist()
    [False, False, True]
    """
    values = np.asarray(values)
    # A stable sort puts each value's first occurrence first among its equals
    # (np.unique would do, but it imports numpy.ma: ~10 ms of a short run).
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    repeat = np.zeros(len(values), dtype=bool)
    if len(values) > 1:
        repeat[1:] = ordered[1:] == ordered[:-1]
        if ordered.dtype.kind in "fc":  # NaN repeats NaN, as in pandas
            repeat[1:] |= np.isnan(ordered[1:]) & np.isnan(ordered[:-1])
    seen = np.empty(len(values), dtype=bool)
    seen[order] = repeat
    return seen
