"""Batsim's JSON workloads: read, check, write, and convert to and from SWF.

A Batsim workload (Batsim v4, ``docs/input-workload.rst``) is one JSON
object::

    {"nb_res": 4,
     "jobs": [{"id": 1, "subtime": 0, "walltime": 60, "res": 2, "profile": "delay_10"}],
     "profiles": {"delay_10": {"type": "delay", "delay": 10}}}

Fields, as Batsim v4.2.1 checks them (and as :func:`read_batsim` does)
----------------------------------------------------------------------
``nb_res``
    Positive integer: the machine the workload was made for (``simlib
    simulate`` takes it as the CPU count unless ``--cpus`` is given).
``jobs[i].id``
    A string or an integer, unique. SWF and simlib's jobs tables number
    jobs with integers, so :meth:`BatsimWorkload.to_swf` needs ids that are
    integers or decimal strings (``"17"``); others are an error naming the job.
``jobs[i].subtime``
    Submission time, a number >= 0 (s, absolute).
``jobs[i].walltime``
    Optional: a number > 0, or -1 (or absent) for no limit. Batsim kills a
    job at its walltime; simlib reads it as the requested time (the
    estimate) and kills there (``--overrun kill``). Without one, simlib's
    estimate is the runtime, as for an SWF job without a requested time.
``jobs[i].res``
    Number of resources, an integer >= 0 (a job of 0 is read, and dropped
    by the cleaning rules as an SWF job without a size is).
``jobs[i].profile``
    Name of one of ``profiles``.
``profiles[name].type``
    ``delay`` (field ``delay``, s >= 0: the job runs that long whatever its
    hosts), ``parallel`` (``cpu``: flop per host, ``com``: bytes from host
    row to host column, row-major, ``len(cpu)**2`` numbers; a job using it
    must ask for ``len(cpu)`` resources) or ``parallel_homogeneous`` (``cpu``:
    flop on each host; ``com``: bytes between each pair of distinct hosts,
    none to itself). A job whose profile is of another type is an error
    (unused profiles are not checked). Other fields of jobs and profiles are
    kept in :attr:`BatsimWorkload.extra` and ignored, as Batsim forwards them.

What a profile means to simlib
------------------------------
A ``delay`` job is a rigid job of that runtime: :meth:`BatsimWorkload.to_swf`
gives the SWF job (run time = delay, requested time = walltime, size = res)
that every policy and ``simlib simulate`` run. The two ``parallel`` types
have no runtime of their own: SimGrid decides it from the platform and the
hosts (paper D's model); :meth:`BatsimWorkload.parallel_task` gives the
computation vector and communication matrix, the ``task`` function of
:func:`simlib.backends.simgrid.simulate_simgrid`, and the rate-based
simulator refuses them.

Errors
------
Every malformed file raises :class:`~simlib.errors.TraceFormatError` naming
the file, the line (of the job or profile at fault, or of the JSON syntax
error), the field (``jobs[3].walltime``) and the reason.

Writing
-------
:func:`write_batsim` writes one job per line (diffable), keys in Batsim's
order, integral numbers without a decimal point and others with the
shortest digits that read back to the same float, atomically.
:func:`from_swf` makes a workload of ``delay`` profiles from an SWF one
(one profile per distinct runtime). ``read_batsim(write_batsim(w))`` gives
``w`` back, and ``from_swf(w).to_swf()`` gives back every field the
simulator reads (submit, run and requested time, size, id).

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "w.json")
>>> w = BatsimWorkload(nb_res=4, ids=[1, 2], subtime=[0.0, 5.0], walltime=[60.0, -1.0],
...                    res=[2, 4], profile=["d10", "d10"],
...                    profiles={"d10": {"type": "delay", "delay": 10}})
>>> _ = write_batsim(w, path)
>>> print(open(path).read(), end="")
{
  "nb_res": 4,
  "jobs": [
    {"id": 1, "subtime": 0, "walltime": 60, "res": 2, "profile": "d10"},
    {"id": 2, "subtime": 5, "walltime": -1, "res": 4, "profile": "d10"}
  ],
  "profiles": {
    "d10": {"type": "delay", "delay": 10}
  }
}
>>> swf = read_batsim(path).to_swf()
>>> swf.table["run_time"].tolist(), swf.table["requested_time"].tolist()
([10, 10], [60, -1])
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simlib.errors import TraceFormatError
from simlib.io import write_text
from simlib.table import Table, duplicated
from simlib.workload.swf import MAX_EXACT_TIME, SWF_DTYPES, SWF_FIELDS, Workload

__all__ = ["PROFILE_TYPES", "BatsimWorkload", "from_swf", "is_batsim_workload", "read_batsim",
           "write_batsim"]

#: Profile types simlib reads, with their required fields.
PROFILE_TYPES = {"delay": ("delay",), "parallel": ("cpu", "com"),
                 "parallel_homogeneous": ("cpu", "com")}

#: Keys of a job simlib reads; the rest go to :attr:`BatsimWorkload.extra`.
JOB_KEYS = ("id", "subtime", "walltime", "res", "profile")


def is_batsim_workload(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a Batsim JSON workload (by its suffix, ``.json``).

    Examples
    --------
    >>> is_batsim_workload("w.json"), is_batsim_workload("KTH.swf.gz")
    (True, False)
    """
    return str(path).lower().endswith(".json")


@dataclass
class BatsimWorkload:
    """A Batsim workload: the jobs as columns, the profiles as read.

    Attributes
    ----------
    nb_res : int
    ids : list of (int or str)
        As in the file (Batsim allows both).
    subtime, walltime : numpy.ndarray of float64
        ``walltime`` is -1 where the job has none.
    res : numpy.ndarray of int64
    profile : list of str
        Each job's profile name.
    profiles : dict
        Profile name -> its JSON object.
    extra : dict
        Fields of the file simlib does not read: ``"workload"`` (top-level
        keys) and ``"jobs"`` (job index -> its other keys).
    path : str or None
    """

    nb_res: int
    ids: list
    subtime: Any
    walltime: Any
    res: Any
    profile: list
    profiles: dict
    extra: dict = field(default_factory=dict)
    path: str | None = None

    def __post_init__(self) -> None:
        self.subtime = np.asarray(self.subtime, dtype=np.float64)
        self.walltime = np.asarray(self.walltime, dtype=np.float64)
        self.res = np.asarray(self.res, dtype=np.int64)
        self.ids, self.profile = list(self.ids), list(self.profile)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"BatsimWorkload({len(self)} jobs, nb_res={self.nb_res}, path={self.path!r})"

    def profile_types(self) -> list[str]:
        """The type of each job's profile."""
        return [self.profiles[name]["type"] for name in self.profile]

    # ------------------------------------------------------------ SWF
    def to_swf(self) -> Workload:
        """The SWF workload simlib simulates: one rigid job per ``delay`` job.

        Run time = delay, requested time = walltime (-1: none), requested
        and allocated processors = res; the other SWF fields are -1. Times
        stay integers (SWF's type) when every one is integral, float64
        otherwise (the simulator's time type). The header says
        ``MaxProcs: nb_res`` and where the jobs came from.

        Raises
        ------
        TraceFormatError
            A job whose profile is not ``delay`` (its runtime is SimGrid's
            to decide) or whose id is not an integer.
        """
        where = self.path or "workload"
        ids = np.empty(len(self), dtype=np.int64)
        for i, job_id in enumerate(self.ids):
            number = _integer_id(job_id)
            if number is None:
                raise TraceFormatError(where, job_index_line(self.path, i), f"jobs[{i}].id",
                                       f"job id {job_id!r} is not an integer: SWF and simlib's "
                                       "jobs tables number jobs with integers")
            ids[i] = number
        _refuse_equal_ids(ids, self.ids, self.path)
        delay = np.empty(len(self), dtype=np.float64)
        for i, (name, kind) in enumerate(zip(self.profile, self.profile_types())):
            if kind != "delay":
                raise TraceFormatError(
                    where, job_index_line(self.path, i), f"jobs[{i}].profile",
                    f"profile {name!r} is of type {kind!r}: its runtime depends on the "
                    "platform and the hosts, which SimGrid decides (simlib.backends.simgrid."
                    "simulate_simgrid with BatsimWorkload.parallel_task); the rate-based "
                    "simulator runs delay profiles only")
            delay[i] = float(self.profiles[name]["delay"])
        n = len(self)
        columns = {name: np.full(n, -1, dtype=SWF_DTYPES[name]) for name in SWF_FIELDS}
        columns["job_id"] = ids
        times = {"submit_time": self.subtime, "run_time": delay,
                 "requested_time": np.where(self.walltime > 0, self.walltime, -1.0)}
        for name, values in times.items():
            integral = bool(np.all(values == np.floor(values)))
            columns[name] = values.astype(np.int64) if integral else values
        columns["requested_procs"] = self.res.copy()
        columns["allocated_procs"] = self.res.copy()
        header = [f"; MaxProcs: {self.nb_res}",
                  f"; Note: converted by simlib from the Batsim workload {self.path or '(memory)'}"]
        table = Table(columns)
        # Batsim takes jobs in any order; SWF lists them by submit time (stable).
        order = np.argsort(self.subtime, kind="stable")
        if np.any(order != np.arange(n)):
            table = table.take(order)
        return Workload(table, header=header, path=self.path)

    def check_order(self) -> None:
        """Refuse submit times that go backwards (``--unsorted reject``; Batsim allows them).

        Raises
        ------
        TraceFormatError
            Naming the first job submitted before the job listed above it.
        """
        back = np.flatnonzero(np.diff(self.subtime) < 0)
        if len(back):
            i = int(back[0]) + 1
            raise TraceFormatError(self.path or "workload", job_index_line(self.path, i),
                                   f"jobs[{i}].subtime", f"submit time {self.subtime[i]:g} is "
                                   f"before the previous job's ({self.subtime[i - 1]:g}); "
                                   "--unsorted sort takes the jobs by submit time")

    def check_whole_seconds(self) -> None:
        """Refuse times that SWF, whose times are whole seconds, cannot hold.

        Raises
        ------
        TraceFormatError
            Naming the first job (or its delay profile) with a fractional time.
        """
        where = self.path or "workload"
        for name, values in (("subtime", self.subtime), ("walltime", self.walltime)):
            bad = np.flatnonzero(values != np.floor(values))
            if len(bad):
                i = int(bad[0])
                raise TraceFormatError(where, job_index_line(self.path, i), f"jobs[{i}].{name}",
                                       f"{float(values[i])!r} s is not a whole number of seconds, "
                                       "which SWF times are")
        for name in dict.fromkeys(self.profile):
            prof = self.profiles[name]
            if prof["type"] == "delay" and float(prof["delay"]) != math.floor(prof["delay"]):
                raise TraceFormatError(where, None, f"profiles.{name}.delay",
                                       f"{prof['delay']!r} s is not a whole number of seconds, "
                                       "which SWF times are")

    # ------------------------------------------------------------ SimGrid
    def parallel_task(self, index: int) -> tuple[list[float], list[float]]:
        """Computation vector and communication matrix (row-major) of job ``index``.

        As Batsim builds them: ``parallel`` as written; ``parallel_homogeneous``
        ``cpu`` flop on each of the job's ``res`` hosts and ``com`` bytes from
        each host to each other one (0 to itself).

        Examples
        --------
        >>> w = BatsimWorkload(nb_res=2, ids=[1], subtime=[0], walltime=[-1], res=[2],
        ...                    profile=["p"], profiles={"p": {"type": "parallel_homogeneous",
        ...                                                   "cpu": 5, "com": 3}})
        >>> w.parallel_task(0)
        ([5.0, 5.0], [0.0, 3.0, 3.0, 0.0])
        """
        prof = self.profiles[self.profile[index]]
        n = int(self.res[index])
        if prof["type"] == "parallel":
            return [float(x) for x in prof["cpu"]], [float(x) for x in prof["com"]]
        if prof["type"] == "parallel_homogeneous":
            com = float(prof["com"])
            return ([float(prof["cpu"])] * n,
                    [0.0 if r == c else com for r in range(n) for c in range(n)])
        raise ValueError(f"job {self.ids[index]!r}: profile {self.profile[index]!r} is of type "
                         f"{prof['type']!r}, not a parallel task")


def _refuse_equal_ids(numbers: np.ndarray, ids: list, path: str | None) -> None:
    """Two ids read as the same integer (``"042"`` and ``"42"``) are an error naming both."""
    again = np.flatnonzero(duplicated(numbers))
    if len(again):
        second = int(again[0])
        first = int(np.flatnonzero(numbers == numbers[second])[0])
        raise TraceFormatError(path or "workload", job_index_line(path, second),
                               f"jobs[{second}].id", f"job id {ids[second]!r} is the integer of "
                               f"jobs[{first}].id {ids[first]!r}: SWF and simlib's jobs tables "
                               "need distinct integer ids")


def _integer_id(job_id) -> int | None:
    """The job id as an integer, or None (``"a!1"``, ``"1.5"``)."""
    if isinstance(job_id, bool):
        return None
    if isinstance(job_id, int):
        return job_id
    text = str(job_id).strip()
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isdigit() and body.isascii() else None


# ------------------------------------------------------------------ reading
def read_batsim(path: str | os.PathLike) -> BatsimWorkload:
    """Read and check a Batsim JSON workload.

    Raises
    ------
    TraceFormatError
        File, line, field and reason: JSON that does not parse, a missing or
        mistyped field, a duplicated job id, an unknown profile name, a job
        whose profile type simlib cannot run, a ``parallel`` profile whose
        sizes do not match, a time beyond 2**53 s.
    """
    where = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(where, None, None, f"cannot read the file: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceFormatError(where, exc.lineno, None,
                               f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    return _from_document(doc, where, text)


def _from_document(doc, where: str, text: str) -> BatsimWorkload:
    def fail(field_name: str | None, reason: str, line: int | None = None):
        raise TraceFormatError(where, line, field_name, reason)

    _check_top(doc, text, fail)
    jobs, profiles = doc["jobs"], doc["profiles"]
    n = len(jobs)
    ids, names = [None] * n, [None] * n
    subtime, walltime = np.empty(n), np.full(n, -1.0)
    res = np.empty(n, dtype=np.int64)
    seen: dict = {}
    extra_jobs: dict[int, dict] = {}
    for i, job in enumerate(jobs):
        def bad(key, reason, i=i):
            fail(f"jobs[{i}].{key}" if key else f"jobs[{i}]", reason, job_index_line(where, i, text))

        ids[i], subtime[i], walltime[i], res[i], names[i] = _read_job(job, profiles, bad)
        if str(ids[i]) in seen:
            bad("id", f"job id {ids[i]!r} is used twice (first by jobs[{seen[str(ids[i])]}])")
        seen[str(ids[i])] = i
        others = {k: v for k, v in job.items() if k not in JOB_KEYS}
        if others:
            extra_jobs[i] = others
    checked: set[str] = set()
    for i, name in enumerate(names):
        if name not in checked:
            _check_profile(name, profiles[name], where, text)
            checked.add(name)
        prof = profiles[name]
        if prof["type"] == "parallel" and len(prof["cpu"]) != res[i]:
            fail(f"jobs[{i}].res", f"asks for {res[i]} resources but its profile {name!r} "
                 f"is a parallel task on {len(prof['cpu'])} hosts", job_index_line(where, i, text))
    extra = {"workload": {k: v for k, v in doc.items() if k not in ("nb_res", "jobs", "profiles")},
             "jobs": extra_jobs}
    return BatsimWorkload(nb_res=int(doc["nb_res"]), ids=ids, subtime=subtime,
                          walltime=walltime, res=res, profile=names, profiles=profiles,
                          extra=extra, path=where)


def _check_top(doc, text: str, fail) -> None:
    """The top-level object: ``nb_res``, ``jobs`` and ``profiles`` there and of their types."""
    if not isinstance(doc, dict):
        fail(None, f"a Batsim workload is a JSON object, not {_kind(doc)}", 1)
    for key, kind in (("nb_res", "a positive integer"), ("jobs", "a list of jobs"),
                      ("profiles", "an object of profiles")):
        if key not in doc:
            fail(key, f"missing: a Batsim workload needs {kind}", 1)
    nb_res = doc["nb_res"]
    if not _is_int(nb_res) or nb_res < 1:
        fail("nb_res", f"must be a positive integer, not {nb_res!r}", _key_line(text, "nb_res"))
    if not isinstance(doc["jobs"], list):
        fail("jobs", f"must be a list of jobs, not {_kind(doc['jobs'])}", _key_line(text, "jobs"))
    if not isinstance(doc["profiles"], dict):
        fail("profiles", f"must be an object of profiles, not {_kind(doc['profiles'])}",
             _key_line(text, "profiles"))


def _read_job(job, profiles: dict, bad) -> tuple:
    """``(id, subtime, walltime, res, profile)`` of one job, checked as Batsim checks them."""
    if not isinstance(job, dict):
        bad(None, f"a job is a JSON object, not {_kind(job)}")
    for key in ("id", "subtime", "res", "profile"):
        if key not in job:
            bad(key, "missing (a job needs id, subtime, res and profile)")
    job_id = job["id"]
    if isinstance(job_id, bool) or not isinstance(job_id, (str, int)):
        bad("id", f"must be a string or an integer, not {job_id!r}")
    st = job["subtime"]
    if not _is_number(st) or st < 0 or st > MAX_EXACT_TIME:
        bad("subtime", f"must be a number of seconds >= 0 (and <= 2**53), not {st!r}")
    wt = job.get("walltime", -1)
    if not _is_number(wt) or not (wt == -1 or 0 < wt <= MAX_EXACT_TIME):
        bad("walltime", f"must be a number of seconds > 0, or -1 for none, not {wt!r}")
    r = job["res"]
    if not _is_int(r) or r < 0:
        bad("res", f"must be an integer >= 0, not {r!r}")
    name = job["profile"]
    if not isinstance(name, str):
        bad("profile", f"must be a profile name (a string), not {name!r}")
    if name not in profiles:
        bad("profile", f"no profile named {name!r} in 'profiles'")
    return job_id, st, wt, r, name


def _check_profile(name: str, prof, where: str, text: str) -> None:
    line = _key_line(text, name)

    def fail(key, reason):
        raise TraceFormatError(where, line, f"profiles.{name}.{key}" if key else
                               f"profiles.{name}", reason)

    if not isinstance(prof, dict):
        fail(None, f"a profile is a JSON object, not {_kind(prof)}")
    kind = prof.get("type")
    if kind not in PROFILE_TYPES:
        fail("type", f"profile type {kind!r} is not one simlib reads "
                     f"({', '.join(PROFILE_TYPES)}); a job uses it")
    for key in PROFILE_TYPES[kind]:
        if key not in prof:
            fail(key, f"missing (a {kind} profile needs {' and '.join(PROFILE_TYPES[kind])})")
    if kind == "delay":
        d = prof["delay"]
        if not _is_number(d) or d < 0 or d > MAX_EXACT_TIME:
            fail("delay", f"must be a number of seconds >= 0, not {d!r}")
    elif kind == "parallel_homogeneous":
        for key in ("cpu", "com"):
            if not _is_number(prof[key]) or prof[key] < 0:
                fail(key, f"must be a number >= 0, not {prof[key]!r}")
    else:
        cpu, com = prof["cpu"], prof["com"]
        for key, values in (("cpu", cpu), ("com", com)):
            if not isinstance(values, list) or not all(_is_number(x) and x >= 0 for x in values):
                fail(key, "must be a list of numbers >= 0")
        if not cpu:
            fail("cpu", "is empty: a parallel task runs on at least one host")
        if len(com) != len(cpu) ** 2:
            fail("com", f"has {len(com)} numbers; a parallel task on {len(cpu)} hosts needs "
                        f"{len(cpu)}x{len(cpu)} = {len(cpu) ** 2} (row-major)")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _kind(x) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(x), "a number")


def _key_line(text: str, key: str) -> int | None:
    """1-based line of the first ``"key":`` in ``text`` (for error messages)."""
    at = text.find(json.dumps(key) + ":")
    if at < 0:
        at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def job_index_line(path, index: int, text: str | None = None) -> int | None:
    """1-based line where job ``index`` (0-based, file order) of the ``jobs`` list
    starts, for error messages; ``text``: the file's, when already read."""
    if text is None:
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            return None
    offset = _element_offset(text, "jobs", index)
    return None if offset is None else text.count("\n", 0, offset) + 1


def _element_offset(text: str, key: str, index: int) -> int | None:
    """Offset of element ``index`` of the top-level list ``key``, or None."""
    decoder = json.JSONDecoder()
    ws = " \t\r\n"
    pos = 0
    # Walk the top-level object's members so a "jobs" inside a profile is not taken.
    pos = _skip(text, pos, ws)
    if text[pos:pos + 1] != "{":
        return None
    pos += 1
    while True:
        pos = _skip(text, pos, ws + ",")
        if text[pos:pos + 1] != '"':
            return None
        name, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos, ws)
        if text[pos:pos + 1] != ":":
            return None
        pos = _skip(text, pos + 1, ws)
        if name != key:
            try:
                _, pos = decoder.raw_decode(text, pos)
            except ValueError:
                return None
            continue
        if text[pos:pos + 1] != "[":
            return None
        pos += 1
        for _ in range(index):
            pos = _skip(text, pos, ws + ",")
            try:
                _, pos = decoder.raw_decode(text, pos)
            except ValueError:
                return None
        return _skip(text, pos, ws + ",")


def _skip(text: str, pos: int, chars: str) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


# ------------------------------------------------------------------ writing
def _num(x) -> str:
    """A JSON number: integral values without a decimal point, others shortest.

    Examples
    --------
    >>> _num(3.0), _num(0.1), _num(np.int64(7)), _num(1e20)
    ('3', '0.1', '7', '1e+20')
    """
    x = float(x)
    if x == math.floor(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(x)


def _profile_json(prof: dict) -> str:
    """One profile as compact JSON, ``type`` first, numbers as :func:`_num` writes them."""
    def value(v):
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (int, float, np.integer, np.floating)):
            return _num(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v, sort_keys=True)

    keys = ["type"] + [k for k in prof if k != "type"]
    return "{" + ", ".join(f"{json.dumps(k)}: {value(prof[k])}" for k in keys) + "}"


def write_batsim(workload: BatsimWorkload, path: str | os.PathLike):
    """Write ``workload`` as a Batsim JSON workload, atomically; returns the path.

    Raises
    ------
    ValueError
        A submit time or walltime that is not a finite number (JSON has none).
    """
    for name in ("subtime", "walltime"):
        values = getattr(workload, name)
        if len(values) and not np.all(np.isfinite(values)):
            i = int(np.flatnonzero(~np.isfinite(values))[0])
            raise ValueError(f"job {workload.ids[i]!r}: {name} {float(values[i])!r} is not a finite "
                             "number, which JSON cannot hold")
    extra_jobs = workload.extra.get("jobs", {})
    lines = []
    for i, job_id in enumerate(workload.ids):
        item = (f'{{"id": {json.dumps(job_id)}, "subtime": {_num(workload.subtime[i])}, '
                f'"walltime": {_num(workload.walltime[i])}, "res": {int(workload.res[i])}, '
                f'"profile": {json.dumps(workload.profile[i])}')
        for k, v in extra_jobs.get(i, {}).items():
            item += f", {json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
        lines.append("    " + item + "}")
    profiles = [f"    {json.dumps(name)}: {_profile_json(prof)}"
                for name, prof in workload.profiles.items()]
    top = "".join(f'  {json.dumps(k)}: {json.dumps(v, sort_keys=True)},\n'
                  for k, v in workload.extra.get("workload", {}).items())
    text = (f'{{\n  "nb_res": {int(workload.nb_res)},\n{top}  "jobs": [\n' + ",\n".join(lines)
            + ("\n" if lines else "") + '  ],\n  "profiles": {\n' + ",\n".join(profiles)
            + ("\n" if profiles else "") + "  }\n}\n")
    return write_text(path, text)


def from_swf(workload: Workload, nb_res: int, *, fixed_width_ids: bool = True) -> BatsimWorkload:
    """The Batsim workload of an SWF one: ``delay`` profiles, one per distinct runtime.

    Each job keeps its id, submit time (subtime), requested time (walltime;
    -1 when missing) and size (res: requested processors, else allocated, as
    the simulator reads them); its profile is ``delay_<runtime>``. Clean the
    workload first (:func:`simlib.workload.prepare.clean`): a job without a
    runtime or a size cannot be written.

    With ``fixed_width_ids`` (the default) ids are strings of one width,
    zero-padded (``"0042"``): Batsim v4.2.1 orders jobs submitted at the same
    time by their id *as a string* (``"10"`` before ``"9"``), and with one
    width that is the numeric order, which is simlib's (file order, and SWF
    files number jobs in submission order). :meth:`BatsimWorkload.to_swf`
    reads them back as integers.

    Raises
    ------
    TraceFormatError
        A job without a runtime (-1), without a size, or wider than ``nb_res``.

    Examples
    --------
    >>> from simlib.workload.swf import SWF_FIELDS, Workload
    >>> import pandas as pd
    >>> rows = [[7, 3, -1, 30, 2, -1, -1, 2, 60] + [-1] * 9]
    >>> b = from_swf(Workload(pd.DataFrame(rows, columns=SWF_FIELDS)), nb_res=4)
    >>> b.ids, b.profile, b.profiles
    (['7'], ['delay_30'], {'delay_30': {'type': 'delay', 'delay': 30}})
    """
    t = workload.table
    run = np.asarray(t["run_time"], dtype=np.float64)
    if len(run) and run.min() < 0:
        i = int(np.flatnonzero(run < 0)[0])
        raise TraceFormatError(workload.path or "workload", None, "run_time",
                               f"job {int(t['job_id'][i])} (row {i}) has no runtime: a Batsim "
                               "delay profile needs one (clean the workload first)")
    requested = np.asarray(t["requested_procs"], dtype=np.int64)
    res = np.where(requested > 0, requested, np.asarray(t["allocated_procs"], dtype=np.int64))
    for bad, why in ((res <= 0, "has no size (requested and allocated processors -1)"),
                     (res > nb_res, f"asks for more than the {nb_res} resources")):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise TraceFormatError(workload.path or "workload", None, "requested_procs",
                                   f"job {int(t['job_id'][i])} (row {i}) {why}: a Batsim job "
                                   "cannot be written (clean the workload first)")
    req = np.asarray(t["requested_time"], dtype=np.float64)
    profiles: dict[str, dict] = {}
    names = []
    for r in run:
        name = f"delay_{_num(r)}"
        if name not in profiles:
            profiles[name] = {"type": "delay", "delay": int(r) if r == int(r) else float(r)}
        names.append(name)
    ids = [int(x) for x in t["job_id"]]
    if fixed_width_ids and ids:
        width = max(len(str(x)) for x in ids)
        ids = [str(x).zfill(width) for x in ids]
    return BatsimWorkload(nb_res=int(nb_res), ids=ids,
                          subtime=np.asarray(t["submit_time"], dtype=np.float64),
                          walltime=np.where(req > 0, req, -1.0), res=res,
                          profile=names, profiles=profiles, path=workload.path)



def job_line(path: str | os.PathLike, job_id: int) -> int | None:
    """1-based line where the job of integer id ``job_id`` starts in a Batsim workload.

    For error messages about a job read with :func:`read_batsim` (None when
    the file no longer has it).
    """
    try:
        w = read_batsim(path)
    except TraceFormatError:
        return None
    for i, x in enumerate(w.ids):
        if _integer_id(x) == job_id:
            return job_index_line(str(path), i)
    return None

