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
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import ConfigError
from .io import write_csv

__all__ = ["Verdict", "Claim", "verdict_from_hits", "verdict_from_sign", "combine_cases",
           "Evidence", "paired_evidence", "value_verdict", "per_unit", "sign_test_p",
           "ALPHA", "MIN_UNITS", "CLAIM", "CONSISTENCY", "claims_frame",
           "verdict_counts", "apply_criteria", "write_claims", "read_claims", "claims_index",
           "read_published", "published_loader", "verdict_changes", "CLAIM_COLUMNS", "CLAIMS_FILE_COLUMNS"]


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
    #: Too few independent units for the test to decide either way (it could
    #: neither confirm the claim nor exclude it); a larger scale decides.
    INCONCLUSIVE = "inconclusive"
    #: Needs data or systems we do not have (e.g. a real machine's runs).
    NOT_TESTABLE = "not testable here"

    def __str__(self) -> str:
        return self.value


#: Level of every test behind a verdict.
ALPHA = 0.05
#: Least number of independent units (seeds, workloads, trace segments) on
#: which a verdict may rest on a confidence interval or on a test that did not
#: reject: with fewer, a "within the CI" match or a non-significant difference
#: says more about the sample size than about the claim, so the verdict is
#: :attr:`Verdict.INCONCLUSIVE`.
MIN_UNITS = 10


def verdict_from_hits(hits: int, total: int, *, against: int = 0,
                      undecided: int = 0) -> Verdict:
    """The one rule for a claim made of several stated cases (loads, platforms, traces).

    A case *holds* when its own test says the claim holds there, is *against*
    when it shows the opposite, *undecided* when its test was inconclusive.

    - reproduced: every case holds;
    - contradicted: every case is against;
    - partly reproduced: more than half of the cases hold (the counts are shown);
    - inconclusive: fewer than half hold, but the undecided cases could make
      it a majority;
    - not reproduced: otherwise (also when there is no case).

    Examples
    --------
    >>> [verdict_from_hits(h, 4).value for h in (4, 3, 2, 0)]
    ['reproduced', 'partly reproduced', 'not reproduced', 'not reproduced']
    >>> verdict_from_hits(0, 3, against=3).value
    'contradicted'
    >>> verdict_from_hits(1, 4, undecided=2).value
    'inconclusive'
    """
    if total and hits == total:
        return Verdict.REPRODUCED
    if total and against == total:
        return Verdict.CONTRADICTED
    if 2 * hits > total:
        return Verdict.PARTLY
    if undecided and 2 * (hits + undecided) > total:
        return Verdict.INCONCLUSIVE
    return Verdict.NOT_REPRODUCED


def verdict_from_sign(better: int, worse: int, total: int, undecided: int = 0) -> Verdict:
    """For "A beats B" claims tested case by case: :func:`verdict_from_hits`
    with ``better`` cases holding and ``worse`` against.

    Examples
    --------
    >>> [verdict_from_sign(*x).value for x in ((3, 0, 3), (0, 3, 3), (2, 1, 3), (1, 2, 3))]
    ['reproduced', 'contradicted', 'partly reproduced', 'not reproduced']
    """
    return verdict_from_hits(better, total, against=worse, undecided=undecided)


def combine_cases(verdicts: Iterable[Verdict | str]) -> Verdict:
    """One claim's verdict from its cases' verdicts (:func:`verdict_from_hits`).

    A reproduced case holds, a contradicted one is against, an inconclusive
    one is undecided; a partly reproduced case counts as not holding.

    Examples
    --------
    >>> combine_cases(["reproduced", "reproduced", "inconclusive"]).value
    'partly reproduced'
    >>> combine_cases(["inconclusive", "inconclusive", "reproduced"]).value
    'inconclusive'
    """
    vs = [Verdict(v) for v in verdicts]
    return verdict_from_hits(vs.count(Verdict.REPRODUCED), len(vs),
                             against=vs.count(Verdict.CONTRADICTED),
                             undecided=vs.count(Verdict.INCONCLUSIVE))


def sign_test_p(diffs) -> float:
    """Two-sided exact sign test on the non-zero differences (1.0 when there are none).

    Examples
    --------
    >>> round(sign_test_p([1, 2, 3, 4, 5, 6]), 4)
    0.0312
    """
    from scipy.stats import binomtest

    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d) & (d != 0)]
    if d.size == 0:
        return 1.0
    return float(binomtest(int((d > 0).sum()), int(d.size), 0.5).pvalue)


@dataclass(frozen=True)
class Evidence:
    """A paired comparison over independent units, and the verdict it gives.

    Attributes
    ----------
    verdict : Verdict
    n : int
        Independent units (one difference each).
    effect : float
        Mean difference, positive where the claim holds.
    low, high : float
        95 % Student-t interval of the mean difference (NaN for n < 2).
    p : float
        Two-sided p-value of the test.
    test : str
        ``"t"`` (paired t-test), ``"sign"`` (exact sign test) or ``"wilcoxon"``.
    holds : int
        Units where the claim holds (positive difference).
    min_effect : float
        The least effect that counts (in the differences' unit).
    """

    verdict: Verdict
    n: int
    effect: float
    low: float
    high: float
    p: float
    test: str
    holds: int
    min_effect: float = 0.0

    def text(self, fmt: str = "+.3g", unit: str = "") -> str:
        """``+2.1 % [+0.4, +3.8], 9/10 units, paired t p = 0.02``.

        Examples
        --------
        >>> paired_evidence([1.0, 2.0, 3.0], min_units=3).text(unit=" s")
        '+2 s [-0.484, +4.48], 3/3 units, paired t p = 0.074'
        """
        ci = (f" [{self.low:{fmt}}, {self.high:{fmt}}]" if np.isfinite(self.low) else "")
        name = {"t": "paired t", "sign": "sign test", "wilcoxon": "Wilcoxon"}[self.test]
        return (f"{self.effect:{fmt}}{unit}{ci}, {self.holds}/{self.n} units, "
                f"{name} p = {self.p:.2g}")


def paired_evidence(diffs, *, min_effect: float = 0.0, test: str = "t", alpha: float = ALPHA,
                    min_units: int = MIN_UNITS) -> Evidence:
    """Verdict of one paired comparison, from one difference per independent unit.

    ``diffs`` holds one value per unit of replication (e.g. per seed: the
    mean over F_comm values of A's gain over B, on the same jobs), positive
    where the claim holds. Correlated values (runs sharing a workload) must
    be averaged into their unit first (:func:`per_unit`): the test counts
    units, not runs. The rule, applied mechanically:

    - fewer than 2 units, or a sign test that cannot reach ``alpha`` even if
      every unit agreed: inconclusive;
    - significant (p < ``alpha``) in the claim's direction: reproduced if the
      mean effect reaches ``min_effect``, else not reproduced (too small to be
      the effect the paper reports);
    - significant the other way: contradicted if the mean effect reaches
      ``min_effect`` in that direction, else not reproduced;
    - not significant: not reproduced if the interval excludes every effect
      of ``min_effect`` or more (``min_effect`` > 0) or if there are at least
      ``min_units`` units; inconclusive otherwise (too few to tell).

    Examples
    --------
    >>> paired_evidence([0.02, 0.03, 0.01, 0.04, 0.02, 0.03]).verdict.value
    'reproduced'
    >>> paired_evidence([0.02, -0.01, 0.03]).verdict.value
    'inconclusive'
    >>> paired_evidence([-0.2, -0.3, -0.25, -0.2, -0.3, -0.25]).verdict.value
    'contradicted'
    >>> paired_evidence([0.001, 0.002, 0.001, 0.002, 0.001, 0.002],
    ...                 min_effect=0.01).verdict.value
    'not reproduced'
    """
    from scipy import stats as sps

    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d)]
    n = int(d.size)
    holds = int((d > 0).sum())
    effect = float(d.mean()) if n else math.nan
    if n >= 2 and d.std() > 0:
        half = float(sps.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n))
    elif n >= 2:
        half = 0.0
    else:
        half = math.nan
    low, high = effect - half, effect + half
    if test == "t":
        p = (float(sps.ttest_1samp(d, 0.0).pvalue) if n >= 2 and d.std() > 0
             else (0.0 if n >= 2 and effect != 0 else 1.0))
    elif test == "sign":
        p = sign_test_p(d)
    elif test == "wilcoxon":
        p = (float(sps.wilcoxon(d).pvalue) if n >= 2 and np.any(d != 0) else 1.0)
    else:
        raise ValueError(f"unknown test {test!r}: 't', 'sign' or 'wilcoxon'")
    undecidable = n < 2 or (test == "sign" and 2 * 0.5 ** n > alpha)
    if undecidable:
        verdict = Verdict.INCONCLUSIVE
    elif p < alpha and effect > 0:
        verdict = Verdict.REPRODUCED if effect >= min_effect else Verdict.NOT_REPRODUCED
    elif p < alpha and effect < 0:
        verdict = Verdict.CONTRADICTED if -effect >= min_effect else Verdict.NOT_REPRODUCED
    elif (min_effect > 0 and -min_effect < low and high < min_effect) or n >= min_units:
        verdict = Verdict.NOT_REPRODUCED
    else:
        verdict = Verdict.INCONCLUSIVE
    return Evidence(verdict, n, effect, low, high, p, test, holds, min_effect)


def value_verdict(mean: float, half: float, n: int, published: float, *, tolerance: float,
                  min_units: int = MIN_UNITS, direction: int = 0) -> Verdict:
    """Verdict of "the value is ``published``" from our mean over ``n`` independent units.

    - reproduced: our mean is within ``tolerance`` of the published value
      (a tolerance on the quantity the claim is about, with a stated basis);
    - otherwise, if the published value lies in our confidence interval
      (mean ± ``half``): reproduced when ``n`` >= ``min_units``, inconclusive
      below (with few units the interval is too wide to mean agreement);
    - contradicted: the claim has a sign (``direction`` +1: published > 0 is
      a gain, -1: a loss) and our whole interval lies on the other side of 0;
    - not reproduced otherwise.

    Examples
    --------
    >>> value_verdict(27.0, 2.0, 20, 28.0, tolerance=2.0).value
    'reproduced'
    >>> value_verdict(15.0, 19.0, 3, 28.0, tolerance=2.0).value
    'inconclusive'
    >>> value_verdict(-40.0, 5.0, 20, 28.0, tolerance=2.0, direction=1).value
    'contradicted'
    """
    if abs(mean - published) <= tolerance:
        return Verdict.REPRODUCED
    if np.isfinite(half) and abs(mean - published) <= half:
        return Verdict.REPRODUCED if n >= min_units else Verdict.INCONCLUSIVE
    if direction and np.isfinite(half) and direction * (mean + direction * half) < 0:
        return Verdict.CONTRADICTED
    return Verdict.NOT_REPRODUCED


def per_unit(values, unit: str):
    """Mean of an ``xarray.DataArray`` over every dimension but ``unit``: one value per unit.

    Runs that share a unit (e.g. every F_comm value of one seed's workload)
    are correlated; averaging them first makes the units the sample.

    Examples
    --------
    >>> import xarray as xr
    >>> da = xr.DataArray([[1.0, 3.0], [2.0, 4.0]], dims=("seed", "f_comm"))
    >>> per_unit(da, "seed").values.tolist()
    [2.0, 3.0]
    """
    return values.mean([d for d in values.dims if d != unit])


#: A claim of the paper, counted among the verdicts.
CLAIM = "claim"
#: A consistency check: our code against our own worked example of the
#: paper's text (only a bug could fail it); listed apart, never counted.
CONSISTENCY = "consistency check"


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
    unit : str
        The unit of replication the criterion's statistics run over (seed,
        workload, trace segment, ...); "-" for a deterministic check.
    n : str
        How many independent units (text, e.g. ``"20"`` or ``"10 per load"``).
    kind : str
        :data:`CLAIM` (counted) or :data:`CONSISTENCY`: a check of our code
        against our own worked example, listed apart and not counted.
    key : str
        A stable name of the claim within its paper (for the changes list).
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
    unit: str = ""
    n: str = ""
    kind: str = "claim"
    key: str = ""

    def __post_init__(self):
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        object.__setattr__(self, "n", str(self.n))
        if self.kind not in (CLAIM, CONSISTENCY):
            raise ValueError(f"claim kind {self.kind!r}: {CLAIM!r} or {CONSISTENCY!r}")

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
    >>> [c.verdict.value for c in apply_criteria([fewer_waits], waits=[-1, -3, 2])]
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
                 scale_description: str = "", changes: Sequence[Mapping] = ()) -> str:
    """``paper_figures/CLAIMS.md``: every paper's claims in one table, verdicts counted.

    Claims (kind :data:`CLAIM`) are counted; consistency checks
    (:data:`CONSISTENCY`) are listed in their own section and not counted.

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
    changes : sequence of mappings
        Verdicts changed on purpose (:func:`verdict_changes`): ``paper``,
        ``key``, ``old`` (the verdict before), ``why``; the new verdict is
        this run's, looked up by ``paper`` and ``key``.

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
        counted = df[df["kind"] == CLAIM]
        row = {"paper": links[p["paper"]], "title": p.get("title", "")}
        row.update({v.value: int((counted["verdict"] == v.value).sum()) for v in Verdict})
        counts.append({**row, "total": len(counted),
                       "consistency checks": int((df["kind"] == CONSISTENCY).sum())})
    table = pd.DataFrame(counts, columns=["paper", "title", *(v.value for v in Verdict), "total",
                                          "consistency checks"])
    if len(table) > 1:
        total = table.drop(columns=["paper", "title"]).sum()
        table.loc[len(table)] = {"paper": "all", "title": "", **total.to_dict()}
    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=list(CLAIMS_FILE_COLUMNS))
    changed = _changes_table(claims, changes, scale)
    claims["paper"] = claims["paper"].map(links)
    from .render import render
    return render("simlib", "CLAIMS.md.j2", scale=scale, scale_description=scale_description,
                  verdicts=[v.value for v in Verdict], counts=table,
                  claims=claims[claims["kind"] == CLAIM],
                  checks=claims[claims["kind"] == CONSISTENCY], changes=changed,
                  min_units=MIN_UNITS, alpha=ALPHA)


def _changes_table(claims: pd.DataFrame, changes: Sequence[Mapping], scale: str) -> pd.DataFrame:
    """One row per changed claim of this run: old verdict(s), this run's, and why."""
    rows = []
    for c in changes:
        mine = claims[(claims["paper"] == c["paper"]) & (claims["key"] == c["key"])]
        old = c["old"].get(scale) if isinstance(c["old"], Mapping) else c["old"]
        if mine.empty or old is None:
            continue  # a claim this run (scale, selection) did not judge
        new = ", ".join(f"{r}: {v}" if r else v
                        for r, v in zip(mine["reading"], mine["verdict"]))
        rows.append({"paper": c["paper"], "claim": mine["claim"].iloc[0],
                     "before": old, "now": new, "why": c["why"]})
    return pd.DataFrame(rows, columns=["paper", "claim", "before", "now", "why"])


def verdict_changes(path) -> list[dict]:
    """The list of verdicts changed on purpose (``config/claims_changes.yaml``), checked.

    Each entry: ``paper``, ``key`` (the claim's :attr:`Claim.key`), ``old``
    (the verdict(s) before, as text, or a mapping scale -> text) and ``why``.

    Raises
    ------
    ConfigError
        Naming the file and the entry: a missing or unknown field.
    """
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read verdict changes ({exc})") from None
    entries = data.get("changes", [])
    want = {"paper", "key", "old", "why"}
    for i, e in enumerate(entries):
        if not isinstance(e, Mapping) or set(e) != want:
            got = sorted(e) if isinstance(e, Mapping) else type(e).__name__
            raise ConfigError(f"{path}: changes.{i}: fields {got}, expected {sorted(want)}")
    return [dict(e) for e in entries]


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
