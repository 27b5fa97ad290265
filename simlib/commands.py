"""Single runs from a shell: ``simlib simulate``, ``simlib policies``, ``simlib generate``.

The way researchers use Batsim + pybatsim or AccaSim from a shell::

    simlib simulate trace.swf.gz --policy easy --cpus 128 --load 0.8 -o jobs.csv --gantt g.png
    simlib policies [--json]
    simlib generate lublin --jobs 5000 --load 0.7 --cpus 128 --seed 1 -o w.swf.gz

``simulate`` writes the per-job table in Batsim's ``jobs.csv`` format (see
:func:`simlib.runner.write_jobs_csv`) and prints a one-screen summary;
``policies`` lists the registered policies with their paper and parameters;
``generate`` writes a Lublin–Feitelson workload as SWF.

Errors in the user's input (a malformed trace, a bad option, an unknown
policy or parameter, an unwritable output) are one line on stderr,
``simlib <command>: <file>:<line>: <reason>`` where a file and line apply,
and exit status 2. Outputs are checked for writability before any work and
replaced atomically, so a failed run leaves no partial file.

Registered in :data:`simlib.cli.SUBCOMMAND_PROVIDERS` by :func:`register`.
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import shutil
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from simlib.cli import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK
from simlib.errors import ConfigError, SimlibError

if TYPE_CHECKING:  # pragma: no cover
    from simlib.policies.base import Policy

__all__ = ["register", "parse_param", "parse_params", "positive_int", "ProgressBar",
           "policy_table", "load_policy_module"]


def load_policy_module(spec: str) -> list[str]:
    """Import a user's policy module (:func:`simlib.policies.modules.load_policy_module`).

    Imported when first used: a run without ``--policy-module`` loads
    nothing of the policy package beyond its own policy.
    """
    from simlib.policies.modules import load_policy_module as load
    return load(spec)


#: A progress bar appears only once a run has lasted this long (seconds).
PROGRESS_DELAY = 2.0


# --------------------------------------------------------------------------
# option values
# --------------------------------------------------------------------------
def positive_int(text: str, option: str) -> int:
    """``text`` as an integer >= 1, else a ConfigError naming ``option``.

    Examples
    --------
    >>> positive_int("64", "--cpus")
    64
    >>> positive_int("64.7", "--cpus")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: --cpus must be a positive integer, got '64.7'
    """
    try:
        value = int(str(text).strip(), 10)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"{option} must be a positive integer, got {text!r}")
    return value


def _positive_float(text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{option} must be a number > 0, got {text!r}")
    return value


def parse_param(text: str):
    """``"name=value"`` -> ``(name, value)``, the value read as a YAML scalar.

    Examples
    --------
    >>> parse_param("cs=7"), parse_param("order=oldest"), parse_param("ov_max=0.5")
    (('cs', 7), ('order', 'oldest'), ('ov_max', 0.5))
    >>> parse_param("expand_started_shrunk=true"), parse_param("ecc_max_per_job=null")
    (('expand_started_shrunk', True), ('ecc_max_per_job', None))
    """
    import yaml

    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"--param {text!r}: expected NAME=VALUE, e.g. cs=7")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError:
        raise ConfigError(f"--param {text!r}: {raw!r} is not a YAML scalar") from None
    if isinstance(value, (dict, list)) or not isinstance(value, (int, float, bool, str, type(None))):
        raise ConfigError(f"--param {text!r}: the value must be a number, true/false, null "
                          "or a string")
    return name, value


def parse_params(texts, policy: str) -> dict:
    """``--param`` values -> keyword parameters of ``policy``, checked against its defaults.

    Examples
    --------
    >>> parse_params(["cs=3"], "delayed_los")
    {'cs': 3}
    >>> parse_params(["cs=3"], "easy")
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: --param cs: policy 'easy' has no parameter 'cs'; it accepts reading
    """
    from simlib.policies import POLICIES

    if policy not in POLICIES:
        raise ConfigError(unknown_policy(policy, POLICIES))
    accepted = POLICIES[policy].defaults
    params: dict = {}
    for text in texts or ():
        name, value = parse_param(text)
        if name not in accepted:
            have = ", ".join(accepted) if accepted else "none"
            raise ConfigError(f"--param {name}: policy {policy!r} has no parameter {name!r}; "
                              f"it accepts {have}")
        if name in params:
            raise ConfigError(f"--param {name} given twice")
        params[name] = value
    return params


def unknown_policy(name: str, known) -> str:
    """The message for an unknown ``--policy``: close names, and where user policies come from.

    Examples
    --------
    >>> message = unknown_policy("eazy", ["easy", "easy_d", "easy_e", "fcfs"])
    >>> for part in message.split("; "):  # doctest: +ELLIPSIS
    ...     print(part)
    --policy 'eazy': unknown policy
    did you mean easy, easy_e or easy_d? Registered: easy, easy_d, easy_e, fcfs (see simlib policies)
    a policy of your own needs --policy-module MODULE (a dotted module name or a .py file) to ...
    """
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    words = ", ".join(close[:-1]) + " or " + close[-1] if len(close) > 1 else "".join(close)
    maybe = f"did you mean {words}? " if close else ""
    return (f"--policy {name!r}: unknown policy; {maybe}"
            f"{'Registered' if maybe else 'registered'}: {', '.join(sorted(known))} "
            "(see simlib policies); a policy of your own needs --policy-module MODULE "
            "(a dotted module name or a .py file) to register it first")


def _check_output(path: str, option: str, suffixes: tuple[str, ...] = ()) -> None:
    """Fail before any work when ``path`` cannot be written.

    A symbolic link is written through (:func:`simlib.io.atomic_path`
    replaces the file it points to), so the directory that must exist and
    be writable is its target's.
    """
    p = Path(path)
    if suffixes and not any(p.name.lower().endswith(s) for s in suffixes):
        raise ConfigError(f"{option} {path}: the name must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise ConfigError(f"{path}: is a directory ({option} needs a file name)")
    link = ""
    if p.is_symlink():
        target = Path(os.path.realpath(p))
        link, p = f", a symbolic link to {target}", target
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ConfigError(f"{path}: directory {parent} does not exist ({option}{link})")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{path}: directory {parent} is not writable ({option}{link})")


# --------------------------------------------------------------------------
# progress bar
# --------------------------------------------------------------------------
class ProgressBar:
    """A one-line progress bar on a terminal, for ``Simulator(progress=...)``.

    Draws nothing during the first ``delay`` seconds (short runs stay
    silent) and at most every 0.2 s after; :meth:`close` clears the line.

    Parameters
    ----------
    stream : file
        Where to draw (a terminal: stderr).
    delay : float
        Seconds before the bar first appears.
    clock : callable
        Monotonic time source (a parameter for tests).

    Examples
    --------
    >>> import io
    >>> ticks = iter([0.0, 3.0, 3.5])
    >>> out = io.StringIO()
    >>> bar = ProgressBar(out, clock=lambda: next(ticks))
    >>> bar(50, 100, 7200.0)
    >>> "50%" in out.getvalue() and "50/100 jobs" in out.getvalue()
    True
    """

    width = 30

    def __init__(self, stream, *, delay: float = PROGRESS_DELAY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.delay = delay
        self.clock = clock
        self.start = clock()
        self.last = -math.inf
        self.shown = False

    def __call__(self, done: int, total: int, now: float) -> None:
        t = self.clock()
        if t - self.start < self.delay or t - self.last < 0.2:
            return
        self.last = t
        frac = done / total if total else 1.0
        fill = int(round(frac * self.width))
        bar = "#" * fill + "." * (self.width - fill)
        self.stream.write(f"\r  simulating [{bar}] {100 * frac:3.0f}%  {done}/{total} jobs  "
                          f"simulated time {now / 86400:.1f} d  {t - self.start:.0f} s ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Erase the bar, if it was drawn."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


# --------------------------------------------------------------------------
# error boundary
# --------------------------------------------------------------------------
def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())  # one line, whatever the message


def _guarded(command: str, run: Callable[[argparse.Namespace], int]):
    """``run`` with user errors turned into one line on stderr and exit status 2."""
    def func(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except KeyboardInterrupt:
            print(f"simlib {command}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except (SimlibError, OSError) as exc:
            print(f"simlib {command}: {_reason(exc)}", file=sys.stderr)
            return EXIT_ERROR
    func.__doc__ = run.__doc__
    return func


def _one_line_usage_errors(parser: argparse.ArgumentParser) -> None:
    """Make argparse errors of ``parser`` one line too (instead of usage + error)."""
    def error(message: str):
        parser.exit(EXIT_ERROR, f"{parser.prog}: {message} (see {parser.prog} --help)\n")
    parser.error = error


# --------------------------------------------------------------------------
# simlib simulate
# --------------------------------------------------------------------------
def register_simulate(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib simulate TRACE --policy P [--param k=v ...] --cpus N ...``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_simulate(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["simulate", "t.swf", "--param", "cs=3", "--load", "0.8"])
    >>> a.policy, a.params, a.load
    ('easy', ['cs=3'], '0.8')
    """
    p = subparsers.add_parser(
        "simulate",
        help="simulate one trace under one policy; write the Batsim jobs table",
        description=(
            "Simulate the jobs of an SWF trace (plain or .gz) under one scheduling policy on a "
            "machine of N CPUs, print a summary (jobs, mean wait, mean bounded slowdown with "
            "tau = 10 s, utilization, makespan, speed) and optionally write the per-job table "
            "in Batsim's jobs.csv format (readable by evalys) and a Gantt chart. "
            "Exit 0 on success, 2 on bad input (one line on stderr, no output file written)."),
    )
    p.add_argument("trace", metavar="TRACE.swf[.gz]|W.json",
                   help="workload in the Standard Workload Format, or a Batsim JSON workload "
                        "(.json; delay profiles: simlib.workload.batsim)")
    p.add_argument("--policy", default="easy",
                   help="registered policy name (default easy; list: simlib policies)")
    p.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=VALUE",
                   help="policy parameter, value read as YAML (cs=7, order=oldest, "
                        "expand_started_shrunk=true); repeatable")
    p.add_argument("--cpus", metavar="N",
                   help="CPUs of the machine (default: MaxProcs, else MaxNodes, of the SWF header; "
                        "nb_res of a Batsim workload)")
    p.add_argument("--overrun", choices=("kill", "extend"), default="kill",
                   help="a job running past its requested time is killed then (default) or "
                        "extended (the default cleaning already clips runtimes to their "
                        "request: use with --no-clean)")
    p.add_argument("--passes", choices=("per_timestamp", "per_event"), default="per_timestamp",
                   help="when the policy schedules: once per timestamp, after every completion "
                        "and submission of that time (default), or after each event alone, "
                        "pybatsim's way (its schedulers run a pass after each event Batsim "
                        "sends: the submissions of a time one by one, then its completions in "
                        "launch order); per_event reproduces Batsim + pybatsim schedules and "
                        "always runs the engine's Python loop")
    p.add_argument("--load", metavar="L",
                   help="first rescale inter-arrival times to offered load L "
                        "(sum size*runtime / (span*CPUs), span = last - first submit)")
    p.add_argument("--no-clean", dest="clean", action="store_false",
                   help="simulate the file as it is; by default the pipeline's cleaning rules "
                        "are applied first (drop jobs without runtime or size or wider than the "
                        "machine, estimate = runtime when missing, runtime clipped to the "
                        "request; simlib.workload.prepare) and the summary says what they did")
    p.add_argument("--unsorted", choices=("sort", "reject"), default="sort",
                   help="submit times going backwards: sort the jobs (stable, default) or "
                        "reject the file")
    p.add_argument("-o", "--output", metavar="jobs.csv", help="write the per-job table here")
    p.add_argument("--gantt", metavar="out.png", help="draw the schedule (.png or .svg)")
    p.add_argument("--gantt-jobs", metavar="N", default=None,
                   help="jobs drawn at most in the Gantt chart, first by start time "
                        "(default 5000)")
    p.add_argument("--policy-module", action="append", default=[], metavar="MODULE",
                   help="import MODULE first, so the policies it registers can be used: a "
                        "dotted module name (looked up in the current directory, then on "
                        "PYTHONPATH) or the path of a .py file; repeatable "
                        "(docs/writing_a_policy.md)")
    p.add_argument("--debug", action="store_true",
                   help="check the engine's invariants after every round (slow: runs the "
                        "engine's loop, never a compiled one); for testing a policy")
    _one_line_usage_errors(p)
    p.set_defaults(func=_guarded("simulate", _run_simulate))


def _run_simulate(args: argparse.Namespace) -> int:
    """Body of ``simlib simulate`` (user errors raise; see :func:`_guarded`).

    Runs with the cyclic garbage collector paused, as the simulation itself
    does (:func:`simlib.engine.simulator.gc_paused`): one run makes
    long-lived objects and no cycles to speak of, so the collector's passes
    over them, and over the modules pandas has just imported, only cost
    time (~0.1 s of a 1 s run of SDSC-SP2). Its state is restored after.
    """
    from .engine.simulator import gc_paused
    with gc_paused():
        return _simulate(args)


@dataclass
class _Request:
    """What ``simlib simulate`` was asked, checked before any work."""

    policy: "Policy"
    params: dict
    cpus: int | None  # None: the SWF header's
    load: float | None  # offered load to rescale to
    gantt_jobs: int | None


#: Policies whose jobs need features an SWF trace does not carry (paper Z's
#: per-job slowdowns): module -> class, what they read, how to get jobs with
#: them. Subclasses (a --policy-module's too) need the same.
_FEATURE_POLICIES = (
    ("simlib.policies.glomarc_ts", "GLomarcTS",
     "self slowdowns sl_scr, sl_sno and coscheduling slowdowns sl_cos",
     "cos=simlib.studies.zeng.slowdowns.CoschedulingSlowdowns(TABLE4, seed)"),
    ("simlib.policies.scojo_pect", "ScojoPECT", "self slowdowns sl_scr, sl_sno (ppn optional)",
     ""),
)


def check_swf_features(policy: "Policy") -> None:
    """Refuse, before any work, a policy that needs per-job features an SWF trace lacks.

    Raises
    ------
    ConfigError
        One line: the features missing and how to give jobs that have them
        (from Python: a paper Z workload table through
        :func:`simlib.studies.zeng.runs.run`, or ``Job.features``).

    Examples
    --------
    >>> from simlib.policies import make_policy
    >>> check_swf_features(make_policy("easy"))
    >>> check_swf_features(make_policy("scojo_pect"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: --policy scojo_pect needs per-job features an SWF trace does not have: ...
    """
    for module, cls, features, extra in _FEATURE_POLICIES:
        # A policy of that family was made: its module is imported already.
        mod = sys.modules.get(module)
        if mod is None or not isinstance(policy, getattr(mod, cls)):
            continue
        call = ", ".join(x for x in ("frame", f"policy={policy.name!r}", extra) if x)
        raise ConfigError(
            f"--policy {policy.name} needs per-job features an SWF trace does not have: "
            f"{features} (paper Z); simulate from Python on jobs that have them, e.g. a paper Z "
            f"workload table (simlib.studies.zeng.workloads.generate or read_workload) through "
            f"simlib.studies.zeng.runs.run({call}), or set Job.features yourself")


def _checked_request(args: argparse.Namespace) -> _Request:
    """The policy made and every option and output checked, so that bad input fails at once."""
    for module in args.policy_module:
        load_policy_module(module)
    params = parse_params(args.params, args.policy)
    from simlib.policies import make_policy

    policy = make_policy(args.policy, **params)  # values are checked here, before any work
    check_swf_features(policy)
    cpus = positive_int(args.cpus, "--cpus") if args.cpus is not None else None
    load = _positive_float(args.load, "--load") if args.load is not None else None
    gantt_jobs = positive_int(args.gantt_jobs, "--gantt-jobs") if args.gantt_jobs else None
    if args.output:
        _check_output(args.output, "-o")
    if args.gantt:
        _check_output(args.gantt, "--gantt", (".png", ".svg"))
    if args.output and args.gantt and Path(args.output).resolve() == Path(args.gantt).resolve():
        raise ConfigError(f"-o and --gantt name the same file {args.output}")
    return _Request(policy, params, cpus, load, gantt_jobs)


def _prepared_workload(args: argparse.Namespace, cpus: int | None, load: float | None):
    """The trace read, cleaned and rescaled as asked.

    Returns ``(workload, cpus, name, notes)``: the machine's CPUs (from the
    header when ``cpus`` is None), the workload's name in the outputs and
    the summary rows saying what was done to the trace.
    """
    from simlib.workload.prepare import clean, offered_load, rescale_to_load
    from simlib.workload.swf import max_procs

    workload = read_workload(args.trace, unsorted=args.unsorted)
    if workload.table.empty:
        raise ConfigError(f"{args.trace}: the trace has no jobs")
    if cpus is None:
        cpus = max_procs(workload)
        if cpus is None:
            raise ConfigError(f"{args.trace}: no --cpus given and the header has no MaxProcs "
                              "or MaxNodes; give --cpus N")
    notes = []
    if args.clean:
        # Archive logs keep cancelled jobs (no runtime) and other records a
        # simulator cannot run: the pipeline's own rules, stated in the summary.
        workload, counts = clean(workload, cpus)
        if counts["jobs_out"] == 0:
            raise ConfigError(f"{args.trace}: no job is left after cleaning "
                              f"({_cleaning_summary(counts)})")
        notes.append(("cleaning", _cleaning_summary(counts)))
    name = Path(args.trace).name
    if load is not None:
        before = offered_load(workload, cpus)
        # As the pipeline's traces rule: one factor, submit times rounded to seconds.
        workload, factor = rescale_to_load(workload, cpus, load, round_to_seconds=True)
        notes.append(("offered load", f"{offered_load(workload, cpus):.4g} (target {load:g}; "
                                      f"was {before:.4g}, inter-arrival times x {factor:.4g})"))
        name = f"{name}@load{load:g}"
    return workload, cpus, name, notes


def read_workload(path: str, *, unsorted: str = "sort"):
    """An SWF trace, or a Batsim JSON workload (``.json``) as its SWF jobs.

    A Batsim workload's jobs keep their file order (Batsim does not ask for
    sorted submit times); the simulator takes them by submit time, stably.
    """
    from simlib.workload.batsim import is_batsim_workload, read_batsim
    from simlib.workload.swf import read_swf

    if is_batsim_workload(path):
        workload = read_batsim(path)
        if unsorted == "reject":
            workload.check_order()
        return workload.to_swf()
    return read_swf(path, unsorted=unsorted)


def workload_job_line(path: str, job_id: int) -> int | None:
    """Line of job ``job_id`` in an SWF trace or a Batsim workload (for error messages)."""
    from simlib.workload.batsim import is_batsim_workload
    from simlib.workload.batsim import job_line as batsim_job_line
    from simlib.workload.swf import job_line

    return batsim_job_line(path, job_id) if is_batsim_workload(path) else job_line(
        path, job_id=job_id)


#: What the cleaning rules (simlib.workload.prepare) do about a job the
#: simulator cannot run, by the field at fault: the advice of an error.
_CLEANING_FIXES = {
    "run_time": "cleaning drops jobs without a runtime",
    # Without a requested time the runtime stands in (simlib.runner), so this
    # error is a job with neither: a runtime of 0, which cleaning drops.
    "requested_time": "cleaning drops jobs with a runtime of 0",
    "requested_procs": "cleaning drops jobs without a size",
    "allocated_procs": "cleaning drops jobs without a size",
}


def _unusable_job_advice(exc, cleaned: bool) -> str:
    """Advice that fits a :class:`~simlib.runner.UnusableJobError`, for a user of ``simulate``.

    Only a job wider than the machine is about ``--cpus``; a missing
    runtime, size or requested time is what the cleaning rules handle
    (the error then comes from ``--no-clean``); the rest (a missing submit
    time, times beyond 2**53 s) only an edit of the trace fixes.

    Examples
    --------
    >>> from simlib.runner import UnusableJobError
    >>> def err(field, reason):
    ...     return UnusableJobError(f"t: job 1 (row 0): field '{field}': {reason}; clean the "
    ...                             "trace first", row=0, job_id=1, field=field)
    >>> _unusable_job_advice(err("requested_procs", "size 6 is larger than the machine"), False)
    'clean the trace or change --cpus'
    >>> _unusable_job_advice(err("requested_time", "no usable estimate"), False)
    'run without --no-clean (cleaning drops jobs with a runtime of 0) or fix the trace'
    >>> _unusable_job_advice(err("submit_time", "no submit time (-1)"), False)
    'fix the trace (cleaning does not change this)'
    """
    if "larger than the machine" in str(exc):
        return "clean the trace or change --cpus"
    fix = _CLEANING_FIXES.get(exc.field)
    if fix is not None and not cleaned:
        return f"run without --no-clean ({fix}) or fix the trace"
    return "fix the trace (cleaning does not change this)"


def _timed_simulation(args: argparse.Namespace, workload, policy, cpus: int, name: str):
    """``(result, wall time in seconds)`` of the run, with a progress bar on a terminal."""
    from simlib.runner import UnusableJobError, job_columns, simulate

    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    t0 = time.perf_counter()
    try:
        # The jobs' columns, then the trace's table let go (``workload`` is a
        # one-item list the caller holds nothing else of): a million-job
        # table is ~300 MB the run does not need.
        jobs = job_columns(workload.pop(), cpus=cpus)
        res = simulate(jobs, policy, cpus=cpus, overrun=args.overrun, workload_name=name,
                       record_timeline=not policy.rigid, progress=bar, debug=args.debug,
                       keep_jobs=False, passes=args.passes)
    except UnusableJobError as exc:
        # The library names the row; a user reads lines of the file. Rows
        # may have been sorted or dropped (cleaning): the job's id finds its line.
        line = workload_job_line(args.trace, exc.job_id)
        reason = (str(exc).split(": ", 1)[1].replace(f" (row {exc.row})", "")
                  .replace("clean the trace first", _unusable_job_advice(exc, args.clean)))
        raise ConfigError(f"{args.trace}{f':{line}' if line else ''}: {reason}") from None
    finally:
        if bar is not None:
            bar.close()
    return res, time.perf_counter() - t0


def _summary_rows(args: argparse.Namespace, request: _Request, res, cpus: int,
                  notes: list[tuple[str, str]], wall: float) -> list[tuple[str, str]]:
    """The summary of a run as (key, value) rows; ``notes`` say what was done to the trace."""
    from simlib import metrics

    jobs, policy, params = res.table, request.policy, request.params
    if policy.rigid:
        util, util_note = metrics.utilization(jobs, cpus), "sum(size*runtime) / (CPUs*makespan)"
    else:
        util, util_note = (metrics.timeline_utilization(res.timeline, cpus),
                           "time average of busy CPUs (jobs resize)")
    killed = int((jobs["success"] == 0).sum())
    rows = [
        ("trace", f"{args.trace} ({len(jobs)} jobs, {cpus} CPUs)"),
        ("policy", f"{policy.name} " + (" ".join(f"{k}={_show(v)}" for k, v in params.items())
                                        if params else "(defaults)")
         + f", overrun={args.overrun}"
         + (f", passes={args.passes}" if args.passes != "per_timestamp" else "")),
        *notes,
        ("jobs", f"{len(jobs)}" + (f" ({killed} killed at their requested time)" if killed
                                   else "")),
        ("mean wait", _duration(metrics.mean_wait(jobs))),
        ("mean bounded slowdown", f"{metrics.mean_bounded_slowdown(jobs):.4g} (tau = "
                                  f"{metrics.DEFAULT_TAU:g} s)"),
        ("utilization", f"{util:.4f} ({util_note})"),
        ("makespan", _duration(metrics.makespan(jobs)) + " (last finish - first submit)"),
        ("wall time", f"{wall:.3g} s ({len(jobs) / max(wall, 1e-9):,.0f} simulated jobs/s"
                      + (", compiled EASY loop)" if getattr(policy, "ran_compiled", False)
                         else ")")),
    ]
    if args.output:
        rows.append(("jobs table", args.output))
    if args.gantt:
        rows.append(("Gantt chart", args.gantt))
    return rows


def _aligned_rows(rows) -> str:
    """``(key, value)`` rows as lines ``key  value``, the values in one column.

    Examples
    --------
    >>> print(_aligned_rows([("jobs", "10"), ("mean wait", "2.0 s")]))
    jobs       10
    mean wait  2.0 s
    """
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows)


def _simulate(args: argparse.Namespace) -> int:
    """Check the options, read the trace, simulate, write the outputs, print the summary."""
    request = _checked_request(args)
    workload, cpus, name, notes = _prepared_workload(args, request.cpus, request.load)
    held = [workload]
    del workload   # _timed_simulation lets it go once it has the jobs' columns
    res, wall = _timed_simulation(args, held, request.policy, cpus, name)
    # The jobs table as numpy columns: this command reads a trace, simulates and
    # writes without pandas (see simlib.table), unless a Gantt chart or a
    # timeline metric asks for DataFrames.
    if args.output:
        from simlib.runner import write_jobs_csv

        write_jobs_csv(res.table, args.output)
    if args.gantt:
        from simlib.figures.gantt import MAX_JOBS, plot_gantt

        plot_gantt(res.jobs, args.gantt, cpus=cpus, max_jobs=request.gantt_jobs or MAX_JOBS,
                   title=f"{name}: {request.policy.name} on {cpus} CPUs")
    print(_aligned_rows(_summary_rows(args, request, res, cpus, notes, wall)))
    return EXIT_OK


def _cleaning_summary(counts: dict) -> str:
    """What the cleaning rules did, in one line.

    Examples
    --------
    >>> _cleaning_summary({"jobs_in": 10, "runtime_missing": 2, "runtime_zero": 0,
    ...                    "request_missing": 1, "jobs_dropped": 2, "jobs_out": 8})
    '2 of 10 jobs dropped; rules matched: runtime_missing 2, request_missing 1 (--no-clean skips this)'
    """
    from simlib.workload.prepare import CLEANING_RULES

    hits = ", ".join(f"{rule} {counts[rule]}" for rule in CLEANING_RULES if counts.get(rule))
    return (f"{counts['jobs_dropped']} of {counts['jobs_in']} jobs dropped; rules matched: "
            f"{hits or 'none'} (--no-clean skips this)")


def _duration(seconds: float) -> str:
    """``"2345.6 s (39.1 min)"``: seconds, and a larger unit when it helps.

    Examples
    --------
    >>> _duration(2345.64), _duration(7.25), _duration(21836300.0)
    ('2345.6 s (39.1 min)', '7.2 s', '21836300.0 s (253 days)')
    """
    from simlib.units import time_unit

    if not math.isfinite(seconds):
        return "n/a"
    factor, unit = time_unit([seconds])
    text = f"{seconds:.1f} s"
    return text if factor == 1.0 else f"{text} ({seconds / factor:.3g} {unit})"


def _show(value) -> str:
    """A parameter value as it is typed on the command line (YAML)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --------------------------------------------------------------------------
# simlib policies
# --------------------------------------------------------------------------
def register_policies(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib policies [--json]``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_policies(p.add_subparsers(dest="command"))
    >>> p.parse_args(["policies", "--json"]).json
    True
    """
    p = subparsers.add_parser(
        "policies",
        help="list the registered policies, their paper and parameters",
        description="List every registered scheduling policy with the paper it comes from, "
                    "what it does, and its parameters with their defaults (give them to "
                    "simlib simulate as --param NAME=VALUE).",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("-l", "--long", action="store_true",
                   help="also say in one line what each policy does")
    p.add_argument("--policy-module", action="append", default=[], metavar="MODULE",
                   help="import MODULE first and list the policies it registers apart: a "
                        "dotted module name (current directory, then PYTHONPATH) or the path "
                        "of a .py file; repeatable")
    _one_line_usage_errors(p)
    p.set_defaults(func=_guarded("policies", _run_policies))


def policy_table(width: int = 120, *, long: bool = False, names=None) -> str:
    """The registered policies as a text table: name, paper, parameters with defaults.

    Parameters
    ----------
    width : int
        Line width to wrap the parameters column to (at least 30 columns
        are kept for it).
    long : bool
        Add each policy's one-line description under its paper.
    names : iterable of str, optional
        The policies to list (default: every registered one).

    Examples
    --------
    >>> table = policy_table()
    >>> table.splitlines()[0].split()
    ['POLICY', 'PAPER', 'PARAMETERS', '(defaults)']
    >>> "cs=7" in table and "strict FCFS" in policy_table(long=True)
    True
    """
    from simlib.policies import POLICIES

    listed = {name: POLICIES[name] for name in (POLICIES if names is None else names)}
    name_w = max(len("POLICY"), *(len(n) for n in listed))
    paper_w = max(len("PAPER"), *(len(c.paper) for c in listed.values()))
    param_w = max(30, width - name_w - paper_w - 4)
    lines = [f"{'POLICY':<{name_w}}  {'PAPER':<{paper_w}}  PARAMETERS (defaults)"]
    for name, cls in listed.items():
        params = " ".join(f"{k}={_show(v)}" for k, v in cls.defaults.items()) or "-"
        right = textwrap.wrap(params, param_w, break_long_words=False, break_on_hyphens=False)
        mid = [cls.paper or "-"] + ([f"  {cls.description}"] if long and cls.description else [])
        for k in range(max(len(mid), len(right))):
            cells = (name if k == 0 else "", mid[k] if k < len(mid) else "",
                     right[k] if k < len(right) else "")
            lines.append(f"{cells[0]:<{name_w}}  {cells[1]:<{paper_w}}  {cells[2]}".rstrip())
    return "\n".join(lines)


def _loop_of(cls) -> str:
    """Which loop runs policy class ``cls``, in words (EASY's subclasses may run compiled).

    Examples
    --------
    >>> from simlib.policies import POLICIES
    >>> _loop_of(POLICIES["easy"]), _loop_of(POLICIES["fcfs"])
    ("EASY's compiled loop", "the engine's loop")
    """
    from simlib.policies.easy import EASY

    if not issubclass(cls, EASY):
        return "the engine's loop"
    problem = cls.compiled_problem()
    return "EASY's compiled loop" if problem is None else f"the engine's loop: {problem}"


def _run_policies(args: argparse.Namespace) -> int:
    """Body of ``simlib policies``: every policy, the ``--policy-module`` ones apart."""
    user: dict[str, str] = {}
    for module in args.policy_module:
        names = load_policy_module(module)
        if not names:
            raise ConfigError(f"--policy-module {module}: the module registered no policy "
                              "(a policy class registers itself with "
                              "simlib.policies.register, see docs/writing_a_policy.md)")
        user.update(dict.fromkeys(names, module))
    from simlib.policies import POLICIES

    if args.json:
        print(json.dumps([{"name": name, "paper": cls.paper, "description": cls.description,
                           "parameters": dict(cls.defaults), "policy_module": user.get(name)}
                          for name, cls in POLICIES.items()], indent=2))
        return EXIT_OK
    width = shutil.get_terminal_size((120, 24)).columns
    builtin = [name for name in POLICIES if name not in user]
    print(policy_table(width, long=args.long, names=builtin))
    if user:
        print("\nFrom --policy-module:")
        print(policy_table(width, long=True, names=user))
        for name, module in user.items():
            print(f"{name}: {module}; runs in {_loop_of(POLICIES[name])}")
    print("\nUse: simlib simulate TRACE [--policy-module MODULE] --policy NAME "
          "--param NAME=VALUE ...  (-l: descriptions, --json: all as JSON)")
    return EXIT_OK


# --------------------------------------------------------------------------
# simlib generate
# --------------------------------------------------------------------------
def register_generate(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib generate lublin --jobs N [--load L] --cpus N --seed S -o w.swf[.gz]``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_generate(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["generate", "lublin", "--jobs", "10", "--cpus", "64", "--seed", "1",
    ...                   "-o", "w.swf"])
    >>> a.model, a.jobs, a.load
    ('lublin', '10', None)
    """
    p = subparsers.add_parser(
        "generate",
        help="write a synthetic workload (Lublin-Feitelson model) as SWF",
        description=(
            "Generate a workload from the Lublin & Feitelson (2003) model (batch and "
            "interactive job types, daily arrival cycle), its size distribution shifted to "
            "the machine's CPUs as the authors advise, with exact runtime estimates, and "
            "write it as SWF (gzip if the name ends in .gz) with a header. The same "
            "arguments and seed give the same file."),
    )
    p.add_argument("model", choices=("lublin",), help="workload model")
    p.add_argument("--jobs", required=True, metavar="N", help="number of jobs")
    p.add_argument("--cpus", required=True, metavar="N", help="CPUs of the machine")
    p.add_argument("--seed", required=True, metavar="S", help="random seed (integer >= 0)")
    p.add_argument("--load", metavar="L",
                   help="calibrate inter-arrival times to offered load L (within 1 %%)")
    p.add_argument("-o", "--output", required=True, metavar="w.swf[.gz]", help="output file")
    _one_line_usage_errors(p)
    p.set_defaults(func=_guarded("generate", _run_generate))


def _run_generate(args: argparse.Namespace) -> int:
    """Body of ``simlib generate``."""
    n_jobs = positive_int(args.jobs, "--jobs")
    cpus = positive_int(args.cpus, "--cpus")
    try:
        seed = int(str(args.seed).strip(), 10)
    except ValueError:
        seed = -1
    if seed < 0:
        raise ConfigError(f"--seed must be an integer >= 0, got {args.seed!r}")
    load = _positive_float(args.load, "--load") if args.load is not None else None
    _check_output(args.output, "-o", (".swf", ".swf.gz"))

    from simlib.workload import lublin
    from simlib.workload.estimates import exact_estimates
    from simlib.workload.swf import write_swf

    params = lublin.LublinParams.typed().for_machine(cpus)
    if load is None:
        workload = lublin.generate_lublin(params, n_jobs=n_jobs, machine_size=cpus, seed=seed)
    else:
        workload, _ = lublin.calibrate_load(load, params, n_jobs=n_jobs, machine_size=cpus,
                                            seed=seed)
    workload = exact_estimates(workload)
    try:
        reached = f", offered load {lublin.offered_load(workload, cpus):.4g}"
    except ConfigError:  # all jobs submitted in the same second: no span
        reached = ""
    write_swf(workload, args.output)
    print(f"wrote {args.output}: {len(workload.jobs)} jobs{reached} on {cpus} CPUs "
          f"(Lublin-Feitelson, seed {seed})")
    return EXIT_OK


# --------------------------------------------------------------------------
# simlib convert
# --------------------------------------------------------------------------
def register_convert(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simlib convert IN OUT [--cpus N] [--platform P.xml] [--no-clean]``.

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register_convert(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["convert", "t.swf", "w.json", "--platform", "p.xml"])
    >>> a.source, a.target, a.platform, a.clean
    ('t.swf', 'w.json', 'p.xml', True)
    """
    p = subparsers.add_parser(
        "convert",
        help="convert a workload between SWF and Batsim JSON",
        description=(
            "Convert an SWF trace (.swf, .swf.gz) to a Batsim JSON workload (.json: one delay "
            "profile per distinct runtime, walltime = requested time, res = size), or a Batsim "
            "workload of delay profiles to SWF. The direction follows the suffixes. An SWF "
            "trace is cleaned first by the pipeline's rules, as simlib simulate does, so the "
            "two files give the same schedule. Exit 0 on success, 2 on bad input (one line on "
            "stderr, no output file written)."),
    )
    p.add_argument("source", metavar="IN", help="TRACE.swf[.gz] or W.json")
    p.add_argument("target", metavar="OUT", help="W.json or TRACE.swf[.gz]")
    p.add_argument("--cpus", metavar="N",
                   help="machine size (nb_res; default: the SWF header's MaxProcs or MaxNodes)")
    p.add_argument("--platform", metavar="P.xml",
                   help="SWF to JSON: also write a Batsim platform of one cluster of N hosts "
                        "(zero latency, host names of fixed width so that Batsim's machine ids "
                        "are simlib's, and Batsim's master host)")
    p.add_argument("--no-clean", dest="clean", action="store_false",
                   help="SWF to JSON: convert the jobs as they are (every job needs a runtime "
                        "and a size)")
    p.add_argument("--unsorted", choices=("sort", "reject"), default="sort",
                   help="submit times going backwards: sort the jobs (stable, default) or "
                        "reject the file")
    _one_line_usage_errors(p)
    p.set_defaults(func=_guarded("convert", _run_convert))


def _run_convert(args: argparse.Namespace) -> int:
    """Body of ``simlib convert``."""
    from simlib.workload.batsim import is_batsim_workload

    cpus = positive_int(args.cpus, "--cpus") if args.cpus is not None else None
    swf_suffixes = (".swf", ".swf.gz")
    if is_batsim_workload(args.source):
        _check_output(args.target, "OUT", swf_suffixes)
        if args.platform:
            raise ConfigError("--platform is for SWF to JSON (a Batsim workload brings its own)")
        return _batsim_to_swf(args)
    _check_output(args.target, "OUT", (".json",))
    if args.platform:
        _check_output(args.platform, "--platform", (".xml",))
    return _swf_to_batsim(args, cpus)


def _batsim_to_swf(args: argparse.Namespace) -> int:
    from simlib.workload.batsim import read_batsim
    from simlib.workload.swf import write_swf

    workload = read_batsim(args.source)
    if args.unsorted == "reject":
        workload.check_order()
    workload.check_whole_seconds()
    write_swf(workload.to_swf(), args.target)
    print(f"wrote {args.target}: {len(workload)} jobs on {workload.nb_res} CPUs "
          f"(from the Batsim workload {args.source})")
    return EXIT_OK


def _swf_to_batsim(args: argparse.Namespace, cpus: int | None) -> int:
    from simlib.backends.simgrid import NetworkPlatform
    from simlib.io import write_text
    from simlib.workload.batsim import from_swf, write_batsim
    from simlib.workload.prepare import clean
    from simlib.workload.swf import max_procs, read_swf

    workload = read_swf(args.source, unsorted=args.unsorted)
    if cpus is None:
        cpus = max_procs(workload)
        if cpus is None:
            raise ConfigError(f"{args.source}: no --cpus given and the header has no MaxProcs "
                              "or MaxNodes; give --cpus N")
    note = ""
    if args.clean:
        workload, counts = clean(workload, cpus)
        note = f"; cleaning: {_cleaning_summary(counts)}"
    batsim = from_swf(workload, cpus)
    write_batsim(batsim, args.target)
    print(f"wrote {args.target}: {len(batsim)} jobs, {len(batsim.profiles)} delay profiles, "
          f"nb_res {cpus}{note}")
    if args.platform:
        write_text(args.platform, NetworkPlatform.one_cluster(cpus).to_batsim_xml())
        print(f"wrote {args.platform}: one cluster of {cpus} hosts and Batsim's master host "
              "(zero latency)")
    return EXIT_OK


# --------------------------------------------------------------------------
def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``simulate``, ``policies``, ``generate`` and ``convert`` (the provider in SUBCOMMAND_PROVIDERS).

    Examples
    --------
    >>> p = argparse.ArgumentParser(); register(p.add_subparsers(dest="command"))
    >>> sorted(p._subparsers._group_actions[0].choices)
    ['convert', 'generate', 'policies', 'simulate']
    """
    register_simulate(subparsers)
    register_policies(subparsers)
    register_generate(subparsers)
    register_convert(subparsers)
