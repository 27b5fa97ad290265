"""Paper U's own README (step ``utrera_readme``): ``paper_figures/utrera/README.md``.

Every artifact of paper U with published vs reproduced numbers, a verdict
per claim (``claims.csv`` of step ``utrera_claims``: the criterion functions
of :mod:`simlib.studies.utrera.claims`, each rule stated beside its
verdict), the scale and seeds, the interpretation choices
(:data:`INTERPRETATION`) and why the verdicts come out as they do
(:data:`DISCUSSION`). Tables go through the one renderer,
:func:`simlib.markdown.markdown_table`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from simlib.claims import read_claims, verdict_counts
from simlib.io import write_text
from simlib.markdown import markdown_table
from simlib.studies.utrera.plots import to_markdown

from . import claims as R
from .published import load_published

__all__ = ["INTERPRETATION", "DISCUSSION", "SECTIONS", "md_file", "readme"]

#: How the paper was read where it is ambiguous (the README's own section).
INTERPRETATION = """\
## Interpretation choices

1. **Fig. 2 sizes.** 10 CPUs, J1..J6 submitted at 0 in order with execution
   times 2, 1, 1, 2, 2, 1; sizes **8, 4, 2, 8, 4, 8** satisfy every statement
   of the text (2 idle CPUs beside J1 and 6 beside J5 under FCFS; J3
   backfilled beside J1 under EASY; J1 shrunk to 4 CPUs beside expanded J2
   and J3; J4 cannot start even by shrinking J2 and J3; J4 and J5 start
   shrunk when J2 and J3 end) and give all nine printed numbers. The
   sentence that does not fit is *"Finally, J6 starts expanded as there are
   no jobs in the wait queue"*: for 0 % fragmentation J6 must start at t = 4,
   when J1 ends and only 4 CPUs are free, i.e. shrunk; it ends at 6 (the
   printed response 3.66 and slowdown 2.5 need exactly that), so it is not
   expanded at t = 5 either. Hence our reading of Algorithm 1: a job that
   *started* shrunk keeps its CPUs; only jobs shrunk while running are
   expanded again (`expand_started_shrunk: false`; the alternative is run as
   a reading in `time_model_readings.png`).
2. **Algorithm 1** (simlib/policies/fcfs_malleable.py): the queue is FCFS,
   only its head is considered; if it does not fit, running expanded jobs
   are shrunk to half their CPUs in candidate order (oldest first) until it
   fits expanded, and the head itself is shrunk only if that is not enough;
   if even then it does not fit, nothing is shrunk and it waits. MPL never
   exceeds 2. At a completion the head is retried; if the queue is empty,
   shrunk jobs are expanded onto the free CPUs.
3. **Time model** (formulas 3-4). As printed, formula 3 (`execTime x MPL x
   CPUUtil`) would make an expanded job with CPU utilization u < 1 faster
   than its trace runtime. Our reading: while shrunk at MPL m, one second of
   expanded work takes `max(1, m u) + OV` seconds; expanded phases run at
   trace speed. OV ~ U(0, 1) is drawn once per job from the run's seed and is
   charged on the work done while shrunk (`ov_scope: shrunk_work`). u is SWF
   field 6 / field 4; jobs without CPU time (field 6 = -1) get u = 1
   (`missing_cpu_util`: no overlap of communication and computation
   assumed). The alternatives (OV = 0, OV on all work, expanding jobs that
   started shrunk) are config switches and are all simulated:
   `time_model_readings.png`. Every reading and every combination of the
   reading factors also runs on Table 1's main-fit workloads, Sect. 5.1's
   points and Fig. 2's example, paired with the main runs (same workloads and
   seeds): the reading x claim matrix. Fig. 2 keeps its own
   `fig2.malleable_params` (the footnote: OV = 0) on top of each reading, as
   the footnote defines the example: the OV factor cannot change it, the
   expansion factor can; its jobs carry no CPU utilization, so the util
   factor cannot either.
4. **Metrics.** Response = finish - submit. Slowdown = formula 1,
   (wait + execution) / expanded execution time, where the expanded
   execution time is the job's trace runtime (its request when it is killed
   at it); not bounded. Fragmentation = formula 2, free-CPU time while at
   least one job waits / (span x CPUs). Average MPL (Table 3) = processes of
   running jobs per machine CPU, time-averaged over the span. The span is
   always first submission to last completion of the simulated portion;
   dividing by all CPUs is why EASY's MPL is below 1, as in the paper.
5. **Table 1 workloads.** The Lublin-Feitelson model (lublin99 defaults,
   batch + interactive streams, 128 CPUs: NAS runs had 1-128 processes),
   150 jobs, exact estimates, submit times mapped onto [0, 2 h] keeping
   their order and spacing. The paper's Table 1 fixes the runtimes: EASY's
   response minus wait (S), i.e. the mean execution time, is 52.0 / 51.7 /
   52.2 / 53.0 s at 30 / 50 / 70 / 90 % load, so its load cannot come from
   the runtimes and, with 150 jobs in 2 hours, must come from the job
   sizes. Main reading (`table1.fit: sizes`,
   simlib.studies.utrera.transforms.fit_sizes_to_window): every runtime is
   multiplied by one factor to a mean of `table1.mean_runtime` = 52 s at
   every load, then every size by one factor per load (rounded, within [1,
   128]) until the offered load is within 1 % of the target; a load sizes
   cannot reach (all jobs serial to all machine-wide: 0.008 to 1.08 here)
   is a config error, never a silently different load. Scaled down to
   52 s, the model's heavy-tailed runtimes leave many 1-second jobs, and at
   90 % most of the work is in machine-wide jobs (counts in `table1.md`).
   Alternative, also simulated and shown (`fit_alternatives: [runtimes]`):
   sizes as drawn and one runtime factor per load, so the mean runtime
   grows with the load (several times 52 s; per load in `table1.md`),
   unlike the paper's.
   `fit: arrivals` calibrates inter-arrival times only (span not 2 h).
   Both slowdowns are given: the paper's (formula 1, unbounded, dominated
   by the 1-second jobs) and the bounded slowdown (tau = 10 s).
6. **Traces.** Table 2's "20K-25K" and "40K-45K" are read as job positions
   20,000-24,999 (CTC, SDSC-Blue) and 40,000-44,999 (SDSC) of the cleaned
   logs: 5,000 jobs each. CTC is simulated on **430 CPUs** as in the paper
   (the PWA page's batch partition; the cleaned log's header says 338, its
   largest job). Evidence for both: the demand ratio of exactly these
   portions on these machine sizes under the logs' own schedules is 5.9 /
   2.9 / 9.4 (waiting jobs) and 6.4 / 3.5 / 10.2 (waiting + running), beside
   the printed Req.Cpus/Cpus 5.8 / 3.8 / 8.8. EASY uses the logs' requested
   times; a job running past its request is killed at it (`simulation.overrun`).
7. **Req.Cpus/Cpus** (Table 2) cannot be mean requested CPUs / machine CPUs
   (at most 1). We read it as the time-averaged CPUs requested by the jobs
   in the system over the machine's CPUs (a demand ratio; Fig. 1's week has
   "ratio 2"), computed from the log's own schedule; the waiting-only
   variant, the same ratio under our EASY simulation and the literal mean
   size / CPUs are shown beside it.
8. **Headline 28 % / 31 %.** The paper does not say over which runs. We
   report the gain 100 (EASY - FCFS-malleable) / EASY per trace, averaged
   over the three traces (verdict), and pooled; per OV seed, then mean and CI.
9. **Sect. 5.1.** Every long job (> 64 processes and > 8 h) of the SDSC
   portion gets CPU utilization u (`long_util.mode: set`; `scale` keeps
   their spread). EASY does not use u, so its line is flat. The paper
   re-simulated its SDSC workload, but Fig. 3's portion (jobs 40,000-44,999)
   holds only 5 of the cleaned log's 81 long jobs (1.7 % of its work): u
   cannot move its averages. Sect. 5.1 therefore runs on its own portion
   (`long_util.portion`): by default the 10,000 consecutive jobs of the
   cleaned log holding the most long jobs (jobs 18,802-28,801: 42 long
   jobs, 16 % of the work; earliest window on ties), EASY and
   FCFS-malleable on the same jobs. Below `long_util.min_long_jobs` long
   jobs (20) the claim is "not testable here" (the smoke scale's 1,000-job
   window holds 11).
12. **Table 2's "Jobs" column** ("20K-25K", "40K-45K") is read as job
    positions (interpretation 6). The other reading, whole workloads of
    that many jobs, runs at the scales of `whole_workloads.scales` (by
    default full only): the first 25,000 / 25,000 / 45,000 jobs of the
    cleaned CTC, SDSC-Blue and SDSC logs (positions 0 to the printed upper
    bound), EASY and FCFS-malleable with the same OV seeds;
    `whole_workloads.md` puts Fig. 3's metrics, Table 3's MPL, the
    fragmentation and the claims' verdicts on them beside the portions'.
10. **Fig. 1** is a substitute: the MareNostrum data are not public. It
    shows the busiest week (largest mean queue length) of a PWA trace
    simulated under EASY: CPUs busy, CPUs requested by waiting jobs, queue
    length.
11. **Seeds and CIs.** Mean over seeds ± half-width of the 95 % Student-t
    interval. On traces the seed only draws OV: EASY is deterministic and
    simulated once (its CI is 0). In Table 1 the seed draws the workload and
    OV.
"""


#: Why the verdicts come out as they do.
DISCUSSION = """\
## Why (discussion of the verdicts)

* **Fig. 2** is reproduced exactly, with the sizes and the reading of
  Algorithm 1 given in interpretation 1; only the sentence on J6 does not fit.
* **The overhead OV decides most trace claims.** Under our main reading a
  job running shrunk with CPU utilization near 1 progresses at 1 / (2 + OV)
  of its speed on half its CPUs: every shrink *loses* machine capacity
  (OV ~ U(0, 1), 0.5 on average), while EASY never does. On a loaded portion
  this feeds back: more waiting, more shrinking, less capacity. Hence
  FCFS-malleable's longer waits on CTC and its collapse on SDSC (offered
  load about 0.9 on 128 CPUs, many serial jobs that cannot shrink, and FCFS
  without backfilling blocks behind wide jobs). With OV = 0 (column
  `if ov0`) shrinking conserves capacity and the picture moves towards the
  paper's: FCFS-malleable's response time is then close to EASY's on CTC and
  SDSC and much better on SDSC-Blue (the low-utilization trace, as the paper
  says), and at default scale SDSC's average MPL is 1.47 as in Table 3. The paper
  does not say how OV is scaled; its claims fit a small overhead better.
* **Fragmentation is not eliminated**: FCFS-malleable still leaves CPUs
  idle while the head waits when even shrinking cannot make room for it
  (serial jobs and jobs already at MPL 2 cannot give CPUs back), most on
  SDSC.
* **Table 1** compares gains only: the workloads are the Lublin model's
  heavy-tailed runtimes scaled to the paper's 52 s mean (interpretation 5),
  not its NAS runs: the median job runs a second or so (`table1.md`) and a
  few long jobs carry most of the work, so the averages rest on a handful
  of jobs and the intervals over seeds are wide; at 70-90 % load most of
  the work is in machine-wide jobs, which neither backfilling nor shrinking
  can place early. The previous fit (`runtimes`: sizes as drawn, longer
  runtimes at higher load) is shown under the main one in `table1.md`;
  neither gives the paper's absolute seconds, and the verdict counts only
  the main fit.
* **Table 2**: CPU counts and portions are the paper's; utilizations come
  from SWF field 6, which many jobs lack (they are left out), and the
  long-job averages rest on few jobs (see the counts in `table2.md`).
* **Sect. 5.1** runs on the window of the SDSC log with the most long jobs
  (interpretation 9; the portion and its long jobs are in `long_util.md`
  and in the verdict's row): Fig. 3's portion holds only 5 long jobs, too
  few for their utilization to move the averages. Even there most of the
  work is in other jobs, so the rest of the workload weighs on the
  comparison.
* **Candidate orders**: the four orders differ by a few percent and their
  confidence intervals overlap, but they share their OV draws seed by seed,
  so the verdict compares each with the best by a paired t-test over seeds
  (columns `diff_vs_best` and `p_vs_best` below): a difference of a few
  percent in every seed is significant even where the intervals overlap.
* **Fig. 1** is not reproducible (MareNostrum data); the substitute only
  illustrates the kind of plot.

"""


#: The README's sections, artifact by artifact: title, figures, Markdown table.
SECTIONS = [
    ("Fig. 2 (toy example)", ["fig2_gantt.png"], "fig2_numbers.md"),
    ("Table 1 (Lublin workloads, simulator)", ["table1.png"], "table1.md"),
    ("Table 2 (workloads)", [], "table2.md"),
    ("Fig. 3 (traces)", ["fig3.png"], "fig3.md"),
    ("Table 3 (average MPL)", [], "table3.md"),
    ("Fragmentation", [], "fragmentation.md"),
    ("Headline gains (28 % / 31 %)", [], "headline_gains.md"),
    ("Sect. 5.1 (long jobs' CPU utilization on SDSC)", ["long_util.png"], "long_util.md"),
    ("Sect. 5.1 (job classes on SDSC)", [], "slowdown_by_class.md"),
    # Only at the scales that run the whole workloads (whole_workloads.scales).
    ("Table 2's 'Jobs' read as whole workloads", [], "whole_workloads.md"),
    ("Candidate orders (ablation)", ["orders_ablation.png"], None),
    ("Time-model readings (sensitivity)", ["time_model_readings.png"], None),
    ("Fig. 1 (substitute)", ["fig1_substitute.png"], None),
]

#: Why the policy-free claim (Table 2) and the main-reading-only one (the orders) are so.
POLICY_FREE_NOTE = ("no policy involved (the trace portions' own characteristics): "
                    "the same verdict under every reading")
MAIN_READING_ONLY_NOTE = (
    "main reading only: the ablation under every reading needs the 3 other orders x 14 "
    "readings x 3 traces x the OV seeds (1,260 more runs of 5,000 jobs and 126 more jobs at "
    "default scale, 3 times the traces' reading runs; measured about 8 s per order and reading "
    "over the three traces, 6 min in all)")

#: The traces' sources, with their acknowledgements.
TRACES_NOTE = ("Traces: Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), "
               "2014), cleaned logs of CTC-SP2 (Dan Dwyer and Steve Hotovy), SDSC-SP2 "
               "(Victor Hazlewood) and SDSC-Blue (Travis Earheart and Nancy Wilkins-Diehr).")


def md_file(path) -> str:
    """A generated Markdown table file without its title line, headings demoted.

    The README nests it under a ``###`` section, so its own ``##`` headings
    become ``####``.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()[1:]
    lines = ["####" + line[2:] if line.startswith("## ") else line for line in lines]
    return "\n".join(lines).strip() + "\n"


def _link(path, here: Path) -> str:
    """Markdown link to ``path`` from the README's directory ``here``."""
    rel = os.path.relpath(path, here)
    if rel.startswith(".."):  # outside paper_figures/utrera: a pipeline output
        return f"[`{path}`]({rel}) (built by the pipeline, not committed)"
    return f"[`{os.path.basename(path)}`]({rel})"


def _portion_text(v: dict) -> str:
    """A portion of :meth:`Utrera.scale_plan <simlib.studies.utrera.Utrera.scale_plan>`.

    Examples
    --------
    >>> _portion_text({"first_job": "densest", "n_jobs": 10000})
    'the 10,000 jobs with the most long jobs'
    >>> _portion_text({"first_job": 0, "n_jobs": 25000})
    'jobs 0-24,999'
    """
    if v["first_job"] == "densest":
        return f"the {v['n_jobs']:,} jobs with the most long jobs"
    return f"jobs {v['first_job']:,}-{v['first_job'] + v['n_jobs'] - 1:,}"


def scale_lines(plan: dict, trace: str) -> list[str]:
    """What paper U runs at each scale (``plan``: :meth:`Utrera.scale_plan
    <simlib.studies.utrera.Utrera.scale_plan>`; ``trace``: Sect. 5.1's).

    Examples
    --------
    >>> sc = {"portions": {"T": {"first_job": 10, "n_jobs": 100}}, "ov_seeds": 2,
    ...       "table1_seeds": 3, "long_util": {"first_job": "densest", "n_jobs": 50},
    ...       "long_util_values": [0.6, 1.0], "whole_workloads": {}}
    >>> scale_lines({"smoke": sc}, "T")[0][:60]
    '- **smoke**: Fig. 3, Tables 2-3: T jobs 10-109; 2 OV seeds; '
    """
    out = []
    for scale, sc in plan.items():
        whole = sc["whole_workloads"]
        out.append(
            f"- **{scale}**: Fig. 3, Tables 2-3: "
            + ", ".join(f"{t} {_portion_text(v)}" for t, v in sc["portions"].items())
            + f"; {sc['ov_seeds']} OV seeds; Table 1: {sc['table1_seeds']} seeds; Sect. 5.1: "
            f"{trace} {_portion_text(sc['long_util'])}, "
            + ", ".join(f"{100 * u:g}" for u in sc["long_util_values"]) + " %; whole workloads "
            + ("(Table 2's 'Jobs' as workload sizes): "
               + ", ".join(f"{t} {_portion_text(v)}" for t, v in whole.items())
               if whole else "not run") + ".")
    return out


def _header(p, counts) -> list[str]:
    plan = p.get("scale_plan") or {}
    here = plan.get(p["scale"], {})
    lu = here.get("long_util")
    return [
        "# Paper U: FCFS-malleable with virtual malleability (Utrera et al., Euro-Par 2012)",
        "",
        "Generated by `snakemake` (rule `utrera_readme`); do not edit by hand. "
        f"Published numbers: `{p['published']}` (data with their source, never results).",
        "",
        f"**Scale: {p['scale']}** — paper U runs, at this scale: "
        + ", ".join(sorted({f"{v['n_jobs']:,}-job" for v in p["portions"].values()}))
        + " portions of each trace (Table 2's 'Jobs' column read as job positions; the "
        "pipeline-wide scale line does not apply here). Table 1: "
        f"{p['table1_seeds']} "
        f"workload seeds; traces: {p['ov_seeds']} OV seeds per fcfs_malleable run; Sect. 5.1 "
        "points: " + ", ".join(f"{100 * u:g} %" for u in p["long_util_values"])
        + ". Trace portions: "
        + "; ".join(f"{t} jobs {v['first_job']}-{v['first_job'] + v['n_jobs'] - 1} on "
                    f"{v['machine_procs']} CPUs" for t, v in p["portions"].items()) + "."
        + (f" Sect. 5.1 runs on its own portion: {_portion_text(lu)} of the cleaned "
           f"{p.get('long_util_trace', 'SDSC-SP2')} log (`long_util.md`)." if lu else "")
        + (" Table 2's 'Jobs' column is also read as whole workloads "
           "(`whole_workloads.md`)." if here.get("whole_workloads") else ""),
        "",
        *(["What each scale runs (`--config scale=...`):", "",
           *scale_lines(plan, p.get("long_util_trace", "SDSC-SP2")), ""] if plan else []),
        "## Verdicts",
        "",
        "Summary: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + ". Each verdict "
        "follows the stated rule mechanically from this run's numbers; the discussion below "
        "says why.",
        "",
        "The last columns give the verdict of each claim under the other named readings of "
        "the time model (interpretation 3), simulated with the same seeds and workloads; "
        "every combination of the reading factors is in the reading x claim matrix below.",
        "",
    ]


def _verdict_table(claims: pd.DataFrame, alt: dict[str, dict[str, str]]) -> list[str]:
    """The claims (a claims file's rows), numbered, with their verdict under each other reading."""
    table = pd.DataFrame({
        "#": range(1, len(claims) + 1),
        "claim (source)": [f"{c} ({s})" for c, s in zip(claims["claim"], claims["source"])],
        "published": claims["published"], "ours": claims["ours"],
        "verdict": [f"**{v}**" for v in claims["verdict"]], "rule": claims["criterion"],
        **{f"if {name}": [verdicts.get(c, "–") for c in claims["claim"]]
           for name, verdicts in alt.items()}})
    return markdown_table(table).splitlines()


def _short(claim: str) -> str:
    """A claim's label: the text before its colon ("Fig. 3(c)", "Table 3", ...)."""
    return claim.split(":")[0]


def _labels(claims) -> dict[str, str]:
    """Each claim's column in the matrix: its short label, with its number when two share one.

    Examples
    --------
    >>> _labels(["Fig. 2: a", "Sect. 5.1: b", "Sect. 5.1: c"])
    {'Fig. 2: a': 'Fig. 2', 'Sect. 5.1: b': 'Sect. 5.1 (#2)', 'Sect. 5.1: c': 'Sect. 5.1 (#3)'}
    """
    claims = list(claims)
    shorts = [_short(c) for c in claims]
    return {c: (f"{sh} (#{i + 1})" if shorts.count(sh) > 1 else sh)
            for i, (c, sh) in enumerate(zip(claims, shorts))}


def _matrix(claims: pd.DataFrame, alt: dict[str, dict[str, str]], gains: pd.DataFrame,
            p: dict, how: dict[str, str] | None = None) -> list[str]:
    """The reading x claim matrix: per reading (main first), the verdict of each claim and
    the headline gains; the levels of the reading factors it combines.

    ``alt``: reading -> claim -> verdict (:func:`R.reading_verdicts
    <simlib.studies.utrera.claims.reading_verdicts>`); ``how``: claim ->
    "policy-free" or "main reading only" for the claims not simulated under
    each reading (the others: simulated). The headline sentence counts the
    claims judged per reading (all but the main-reading-only ones).
    """
    how = how or {}
    numbers = _labels(claims["claim"])
    shown = [c for c in claims["claim"] if any(c in v for v in alt.values())]
    labels = {c: numbers[c] + ("*" if how.get(c) == "policy-free" else "") for c in shown}
    judged = {labels[c] for c in shown if how.get(c) != R.MAIN_ONLY}
    factors = p.get("reading_factors") or {}
    rows = []
    main = dict(zip(claims["claim"], claims["verdict"]))
    mean = gains[gains["trace"] == "mean of traces"] if "trace" in gains else gains.iloc[0:0]
    for name in ["main", *alt]:
        label = "fcfs_malleable" if name == "main" else p["readings"][name]
        verdicts = main if name == "main" else alt[name]
        row = {"reading": name}
        parts = dict(part.rsplit("_", 1) if "_" in part else (part, "")
                     for part in name.split("__")) if name != "main" else {}
        for f, levels in factors.items():
            row[f] = parts.get(f, next(iter(levels))) if parts.keys() <= set(factors) else "–"
        for c in shown:
            row[labels[c]] = verdicts.get(c, "–")
        g = mean[mean["policy"] == label] if len(mean) else mean
        for metric, col in (("utrera_slowdown", "slowdown gain %"),
                            ("mean_response", "response gain %")):
            r = g[g["metric"] == metric] if len(g) else g
            row[col] = f"{float(r['mean'].iloc[0]):+.1f}" if len(r) else "–"
        rows.append(row)
    held = {r["reading"]: sum(v == "reproduced" for k, v in r.items() if k in judged)
            for r in rows}
    best = max(held.values()) if held else 0
    free = [labels[c] for c in shown if how.get(c) == "policy-free"]
    only = [labels[c] for c in shown if how.get(c) == R.MAIN_ONLY]
    notes = []
    if free:
        notes.append(f"{', '.join(free)}: {POLICY_FREE_NOTE}, shown as the main "
                     "verdict (not re-run).")
    if only:
        notes.append(f"{', '.join(only)} (the candidate orders): "
                     f"{MAIN_READING_ONLY_NOTE}.")
    return ["", "## Reading x claim matrix", "",
            "Every combination of the reading factors (grid `reading_factors`; the first level "
            "of each is the main reading's) and every named reading, simulated with the same "
            "seeds and workloads as the main reading: on the three traces (Fig. 3, Table 3, "
            "fragmentation, headline, job classes), on Table 1's workloads (main fit), on "
            "Sect. 5.1's points and on Fig. 2's example (there with the example's own "
            "`fig2.malleable_params` on top: OV = 0 under every reading, so only the expansion "
            "factor and `expand_started_shrunk` can change it). Each cell is the verdict of "
            "that claim under that reading, by the same rule as the main table. The headline "
            "gains are the mean over the traces (positive: FCFS-malleable better than EASY; the "
            "paper: +28 % slowdown, +31 % response). " + " ".join(notes)
            + f" Most claims reproduced under one reading: {best} of {len(judged)} judged per "
            f"reading ({', '.join(n for n, h in held.items() if h == best)}).", "",
            *markdown_table(pd.DataFrame(rows)).splitlines()]


def _values(orders: pd.DataFrame, readings: pd.DataFrame) -> list[str]:
    """The candidate orders' and the time-model readings' values as tables."""
    rd = readings[readings["metric"].isin(["mean_response", "utrera_slowdown",
                                           "utrera_fragmentation", "utrera_mean_mpl"])]
    piv = rd.pivot_table(index=["trace", "reading"], columns="metric", values="mean").reset_index()
    return ["### Candidate orders: values", "",
            to_markdown(orders.assign(mean=orders["mean"].round(4), ci95=orders["ci95"].round(4))),
            "",
            "### Time-model readings: values (means over OV seeds)", "",
            to_markdown(piv), "",
            "Readings: " + "; ".join(f"`{k}` = {json.dumps(v, sort_keys=True)}"
                                    for k, v in sorted(set(zip(rd["reading"], rd["params"])))),
            ""]


def _read_optional(path) -> pd.DataFrame | None:
    """A CSV table, or None when not given or empty (no rows: no reading ran there)."""
    if not path:
        return None
    df = pd.read_csv(path)
    return df if len(df) else None


def readme(ctx) -> None:
    """Step ``utrera_readme``: write ``paper_figures/utrera/README.md``.

    Inputs: ``claims`` (step ``utrera_claims``), the CSV tables ``gains``,
    ``orders`` and ``readings`` of the figure steps, the other readings'
    rows off the traces (``fig2_readings``, ``table1_readings``,
    ``long_util_readings``: the reading x claim matrix,
    :func:`R.reading_verdicts <simlib.studies.utrera.claims.reading_verdicts>`), ``published``, and
    ``others`` (every other artifact, so the README is rebuilt after them). Parameters: ``published`` (its
    path as configured), ``scale``, ``scale_description``, ``portions``,
    ``table1_seeds``, ``ov_seeds``, ``long_util_values``, ``scale_plan``
    (what each scale runs, :func:`scale_lines`), ``long_util_trace``, ``readings``
    (name -> policy label of each other reading) and ``artifacts`` (the
    study's index entries, listed at the end).
    """
    p, inp = ctx.params, ctx.input
    out = Path(ctx.output.readme)
    pub = load_published(inp.published)
    gains = pd.read_csv(inp.gains)
    readings = pd.read_csv(inp.readings)
    orders = pd.read_csv(inp.orders)
    claims = read_claims(inp.claims)
    # Every claim again under each other reading of the time model.
    rv = R.reading_verdicts(
        claims, pub, p["readings"], traces=readings, gains=gains,
        fig2=_read_optional(inp.get("fig2_readings")),
        table1=_read_optional(inp.get("table1_readings")),
        long_util=_read_optional(inp.get("long_util_readings")))
    alt = {name: dict(zip(g["claim"], g["verdict"])) for name, g in rv.groupby("reading", sort=False)}
    how = {c: h for c, h in zip(rv["claim"], rv["how"]) if h in ("policy-free", R.MAIN_ONLY)}
    counts = verdict_counts(claims["verdict"])
    single = p.get("single_readings", list(alt))
    lines = _header(p, counts) + _verdict_table(claims, {k: v for k, v in alt.items()
                                                         if k in single})
    lines += _matrix(claims, alt, gains, p, how)
    lines += ["", "## Published vs reproduced, artifact by artifact", ""]
    made = {os.path.basename(a["path"]) for a in p["artifacts"]}
    for title, pngs, md in SECTIONS:
        if md and md not in made:  # a table not built at this scale
            continue
        lines += [f"### {title}", ""]
        for png in pngs:
            lines += [f"![{title}]({png})", ""]
        if md:
            lines += [md_file(out.parent / md), f"Source: [`{md}`]({md}).", ""]
    lines += _values(orders, readings)
    lines += [DISCUSSION, INTERPRETATION, "## All artifacts", ""]
    lines += [f"- {_link(a['path'], out.parent)} — {a['title']}" for a in p["artifacts"]]
    lines += ["", TRACES_NOTE, ""]
    write_text(out, "\n".join(lines), encoding="utf-8")
    ctx.log.info("verdicts: %s", counts)
