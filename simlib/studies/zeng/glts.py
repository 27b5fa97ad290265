"""Paper Z part 2 in the pipeline: G-LOMARC-TS and its variants beside SSP (Figs. 6-7, §5.2).

Steps ``zeng_aggregate_glts`` (the cube, dims (workload, scheduler, seed):
SSP from the part-1 runs of the multi-core machine, every variant from
``zeng_simulate_glts``; the same workloads and seeds, so every comparison
is paired by seed) and ``zeng_figures_glts`` (Fig. 6: RR of all, medium
and long jobs per scheduler; Fig. 7: core utilization in high-load phases;
the headline numbers of §5.2-§5.3 beside the printed ones). The verdicts on
them are :func:`headline_claims` (called by the claims step).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from simlib.claims import Claim, Verdict, verdict_from_hits
from simlib.cube import provenance, write_cube
from simlib.figures.common import footer, new_figure, save_figure
from simlib.io import write_csv, write_text
from simlib.markdown import markdown_table
from simlib.stats import mean_ci

from .cubes import build, ci_text
from .published import load_published

__all__ = ["SCHEDULERS", "records", "improvements", "headline_table", "headline_claims",
           "counter_claims",
           "aggregate_step", "figures_step"]

#: Display order: SSP (part 1), then the variants.
SCHEDULERS = ("SSP", "GLTS", "CST", "CSTWS", "FBO", "NS", "NH")
_CLASSES = ("medium", "long", "all")
DIMS = ["workload", "scheduler", "seed"]


def records(ssp: list[dict], glts: list[dict]) -> list[dict]:
    """One record per (workload, scheduler, seed) from the two kinds of summaries."""
    out = []
    for s in ssp:
        if s.get("machine", "multicore") != "multicore":
            continue
        out.append({"workload": s["workload"], "scheduler": "SSP", "seed": int(s["seed"]),
                    **{k: v for k, v in s.items() if k not in ("workload", "seed", "machine")
                       and not k.startswith("simulated_")}})
    for g in glts:
        for variant, metrics in g["variants"].items():
            out.append({"workload": g["workload"], "scheduler": variant, "seed": int(g["seed"]),
                        **metrics})
    # Group counters do not exist for SSP: NaN there.
    keys = sorted({k for r in out for k in r})
    return [{k: r.get(k, float("nan")) for k in keys} for r in out]


def improvements(cube: xr.Dataset, workload: str, other: str, var: str,
                 higher_is_better: bool = False) -> np.ndarray:
    """Per seed, GLTS's improvement over ``other`` in percent (paired by seed).

    Lower-is-better metrics (RR): ``100 (other - GLTS) / other``; higher-is-
    better ones (utilization): ``100 (GLTS - other) / other``.

    Examples
    --------
    >>> recs = [{"workload": "W1", "scheduler": s, "seed": 0, "rr_all": v}
    ...         for s, v in (("SSP", 10.0), ("GLTS", 6.0))]
    >>> improvements(build(recs, dims=DIMS), "W1", "SSP", "rr_all").tolist()
    [40.0]
    """
    new = cube[var].sel(workload=workload, scheduler="GLTS").values.astype(float)
    base = cube[var].sel(workload=workload, scheduler=other).values.astype(float)
    return 100.0 * ((new - base) if higher_is_better else (base - new)) / base


def _row(quantity: str, printed, values, workload: str) -> dict:
    """A headline row: ours as mean ± 95 % CI (one decimal) beside the printed value."""
    m, _, text = ci_text(values, ".1f", ".1f")
    return {"quantity": quantity, "printed": printed, "ours": text, "ours_mean": m,
            "workload": workload}


def headline_table(cube: xr.Dataset, pub: dict, workload: str = "W1") -> pd.DataFrame:
    """§5.2-§5.3's numbers, ours (mean ± 95 % CI over seeds) beside the printed."""
    h = pub["headline"]
    rows = []
    for other, key in (("SSP", "glts_vs_ssp"), ("CST", "glts_vs_cst"), ("CSTWS", "glts_vs_cstws")):
        for c in _CLASSES:
            imp = improvements(cube, workload, other, f"rr_{c}")
            rows.append(_row(f"RR improvement of GLTS vs {other}, {c} jobs (%)", h[key][c], imp,
                             workload))
    for other in ("SSP", "CST", "CSTWS"):
        imp = improvements(cube, workload, other, "u_core_high", higher_is_better=True)
        rows.append(_row(f"U_core in high-load phases, GLTS vs {other} (% more)",
                         h["core_utilization_gain_high_load"][other.lower()], imp, workload))
    g = cube.sel(scheduler="GLTS")
    for w in cube["workload"].values.tolist():
        for var, label, key in (("jobs_per_group", "jobs per group", "jobs_per_group"),
                                ("groups", "groups formed", "groups")):
            rows.append(_row(f"{label} ({w})", h[key].get(w, np.nan),
                             g[var].sel(workload=w).values, w))
    for var, label, printed in (
            ("eligible_in_groups", "eligible (medium + long) jobs run in a group (%)",
             h["eligible_in_groups"]),
            ("candidates_below_4", "decisions with fewer than 4 candidates (%)",
             h["candidates_below_4"]),
            ("delay_p75_ml", "delay factor R / R_est, 75th percentile",
             h["delay_factor_percentiles"]["p75"]),
            ("delay_p95_ml", "delay factor R / R_est, 95th percentile",
             h["delay_factor_percentiles"]["p95"])):
        rows.append(_row(f"{label} ({workload})", printed, g[var].sel(workload=workload).values,
                         workload))
    return pd.DataFrame(rows)


def _improvement_claim(cube, pub, statement, source, other, printed, tol, var_of,
                       higher_is_better=False, classes=_CLASSES, other_of=None) -> Claim:
    """One verdict over several cases (job classes, or the schedulers compared
    against with ``other_of``), each paired by seed."""
    hits = better = worse = 0
    parts = []
    for c in classes:
        vs = other if other_of is None else other_of(c)
        imp = improvements(cube, "W1", vs, var_of(c), higher_is_better)
        m, h, _ = mean_ci(imp)
        p = printed[c]
        close = abs(m - p) <= tol or (np.isfinite(h) and abs(m - p) <= h)
        better += bool((imp > 0).all())
        worse += bool((imp < 0).all())
        hits += bool(close and (imp > 0).all())
        parts.append(f"{c} {m:.1f}" + ("" if np.isnan(h) else f" ± {h:.1f}"))
    n = len(classes)
    if hits == n:
        verdict = Verdict.REPRODUCED
    elif better:
        verdict = Verdict.PARTLY
    elif worse == n:
        verdict = Verdict.CONTRADICTED
    else:
        verdict = Verdict.NOT_REPRODUCED
    return Claim("zeng", statement, source, " / ".join(f"{c} {printed[c]:g}" for c in classes) + " %",
                 "; ".join(parts) + " % (W1, mean ± 95 % CI over seeds)",
                 f"per case, paired by seed: GLTS better in every seed and the mean within {tol:g} "
                 "points (or the CI) of the printed value: a hit; all hits: reproduced; better in "
                 "every seed for some class: partly; worse in every seed for all: contradicted; "
                 "else not reproduced", verdict, figure="headline.md")


def headline_claims(cube: xr.Dataset, pub: dict, tol: float) -> list[Claim]:
    """The verdicts on §5.2's headline comparisons (W1)."""
    h = pub["headline"]
    out = []
    for other, key in (("SSP", "glts_vs_ssp"), ("CST", "glts_vs_cst"), ("CSTWS", "glts_vs_cstws")):
        out.append(_improvement_claim(
            cube, pub, f"GLTS improves RR over {other} by {h[key]['medium']} / {h[key]['long']} / "
            f"{h[key]['all']} % (medium / long / all jobs), W1", "§5.2, Fig. 6", other, h[key], tol,
            lambda c: f"rr_{c}"))
    cu = h["core_utilization_gain_high_load"]
    out.append(_improvement_claim(
        cube, pub, f"GLTS raises core utilization in high-load phases by {cu['ssp']} % vs SSP, "
        f"{cu['cst']} % vs CST, {cu['cstws']} % vs CSTWS, W1", "§5.2, Fig. 7", None,
        {"SSP": cu["ssp"], "CST": cu["cst"], "CSTWS": cu["cstws"]}, tol,
        lambda c: "u_core_high", higher_is_better=True, classes=("SSP", "CST", "CSTWS"),
        other_of=lambda c: c))
    return out


def _near(values, printed: float, tol: float, relative: bool) -> tuple[bool, str]:
    """Mean over seeds within ``tol`` of ``printed`` (relative or absolute), or the 95 % CI holding it."""
    m, h, text = ci_text(values, ".3g", ".2g")
    close = abs(m - printed) <= (tol * abs(printed) if relative else tol)
    inside = bool(np.isfinite(h) and abs(m - printed) <= h)
    return bool(close or inside), text


def counter_claims(cube: xr.Dataset, pub: dict, tol: float, delay_tol: float) -> list[Claim]:
    """The verdicts on §5.2-§5.3's counters: groups, jobs per group, eligible share,
    candidates per decision, delay factors (GLTS).

    Each case: the mean over seeds within the tolerance of the printed value
    (``tol`` relative for counts and shares, ``delay_tol`` absolute for delay
    factors), or the printed value inside the 95 % CI: a hit. All hits:
    reproduced; some: partly; none: not reproduced.
    """
    h = pub["headline"]
    g = cube.sel(scheduler="GLTS")
    workloads = cube["workload"].values.tolist()
    rule = ("per case: the mean over seeds within {t} of the printed value, or the printed value "
            "inside the 95 % CI over seeds: a hit; all hits: reproduced; some: partly; none: not "
            "reproduced")
    specs = [
        ("G-LOMARC-TS forms groups of 2.5 jobs (W1) and 2.6 jobs (W2) on average", "§5.2-§5.3",
         "jobs_per_group", {w: h["jobs_per_group"][w] for w in workloads if w in h["jobs_per_group"]},
         tol, True),
        ("G-LOMARC-TS forms about 1,500 groups under W1 and about 2,000 under W2 (10,000 jobs)",
         "§5.2-§5.3", "groups", {w: h["groups"][w] for w in workloads if w in h["groups"]}, tol, True),
        (f"{h['eligible_in_groups']} % of the eligible (medium and long) jobs run in a group (W1)",
         "§5.2", "eligible_in_groups", {"W1": h["eligible_in_groups"]}, tol, True),
        (f"The number of matchmaking candidates is below 4 in {h['candidates_below_4']} % of the "
         "decisions (W1)", "§5.3", "candidates_below_4", {"W1": h["candidates_below_4"]}, tol, True),
        (f"Delay factors R / R_est of medium and long jobs: 75th percentile "
         f"{h['delay_factor_percentiles']['p75']}, 95th {h['delay_factor_percentiles']['p95']} (W1)",
         "§5.2", None, {"delay_p75_ml": h["delay_factor_percentiles"]["p75"],
                        "delay_p95_ml": h["delay_factor_percentiles"]["p95"]}, delay_tol, False),
    ]
    out = []
    for statement, source, var, printed, t, relative in specs:
        hits, parts = 0, []
        for key, value in printed.items():
            if var is None:   # cases are variables (W1)
                vals, label = g[key].sel(workload="W1").values, key
            elif key not in workloads:
                continue
            else:
                vals, label = g[var].sel(workload=key).values, key
            ok, text = _near(vals, float(value), t, relative)
            hits += ok
            parts.append(f"{label}: {text} (printed {value})")
        tol_text = f"{t:g} x the printed value" if relative else f"{t:g}"
        out.append(Claim("zeng", statement, source,
                         ", ".join(f"{k} {v}" for k, v in printed.items()),
                         "; ".join(parts) + " (mean ± 95 % CI over seeds)",
                         rule.format(t=tol_text), verdict_from_hits(hits, len(parts)),
                         figure="headline.md"))
    return out


def aggregate_step(ctx, repo=None) -> None:
    """Step ``zeng_aggregate_glts``: inputs ``ssp`` and ``glts`` summaries; output ``cube``."""
    ssp = [json.loads(Path(p).read_text()) for p in ctx.input.ssp]
    glts = [json.loads(Path(p).read_text()) for p in ctx.input.glts]
    subtree = ctx.params["subtree"]
    attrs = provenance(subtree, repo_dir=repo)
    attrs.update({"study": "zeng", "experiment": "glts", "scale": subtree["scale"],
                  "title": f"paper Z (Zeng & Sodan), G-LOMARC-TS variants and SSP, "
                           f"{subtree['scale']} scale",
                  "config_subtree": json.dumps(subtree, sort_keys=True)})
    cube = build(records(ssp, glts), attrs, dims=DIMS)
    cube = cube.reindex(scheduler=[s for s in SCHEDULERS if s in cube["scheduler"].values])
    cube["scheduler"].attrs["long_name"] = ("scheduler: SSP (space sharing) or a G-LOMARC-TS "
                                            "variant (paper Z §5.1)")
    write_cube(cube, ctx.output.cube)
    ctx.log.info("cube %s: dims %s", ctx.output.cube, dict(cube.sizes))


def _bars(ax, cube, workload, variables, labels):
    schedulers = cube["scheduler"].values.tolist()
    x = np.arange(len(variables))
    width = 0.8 / len(schedulers)
    for k, s in enumerate(schedulers):
        stats = [mean_ci(cube[v].sel(workload=workload, scheduler=s).values) for v in variables]
        ax.bar(x + (k - (len(schedulers) - 1) / 2) * width, [m for m, _, _ in stats], width,
               yerr=[0 if np.isnan(h) else h for _, h, _ in stats], capsize=2, label=s)
    ax.set_xticks(x, labels)


def figures_step(ctx) -> None:
    """Step ``zeng_figures_glts``: Figs. 6 and 7 and the headline table."""
    p, out = ctx.params, ctx.output
    pub = load_published(ctx.input.published)
    cube = xr.load_dataset(ctx.input.cube)
    note = (f"scale {p['scale']}: {p['jobs']} jobs, seeds {', '.join(map(str, p['seeds']))}; "
            f"RR bound {p['rr_bound']:g} s; mean and 95 % CI over seeds")
    fig = new_figure(8, 3.8)
    ax = fig.add_subplot()
    _bars(ax, cube, "W1", [f"rr_{c}" for c in ("all", "medium", "long")],
          ["all jobs", "medium jobs", "long jobs"])
    ax.set_ylabel("average bounded relative response time RR")
    ax.set_title("Fig. 6 (ours): RR per scheduler and G-LOMARC-TS variant, workload W1", fontsize=10)
    ax.legend(fontsize=7, ncol=4)
    footer(fig, note)
    save_figure(fig, out.fig6)
    fig = new_figure(6.5, 3.6)
    ax = fig.add_subplot()
    _bars(ax, cube, "W1", ["u_core_high"], ["high-load phases (N_wait >= 12)"])
    ax.set_ylabel("core utilization U_core")
    ax.set_title("Fig. 7 (ours): core utilization in high-load phases, W1", fontsize=10)
    ax.legend(fontsize=7, ncol=4)
    footer(fig, note)
    save_figure(fig, out.fig7)
    table = headline_table(cube, pub)
    write_csv(table, out.headline_csv, index=False)
    write_text(out.headline_md, "# Paper Z: §5.2-§5.3's headline numbers beside ours\n\n"
               f"{note}. Improvements are paired by seed (the same workloads for every "
               "scheduler). The printed values are reference data "
               "(`config/published/zeng.yaml`, `headline`).\n\n"
               + markdown_table(table, columns=["quantity", "printed", "ours"]))
