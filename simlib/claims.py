"""Claims as data: what a paper says, what our runs show, and a verdict.

Every reproduced paper's README and the cross-paper
``paper_figures/CLAIMS.md`` are built from :class:`Claim` records, with one
vocabulary of verdicts (:class:`Verdict`) and one Markdown renderer
(:func:`markdown_table`). A verdict is given by a stated criterion applied
mechanically to our numbers, so it cannot drift from them, and every
criterion can say "not reproduced".

The published numbers a claim is checked against live in
``config/published/<paper>.yaml``, validated against a JSON schema
(:func:`read_published`) before any job runs.

Examples
--------
>>> c = Claim(paper="K", claim="LOS beats EASY", source="Fig. 1", published="yes",
...           ours="3/3 loads", criterion="mean wait lower at every load",
...           verdict=verdict_from_hits(3, 3))
>>> c.verdict.value
'reproduced'
>>> print(markdown_table(claims_frame([c]), ["claim", "verdict"]))
| claim | verdict |
|---|---|
| LOS beats EASY | reproduced |
<BLANKLINE>
"""
from __future__ import annotations

import enum
import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from .errors import ConfigError

__all__ = ["Verdict", "Claim", "verdict_from_hits", "verdict_from_sign", "claims_frame",
           "markdown_table", "format_cell", "verdict_counts", "read_published",
           "CLAIM_COLUMNS"]


class Verdict(str, enum.Enum):
    """The one verdict vocabulary of every paper."""

    #: Our runs show what the paper says, by the stated criterion.
    REPRODUCED = "reproduced"
    #: Some of the claim's cases hold, others do not.
    PARTLY = "partly reproduced"
    #: The criterion fails: our runs do not show it (no clear opposite either).
    NOT_REPRODUCED = "not reproduced"
    #: Our runs show the opposite of the claim.
    CONTRADICTED = "contradicted"
    #: Needs data or systems we do not have (e.g. a real machine's runs).
    NOT_TESTABLE = "not testable here"

    def __str__(self) -> str:
        return self.value


def verdict_from_hits(hits: int, total: int) -> Verdict:
    """All cases hold: reproduced; some: partly; none (or no case): not reproduced.

    Examples
    --------
    >>> [verdict_from_hits(h, 4).value for h in (4, 2, 0)]
    ['reproduced', 'partly reproduced', 'not reproduced']
    """
    if total and hits == total:
        return Verdict.REPRODUCED
    return Verdict.PARTLY if hits > 0 else Verdict.NOT_REPRODUCED


def verdict_from_sign(better: int, worse: int, total: int) -> Verdict:
    """For "A beats B" claims tested case by case (e.g. per load, paired).

    Reproduced when A is better in every case, contradicted when B is better
    in every case, partly when A is better in some, else not reproduced.

    Examples
    --------
    >>> [verdict_from_sign(*x).value for x in ((3, 0, 3), (0, 3, 3), (1, 2, 3), (0, 0, 3))]
    ['reproduced', 'contradicted', 'partly reproduced', 'not reproduced']
    """
    if total and better == total:
        return Verdict.REPRODUCED
    if total and worse == total:
        return Verdict.CONTRADICTED
    return Verdict.PARTLY if better > 0 else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked on our runs.

    Attributes
    ----------
    paper : str
        Paper id (``U``, ``K``, ``D``, ``Z``).
    claim : str
        What the paper says, in our words.
    source : str
        Where in the paper (section, figure, table).
    published : str
        The paper's number(s) or statement, as data.
    ours : str
        Our number(s).
    criterion : str
        The rule that gives the verdict (stated so it can be checked by hand).
    verdict : Verdict
    figure : str
        Our artifact showing it (optional).
    reading : str
        The interpretation of the paper under which it was tested (optional).
    """

    paper: str
    claim: str
    source: str
    published: str
    ours: str
    criterion: str
    verdict: Verdict
    figure: str = ""
    reading: str = ""

    def __post_init__(self):
        object.__setattr__(self, "verdict", Verdict(self.verdict))

    def as_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        return d


#: Column order of claim tables.
CLAIM_COLUMNS = tuple(f.name for f in fields(Claim))


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """Claims as a table (columns :data:`CLAIM_COLUMNS`, verdicts as words)."""
    return pd.DataFrame([c.as_dict() for c in claims], columns=list(CLAIM_COLUMNS))


def verdict_counts(claims: Iterable[Claim]) -> dict[str, int]:
    """How many claims got each verdict, in vocabulary order, zeros left out.

    Examples
    --------
    >>> cs = [Claim("U", "a", "s", "p", "o", "c", "reproduced"),
    ...       Claim("U", "b", "s", "p", "o", "c", "contradicted")]
    >>> verdict_counts(cs)
    {'reproduced': 1, 'contradicted': 1}
    """
    counts = {v.value: 0 for v in Verdict}
    for c in claims:
        counts[c.verdict.value] += 1
    return {k: n for k, n in counts.items() if n}


def format_cell(x: Any, digits: int = 4) -> str:
    """One table cell: integers plainly, floats to ``digits`` significant digits, NaN as ``-``.

    Examples
    --------
    >>> [format_cell(x) for x in (3, 2.0, 0.123456, float("nan"), None, "a|b")]
    ['3', '2', '0.1235', '-', '-', 'a\\\\|b']
    """
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float) or hasattr(x, "dtype"):
        try:
            xf = float(x)
        except (TypeError, ValueError):
            return str(x).replace("|", "\\|")
        if not math.isfinite(xf):
            return "-"
        if xf == int(xf) and abs(xf) < 1e15:
            return str(int(xf))
        return f"{xf:.{digits}g}"
    return str(x).replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame, columns: Sequence[str] | None = None, *,
                   headers: Mapping[str, str] | None = None, digits: int = 4,
                   align: Mapping[str, str] | None = None) -> str:
    """A GitHub Markdown table of ``frame`` (the one renderer of every report).

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str, optional
        Columns to show, in order (default: all).
    headers : mapping, optional
        Column -> header text (default: the column name).
    digits : int, default 4
        Significant digits of floats (:func:`format_cell`).
    align : mapping, optional
        Column -> ``"left"`` or ``"right"``; default right for numeric
        columns, left otherwise.

    Examples
    --------
    >>> df = pd.DataFrame({"policy": ["easy"], "wait": [12.3456]})
    >>> print(markdown_table(df, headers={"wait": "mean wait (s)"}))
    | policy | mean wait (s) |
    |---|---:|
    | easy | 12.35 |
    <BLANKLINE>
    """
    columns = list(columns if columns is not None else frame.columns)
    headers = dict(headers or {})
    align = dict(align or {})
    lines = ["| " + " | ".join(str(headers.get(c, c)) for c in columns) + " |"]
    rule = []
    for c in columns:
        side = align.get(c) or ("right" if frame[c].dtype.kind in "iuf" else "left")
        rule.append("---:" if side == "right" else "---")
    lines.append("|" + "|".join(rule) + "|")
    for row in frame[columns].itertuples(index=False):
        lines.append("| " + " | ".join(format_cell(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def read_published(path, schema) -> dict:
    """Read ``config/published/<paper>.yaml`` and validate it against a JSON schema.

    Parameters
    ----------
    path : path-like
        The published-numbers file (YAML).
    schema : path-like or mapping
        JSON schema (a file or the schema itself).

    Raises
    ------
    ConfigError
        Unreadable file, or the first schema violation, naming the file and
        the key (``table1.values.0.3.easy``).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "p.yaml")
    >>> _ = open(p, "w").write("t1: {source: 'Table 1', values: {a: x}}\\n")
    >>> schema = {"type": "object", "properties": {"t1": {"type": "object", "properties": {
    ...     "values": {"additionalProperties": {"type": "number"}}}}}}
    >>> read_published(p, schema)
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: ...p.yaml: t1.values.a: 'x' is not of type 'number'
    """
    import jsonschema
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read published numbers ({exc})") from None
    if not isinstance(schema, Mapping):
        schema = json.loads(Path(schema).read_text(encoding="utf-8"))
    # YAML keys such as 0.3 are numbers; JSON schema sees object keys as text.
    data_for_schema = json.loads(json.dumps(data, default=str))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data_for_schema),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = errors[0]
        key = ".".join(map(str, err.absolute_path)) or "(top level)"
        raise ConfigError(f"{path}: {key}: {err.message}")
    return data
