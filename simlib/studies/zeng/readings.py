"""Paper Z's reading x claim matrix: G-LOMARC-TS's claims under every reading of group matchmaking.

Our group matchmaking can be read from §4.4-§4.9 in several ways
(:data:`simlib.policies.glomarc_ts.READINGS`, each a switch). The grid's
``glts.matchmaking`` is the main reading; ``glts.readings`` names the
alternatives, each run on every (workload, seed) by ``zeng_simulate_reading``
(SSP and the main reading come from the part-1 and ``zeng_simulate_glts``
runs, so every reading is paired with them by seed). Steps
``zeng_aggregate_readings`` (the cube, dims (reading, workload, scheduler,
seed)) and ``zeng_figures_readings`` (the matrix: every G-LOMARC-TS claim of
:func:`.glts.headline_claims` and :func:`.glts.counter_claims` judged under
each reading by the same rules, with the group counters and the RR
improvements beside them; the words are ``templates/readings.md.j2``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from simlib.claims import Verdict
from simlib.io import write_csv, write_text
from simlib.render import render

from .cubes import build, read_summaries, write
from .glts import SCHEDULERS, counter_claims, headline_claims, improvements, records
from .published import load_published

__all__ = ["DIMS", "MAIN", "reading_records", "matrix", "recovers", "switch_text", "aggregate_step",
           "figures_step"]

DIMS = ["reading", "workload", "scheduler", "seed"]
#: The main reading's name in the cube and the matrix.
MAIN = "main"
#: The claims that make "the paper's group statistics" and "GLTS better than
#: CST and CSTWS" (a reading recovers one when all of its claims are reproduced).
GROUP_CLAIMS = ("counter_groups", "counter_jobs_per_group", "counter_eligible_in_groups")
OVER_PAIRS_CLAIMS = ("improvement_rr_cst", "improvement_rr_cstws")


def reading_records(ssp: list[dict], main: list[dict], readings: list[dict],
                    variants: list[str]) -> list[dict]:
    """One record per (reading, workload, scheduler, seed): SSP's runs under every
    reading (SSP forms no groups), the main runs' ``variants`` as reading
    :data:`MAIN`, each alternative's own runs."""
    names = [MAIN] + sorted({r["reading"] for r in readings})
    keep = [{**g, "variants": {v: m for v, m in g["variants"].items() if v in variants}} for g in main]
    out = []
    for name in names:
        runs = keep if name == MAIN else [r for r in readings if r["reading"] == name]
        out += [{**rec, "reading": name} for rec in records(ssp, runs)]
    return out


def aggregate_step(ctx, repo=None) -> None:
    """Step ``zeng_aggregate_readings``: inputs ``ssp``, ``glts`` and ``readings`` summaries."""
    p = ctx.params
    subtree = p["subtree"]
    recs = reading_records(read_summaries(ctx.input.ssp), read_summaries(ctx.input.glts),
                           read_summaries(ctx.input.readings), p["variants"])
    cube = build(recs, dims=DIMS, subtree=subtree, repo=repo, attrs=dict(
        experiment="readings", scale=subtree["scale"],
        title=f"paper Z (Zeng & Sodan), G-LOMARC-TS under every reading of group matchmaking, "
              f"{subtree['scale']} scale"))
    cube = cube.reindex(reading=list(dict.fromkeys([MAIN, *p["readings"]])),
                        scheduler=[s for s in SCHEDULERS if s in cube["scheduler"].values])
    cube["reading"].attrs["long_name"] = ("reading of group matchmaking: main = glts.matchmaking, "
                                          "else an alternative of glts.readings")
    write(cube, ctx)


def _mean(values) -> float:
    v = np.asarray(values, dtype=float)
    return float(np.nanmean(v)) if v.size and not np.all(np.isnan(v)) else float("nan")


def matrix(cube: xr.Dataset, pub: dict, thresholds: dict, readings: dict) -> pd.DataFrame:
    """The matrix as data: one row per (reading, claim) with the verdict, our value's
    text, and the reading's counters and RR improvements (W1 unless named).

    ``readings``: name -> the switches it changes (the main reading: none).
    """
    rows = []
    t = thresholds
    for name in cube["reading"].values.tolist():
        sub = cube.sel(reading=name)
        found = (headline_claims(sub, pub, t["improvement_tolerance"], t["utilization_tolerance"])
                 + counter_claims(sub, pub, t["counter_tolerance"], t["delay_tolerance"],
                                  t.get("groups_reading", "grouped_jobs")))
        g = sub.sel(scheduler="GLTS")
        stats = {"changes": ", ".join(f"{k} = {switch_text(v)}" for k, v in readings.get(name, {}).items()),
                 **{f"{var}_{w}": _mean(g[var].sel(workload=w).values)
                    for var in ("groups", "grouped_jobs", "jobs_per_group", "eligible_in_groups")
                    for w in sub["workload"].values.tolist()},
                 **{f"rr_all_vs_{o.lower()}": _mean(improvements(sub, "W1", o, "rr_all"))
                    for o in ("SSP", "CST", "CSTWS")}}
        for c in found:
            rows.append({"reading": name, "claim": c.key, "statement": c.claim,
                         "verdict": c.verdict.value, "ours": c.ours, **stats})
    return pd.DataFrame(rows)


def switch_text(v) -> str:
    """A switch's value as typed in the grid (YAML): ``null``, ``true``, ``1.1``."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return format(v, "g") if isinstance(v, float) else str(v)


def recovers(frame: pd.DataFrame, claims: tuple[str, ...]) -> list[str]:
    """The readings under which every claim of ``claims`` is reproduced (mechanical).

    Examples
    --------
    >>> f = pd.DataFrame({"reading": ["main", "main", "a", "a"], "claim": ["x", "y", "x", "y"],
    ...                   "verdict": ["reproduced", "not reproduced", "reproduced", "reproduced"]})
    >>> recovers(f, ("x", "y"))
    ['a']
    """
    out = []
    for name, rows in frame.groupby("reading", sort=False):
        got = rows[rows["claim"].isin(claims)]
        if len(got) == len(claims) and (got["verdict"] == Verdict.REPRODUCED.value).all():
            out.append(name)
    return out


def figures_step(ctx) -> None:
    """Step ``zeng_figures_readings``: ``readings.csv`` (the matrix as data) and ``readings.md``."""
    p, out = ctx.params, ctx.output
    cube = xr.load_dataset(ctx.input.cube)
    pub = load_published(ctx.input.published)
    frame = matrix(cube, pub, p["thresholds"], p["readings"])
    write_csv(frame, out.csv, index=False)
    claims = list(dict.fromkeys(frame["claim"]))
    table = frame.pivot(index="reading", columns="claim", values="verdict")
    table = table.reindex(index=list(dict.fromkeys(frame["reading"])), columns=claims)
    stats = frame.drop_duplicates("reading").set_index("reading")
    write_text(out.md, render(
        __package__, "readings.md.j2", table=table, stats=stats, claims=claims,
        statements=dict(zip(frame["claim"], frame["statement"])), main=MAIN,
        matchmaking=p["matchmaking"], workloads=p["workloads"], seeds=p["seeds"], jobs=p["jobs"],
        scale=p["scale"], recovers_groups=recovers(frame, GROUP_CLAIMS),
        recovers_over_pairs=recovers(frame, OVER_PAIRS_CLAIMS), group_claims=GROUP_CLAIMS,
        over_pairs_claims=OVER_PAIRS_CLAIMS, pub=pub))
