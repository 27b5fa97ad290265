"""Paper Z part 2 in the pipeline: G-LOMARC-TS and its variants beside SSP (Figs. 6-7, §5.2).

Steps ``zeng_aggregate_glts`` (the cube, dims (workload, scheduler, seed):
SSP from the part-1 runs of the multi-core machine, every variant from
``zeng_simulate_glts``; the same workloads and seeds, so every comparison
is paired by seed) and ``zeng_figures_glts`` (Fig. 6: RR of all, medium
and long jobs per scheduler; Fig. 7: core utilization in high-load phases;
the headline numbers of §5.2-§5.3 beside the printed ones). The verdicts on
them are :func:`headline_claims` and :func:`counter_claims` (called by the
claims step).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from simlib.claims import Claim, Verdict, combine_cases
from simlib.figures.common import footer, new_figure, save_figure
from simlib.io import write_csv, write_text
from simlib.render import render, render_string, template_data

from .cubes import build, ci_text, read_summaries, write
from .figures import bars
from .published import load_published
from .verdicts import spread as _spread
from .verdicts import value_case
from .words import SEED_UNIT, claim

__all__ = ["SCHEDULERS", "records", "improvements", "headline_table", "headline_claims",
           "counter_claims", "aggregate_step", "figures_step"]

#: Display order: SSP (part 1), then the variants.
SCHEDULERS = ("SSP", "GLTS", "CST", "CSTWS", "FBO", "NS", "NH")
_CLASSES = ("medium", "long", "all")
_VS = ("SSP", "CST", "CSTWS")
DIMS = ["workload", "scheduler", "seed"]


def records(ssp: list[dict], glts: list[dict]) -> list[dict]:
    """One record per (workload, scheduler, seed) from the two kinds of summaries."""
    out = [{"workload": s["workload"], "scheduler": "SSP", "seed": int(s["seed"]),
            **{k: v for k, v in s.items() if k not in ("workload", "seed", "machine")
               and not k.startswith("simulated_")}}
           for s in ssp if s.get("machine", "multicore") == "multicore"]
    out += [{"workload": g["workload"], "scheduler": variant, "seed": int(g["seed"]), **metrics}
            for g in glts for variant, metrics in g["variants"].items()]
    # Group counters do not exist for SSP: NaN there.
    keys = sorted({k for r in out for k in r})
    return [{k: r.get(k, float("nan")) for k in keys} for r in out]


def improvements(cube: xr.Dataset, workload: str, other: str, var: str,
                 higher_is_better: bool = False) -> np.ndarray:
    """Per seed, GLTS's improvement over ``other`` in percent (paired by seed).

    Lower-is-better metrics (RR): ``100 (other - GLTS) / other``; higher-is-
    better ones (utilization): ``100 (GLTS - other) / other``."""
    new = cube[var].sel(workload=workload, scheduler="GLTS").values.astype(float)
    base = cube[var].sel(workload=workload, scheduler=other).values.astype(float)
    return 100.0 * ((new - base) if higher_is_better else (base - new)) / base


def headline_table(cube: xr.Dataset, pub: dict, workload: str = "W1") -> pd.DataFrame:
    """§5.2-§5.3's numbers, ours (mean ± 95 % CI over seeds) beside the printed.

    Row labels: ``labels.yaml``'s ``headline``.
    """
    h, label = pub["headline"], template_data(__package__, "labels.yaml")["headline"]
    rows = []

    def row(key, printed, values, w=workload, **names):
        m, _, text = ci_text(values, ".1f", ".1f")
        rows.append({"quantity": render_string(label[key], w=w, **names), "printed": printed,
                     "ours": text, "ours_mean": m, "workload": w})
    for other in _VS:
        for c in _CLASSES:
            row("rr", h[f"glts_vs_{other.lower()}"][c],
                improvements(cube, workload, other, f"rr_{c}"), other=other, cls=c)
    for other in _VS:
        row("u_core_high", h["core_utilization_gain_high_load"][other.lower()],
            improvements(cube, workload, other, "u_core_high", higher_is_better=True), other=other)
    g = cube.sel(scheduler="GLTS")
    for w in cube["workload"].values.tolist():
        for var in ("jobs_per_group", "groups"):
            row(var, h[var].get(w, np.nan), g[var].sel(workload=w).values, w)
    for var, printed in (("eligible_in_groups", h["eligible_in_groups"]),
                         ("candidates_below_4", h["candidates_below_4"]),
                         ("delay_p75_ml", h["delay_factor_percentiles"]["p75"]),
                         ("delay_p95_ml", h["delay_factor_percentiles"]["p95"])):
        row(var, printed, g[var].sel(workload=workload).values)
    return pd.DataFrame(rows)


def _improvement_claim(cube, key, printed, tol, var_of, other_of, higher_is_better=False,
                       template="improvement_rr", **texts) -> Claim:
    """One verdict over several cases (the keys of ``printed``: job classes, or the
    schedulers compared against), each the improvement of GLTS paired by seed
    (:func:`improvements`), judged by :func:`.verdicts.value_case` with a
    direction (a gain); the cases by the majority rule."""
    cases, parts, spread = [], [], 0.0
    for c, p in printed.items():
        imp = improvements(cube, "W1", other_of(c), var_of(c), higher_is_better)
        v, m, h, n = value_case(imp, p, tol, direction=1)
        cases.append(v)
        parts.append((c, m, None if np.isnan(h) else h, v.value))
        spread = max(spread, _spread(imp))
    return claim(template, combine_cases(cases), key=key, unit=SEED_UNIT, n=n, printed=printed,
                 parts=parts, tol=tol, spread=spread, **texts)


def headline_claims(cube: xr.Dataset, pub: dict, tol: float, u_tol: float | None = None) -> list[Claim]:
    """The verdicts on §5.2's headline comparisons (W1): RR improvements within ``tol``
    points, core-utilization gains within ``u_tol`` points (default ``tol``)."""
    h = pub["headline"]
    seeds = pub["table5"]["seeds"]
    out = [_improvement_claim(cube, f"improvement_rr_{o.lower()}",
                              {c: h[f"glts_vs_{o.lower()}"][c] for c in _CLASSES},
                              tol, lambda c: f"rr_{c}", lambda c, o=o: o, other=o, paper_seeds=seeds)
           for o in _VS]
    gain = h["core_utilization_gain_high_load"]
    out.append(_improvement_claim(cube, "improvement_u_core", {o: gain[o.lower()] for o in _VS},
                                  tol if u_tol is None else u_tol, lambda c: "u_core_high",
                                  lambda c: c, higher_is_better=True, template="improvement_u_core",
                                  paper_seeds=seeds))
    return out


#: The least size of a group (a primary job and at least one matched job):
#: "jobs per group" is judged on the jobs beyond it.
MIN_GROUP = 2


#: How §5.2-§5.3's "about 1,500 groups" is read: as grouped jobs (the paper's
#: own arithmetic: 41.7 % of the 36 % x 10,000 = 3,600 eligible jobs is
#: 1,501 jobs) or literally as groups.
GROUPS_READINGS = {"grouped_jobs": "grouped_jobs", "groups": "groups"}


def groups_arithmetic(pub: dict) -> dict:
    """The paper's numbers behind the grouped-jobs reading: eligible jobs, the grouped
    jobs 41.7 % of them make, and the groups that would be at the printed group size.

    Examples
    --------
    >>> pub = {"headline": {"eligible_share": 36, "eligible_in_groups": 41.7,
    ...                     "jobs_per_group": {"W1": 2.5}, "groups": {"W1": 1500}},
    ...        "table5": {"jobs": 10000}}
    >>> a = groups_arithmetic(pub)
    >>> a["eligible"], round(a["grouped"]), a["groups_at_size"]["W1"]
    (3600.0, 1501, 600.0)
    """
    h = pub["headline"]
    eligible = h["eligible_share"] / 100.0 * pub["table5"]["jobs"]
    return {"eligible": eligible, "grouped": h["eligible_in_groups"] / 100.0 * eligible,
            "groups_at_size": {w: h["groups"][w] / h["jobs_per_group"][w] for w in h["groups"]
                               if w in h["jobs_per_group"]}}


def counter_claims(cube: xr.Dataset, pub: dict, tol: float, delay_tol: float,
                   groups_reading: str = "grouped_jobs") -> list[Claim]:
    """The verdicts on §5.2-§5.3's counters of GLTS (criterion: ``claims.yaml``'s
    ``counter_*``), per case :func:`.verdicts.value_case`: ``tol`` x the printed
    value for counts and shares (for jobs per group: x the printed jobs beyond
    :data:`MIN_GROUP`, the quantity the claim is about), ``delay_tol`` absolute
    for delay factors; the cases (workloads, percentiles) by the majority rule.

    ``groups_reading`` (:data:`GROUPS_READINGS`): the printed "groups" judged
    against our grouped jobs (default) or our groups. W2's "about 25 % more"
    is judged on the same quantity, paired by seed."""
    h = pub["headline"]
    g = cube.sel(scheduler="GLTS")
    workloads = cube["workload"].values.tolist()
    delays = {f"delay_{k}_ml": v for k, v in h["delay_factor_percentiles"].items()}
    groups_var = GROUPS_READINGS[groups_reading]
    out = []
    for var, printed in (("jobs_per_group", {w: h["jobs_per_group"][w] for w in workloads
                                             if w in h["jobs_per_group"]}),
                         ("groups", {w: h["groups"][w] for w in workloads if w in h["groups"]}),
                         ("eligible_in_groups", {"W1": h["eligible_in_groups"]}),
                         ("candidates_below_4", {"W1": h["candidates_below_4"]}),
                         ("delay", delays)):
        relative = var != "delay"
        shift = MIN_GROUP if var == "jobs_per_group" else 0.0
        parts, cases, n, spread = [], [], 0, 0.0
        for key, value in printed.items():   # cases: workloads, or (delay) variables of W1
            if relative and key not in workloads:
                continue
            data = groups_var if var == "groups" else var
            vals = (g[data].sel(workload=key) if relative else g[key].sel(workload="W1")).values
            allowed = tol * (float(value) - shift) if relative else delay_tol
            v, m, hw, n = value_case(vals, float(value), allowed, shift=shift)
            cases.append(v)
            spread = max(spread, _spread(vals) / (abs(m) if relative and var != "jobs_per_group"
                                                  and m else 1.0))
            text = ci_text(vals, ".3g", ".2g")[2]
            parts.append((key, v.value, text, value, m - shift, allowed))
        out.append(claim(f"counter_{var}", combine_cases(cases), unit=SEED_UNIT, n=n, h=h,
                         printed=printed, parts=parts, relative=relative, shift=shift,
                         tol=tol if relative else delay_tol, spread=spread,
                         paper_seeds=pub["table5"]["seeds"], jobs=pub["table5"]["jobs"],
                         groups_reading=groups_reading, arithmetic=groups_arithmetic(pub)))
    if {"W1", "W2"} <= set(workloads) and "w2_more_groups" in h:
        # Paired by seed: W2's and W1's workloads of one seed share their random streams.
        w1, w2 = (g[groups_var].sel(workload=w).values.astype(float) for w in ("W1", "W2"))
        # A seed whose W1 run formed no group has no ratio (a tiny workload may).
        more = 100.0 * (w2[w1 > 0] / w1[w1 > 0] - 1.0)
        printed = float(h["w2_more_groups"])
        allowed = tol * printed
        v, m, hw, n = value_case(more, printed, allowed)
        if not more.size:   # no seed to judge on
            v = Verdict.INCONCLUSIVE
        out.append(claim("counter_w2_more", v, unit=SEED_UNIT, n=n, printed=printed, allowed=allowed,
                         ours=ci_text(more, ".1f", ".1f")[2], groups_reading=groups_reading, tol=tol,
                         spread=_spread(more), h=h,
                         printed_ratio=100.0 * (h["groups"]["W2"] / h["groups"]["W1"] - 1.0)))
    return out


def aggregate_step(ctx, repo=None) -> None:
    """Step ``zeng_aggregate_glts``: inputs ``ssp`` and ``glts`` summaries; output ``cube``."""
    subtree = ctx.params["subtree"]
    cube = build(records(read_summaries(ctx.input.ssp), read_summaries(ctx.input.glts)), dims=DIMS,
                 attrs=dict(experiment="glts", scale=subtree["scale"],
                            title=f"paper Z (Zeng & Sodan), G-LOMARC-TS variants and SSP, "
                                  f"{subtree['scale']} scale"), subtree=subtree, repo=repo)
    cube = cube.reindex(scheduler=[s for s in SCHEDULERS if s in cube["scheduler"].values])
    cube["scheduler"].attrs["long_name"] = ("scheduler: SSP (space sharing) or a G-LOMARC-TS "
                                            "variant (paper Z §5.1)")
    write(cube, ctx)


def _figure(cube, path, variables, labels, size, ylabel, title, note) -> None:
    fig = new_figure(*size)
    ax = fig.add_subplot()
    bars(ax, {s: [cube[v].sel(workload="W1", scheduler=s).values for v in variables]
              for s in cube["scheduler"].values.tolist()}, labels, capsize=2)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=4)
    footer(fig, note)
    save_figure(fig, path)


def figures_step(ctx) -> None:
    """Step ``zeng_figures_glts``: Figs. 6 and 7 and the headline table."""
    p, out = ctx.params, ctx.output
    cube = xr.load_dataset(ctx.input.cube)
    note = (f"scale {p['scale']}: {p['jobs']} jobs, seeds {', '.join(map(str, p['seeds']))}; "
            f"RR bound {p['rr_bound']:g} s; mean and 95 % CI over seeds")
    _figure(cube, out.fig6, [f"rr_{c}" for c in ("all", "medium", "long")],
            ["all jobs", "medium jobs", "long jobs"], (8, 3.8),
            "average bounded relative response time RR",
            "Fig. 6 (ours): RR per scheduler and G-LOMARC-TS variant, workload W1", note)
    _figure(cube, out.fig7, ["u_core_high"], ["high-load phases (N_wait >= 12)"], (6.5, 3.6),
            "core utilization U_core", "Fig. 7 (ours): core utilization in high-load phases, W1",
            note)
    table = headline_table(cube, load_published(ctx.input.published))
    write_csv(table, out.headline_csv, index=False)
    write_text(out.headline_md, render(__package__, "headline.md.j2", note=note, table=table))
