"""Claims as data: what a paper says, what our runs show, and a verdict.

Every reproduced paper's README and the cross-paper
``paper_figures/CLAIMS.md`` are built from :class:`Claim` records, with one
vocabulary of verdicts (:class:`Verdict`) and the one Markdown renderer
(:func:`simlib.markdown.markdown_table`). A verdict is given by a stated criterion applied
mechanically to our numbers, so it cannot drift from them, and every
criterion can say "not reproduced".

The published numbers a claim is checked against live in
``config/published/<paper>.yaml``, validated against a JSON schema
(:func:`read_published`) before any job runs. Each study checking a
paper writes its claims to a file (:func:`write_claims`), from which the
pipeline builds ``paper_figures/CLAIMS.md`` (:func:`claims_index`).

Examples
--------
>>> c = Claim(paper="K", claim="LOS beats EASY", source="Fig. 1", published="yes",
...           ours="3/3 loads", criterion="mean wait lower at every load",
...           verdict=verdict_from_hits(3, 3))
>>> c.verdict.value
'reproduced'
>>> from simlib.markdown import markdown_table
>>> print(markdown_table(claims_frame([c]), ["claim", "verdict"]))
| claim | verdict |
|---|---|
| LOS beats EASY | reproduced |
<BLANKLINE>
"""
from __future__ import annotations

import enum
import inspect
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import pandas as pd

from .errors import ConfigError
from .io import write_csv

__all__ = ["Verdict", "Claim", "verdict_from_hits", "verdict_from_sign", "claims_frame",
           "verdict_counts", "apply_criteria", "write_claims", "read_claims", "claims_index",
           "read_published", "published_loader", "CLAIM_COLUMNS", "CLAIMS_FILE_COLUMNS"]


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


def verdict_counts(claims: Iterable[Claim | str]) -> dict[str, int]:
    """How many claims (or verdict words) got each verdict, in vocabulary order, zeros left out.

    Examples
    --------
    >>> cs = [Claim("U", "a", "s", "p", "o", "c", "reproduced"),
    ...       Claim("U", "b", "s", "p", "o", "c", "contradicted")]
    >>> verdict_counts(cs)
    {'reproduced': 1, 'contradicted': 1}
    """
    counts = {v.value: 0 for v in Verdict}
    for c in claims:
        counts[Verdict(getattr(c, "verdict", c)).value] += 1
    return {k: n for k, n in counts.items() if n}


def apply_criteria(criteria: Sequence[Callable[..., Claim]], **inputs) -> list[Claim]:
    """The claims of every criterion whose inputs are all given, in ``criteria`` order.

    A criterion function names what it reads by its parameters: it is
    applied when each of its parameters without a default is given and not
    None (a table not built at this scale skips the claims it holds); a
    parameter with a default (an option such as the policy label of a
    reading) is passed when given.

    Raises
    ------
    TypeError
        An input that no criterion reads (a misspelt name would silently
        skip its claims otherwise).

    Examples
    --------
    >>> def fewer_waits(waits):
    ...     return Claim("X", "waits drop", "Fig. 1", "drop", f"{waits}", "all drop",
    ...                  verdict_from_hits(sum(w < 0 for w in waits), len(waits)))
    >>> [c.verdict.value for c in apply_criteria([fewer_waits], waits=[-1, 2])]
    ['partly reproduced']
    >>> apply_criteria([fewer_waits], waits=None)
    []
    """
    params = {fn: inspect.signature(fn).parameters for fn in criteria}
    unknown = set(inputs) - {n for ps in params.values() for n in ps}
    if unknown:
        raise TypeError(f"no criterion reads {', '.join(sorted(unknown))}")
    out = []
    for fn, ps in params.items():
        required = [n for n, p in ps.items() if p.default is inspect.Parameter.empty]
        if all(inputs.get(n) is not None for n in required):
            out.append(fn(**{n: inputs[n] for n in ps if n in inputs}))
    return out


#: Columns of a study's claims file: the scale that produced the verdicts, then the claim.
CLAIMS_FILE_COLUMNS = ("scale", *CLAIM_COLUMNS)


def write_claims(claims: Iterable[Claim], path, *, scale: str) -> pd.DataFrame:
    """Write a study's claims file (CSV, :data:`CLAIMS_FILE_COLUMNS`), atomically; return it.

    Every study checking a paper's claims writes one (it names it in
    :meth:`simlib.studies.Study.claims_file`); the pipeline gathers them into
    ``paper_figures/CLAIMS.md`` (:func:`claims_index`).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "claims.csv")
    >>> c = Claim("U", "a", "Fig. 2", "1", "1", "equal", "reproduced")
    >>> write_claims([c], p, scale="smoke")["verdict"].tolist()
    ['reproduced']
    >>> read_claims(p).iloc[0]["scale"]
    'smoke'
    """
    frame = claims_frame(claims)
    frame.insert(0, "scale", scale)
    write_csv(frame, path, index=False, lineterminator="\n")
    return frame


def read_claims(path) -> pd.DataFrame:
    """A claims file (:func:`write_claims`) as text columns, checked.

    Raises
    ------
    ValueError
        Naming the file: columns other than :data:`CLAIMS_FILE_COLUMNS`, or
        a verdict outside the vocabulary (with its row).
    """
    # Text as written: "" stays "" (not NaN), "-" stays "-".
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if tuple(frame.columns) != CLAIMS_FILE_COLUMNS:
        raise ValueError(f"{path}: columns {list(frame.columns)}, expected "
                         f"{list(CLAIMS_FILE_COLUMNS)}")
    words = [v.value for v in Verdict]
    for i, word in enumerate(frame["verdict"]):
        if word not in words:
            raise ValueError(f"{path}: row {i + 1}: verdict {word!r} is not one of "
                             f"{', '.join(repr(w) for w in words)}")
    return frame


def claims_index(papers: Sequence[Mapping], *, scale: str, here=".",
                 scale_description: str = "") -> str:
    """``paper_figures/CLAIMS.md``: every paper's claims in one table, verdicts counted.

    Parameters
    ----------
    papers : sequence of mappings
        One per paper, in display order: ``paper`` (its id), ``title``,
        ``claims`` (its claims file) and ``readme`` (its README, linked;
        may be None).
    scale : str
        The run's scale; every claims file must come from it.
    here : path-like
        Directory of the written file (links are relative to it).
    scale_description : str

    Raises
    ------
    ValueError
        A claims file of another scale or naming another paper, or one
        :func:`read_claims` refuses.
    """
    frames, counts, links = [], [], {}
    for p in papers:
        df = read_claims(p["claims"])
        for col, want in (("scale", scale), ("paper", p["paper"])):
            other = sorted(set(df[col]) - {want})
            if other:
                raise ValueError(f"{p['claims']}: {col} {other[0]!r}, expected {want!r}")
        readme = p.get("readme")
        links[p["paper"]] = (f"[{p['paper']}]({os.path.relpath(readme, here)})" if readme
                             else p["paper"])
        frames.append(df)
        row = {"paper": links[p["paper"]], "title": p.get("title", "")}
        row.update({v.value: int((df["verdict"] == v.value).sum()) for v in Verdict})
        counts.append({**row, "total": len(df)})
    table = pd.DataFrame(counts, columns=["paper", "title", *(v.value for v in Verdict), "total"])
    if len(table) > 1:
        total = table.drop(columns=["paper", "title"]).sum()
        table.loc[len(table)] = {"paper": "all", "title": "", **total.to_dict()}
    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=list(CLAIMS_FILE_COLUMNS))
    claims["paper"] = claims["paper"].map(links)
    from .render import render
    return render("simlib", "CLAIMS.md.j2", scale=scale, scale_description=scale_description,
                  verdicts=[v.value for v in Verdict], counts=table, claims=claims)


def read_published(path, schema, check=None) -> dict:
    """Read ``config/published/<paper>.yaml`` and validate it against a JSON schema.

    Parameters
    ----------
    path : path-like
        The published-numbers file (YAML).
    schema : path-like or mapping
        JSON schema (a file or the schema itself).
    check : callable, optional
        ``check(data, path)``: the paper's checks that the schema cannot
        express, run on a schema-valid file.

    Raises
    ------
    ConfigError
        Unreadable file, or the first schema violation, naming the file and
        the key (``table1.values.0.3.easy``), or what ``check`` raises.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "p.yaml")
    >>> _ = open(p, "w").write("t1: {source: 'Table 1', values: {a: x}}\\n")
    >>> schema = {"type": "object", "properties": {"t1": {"type": "object", "properties": {
    ...     "values": {"additionalProperties": {"type": "number"}}}}}}
    >>> read_published(p, schema)  # doctest: +ELLIPSIS
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
    if check is not None:
        check(data, path)
    return data


def published_loader(module_file, check=None) -> Callable[..., dict]:
    """A study's ``load_published(path)``: :func:`read_published` with the schema
    ``published.schema.json`` beside ``module_file`` (the study's ``published``
    module) and the paper's ``check``; the schema's path is its ``schema`` attribute.

    Examples
    --------
    >>> load = published_loader("/repo/simlib/studies/x/published.py")
    >>> str(load.schema), load.__name__
    ('/repo/simlib/studies/x/published.schema.json', 'load_published')
    """
    schema = Path(module_file).resolve().with_name("published.schema.json")

    def load_published(path) -> dict:
        """Read the paper's published-numbers file, checked (schema, then the paper's checks)."""
        return read_published(path, schema, check)

    load_published.schema = schema
    return load_published
