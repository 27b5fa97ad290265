"""Paper Z's parameter sweeps: RR against ``BLOCK_SIZE`` (Fig. 8, W2) and ``F_slack`` (Fig. 9, W1).

A sweep (grid ``studies.zeng.glts.sweeps.<parameter>``) names a G-LOMARC-TS
parameter, a workload, the variants drawn and the values run besides Table
6's. ``zeng_sweep`` runs one (value, seed) (:func:`.runs.glts_step`, so that
editing this module reruns no simulation); this module builds the cube
``results/zeng_<parameter>.<scale>.nc``, dims (variant, parameter, seed)
(:func:`aggregate_step`), draws Figs. 8-9 with a table per sweep
(:func:`figures_step`) and judges them (:func:`sweep_claims`).

The point at Table 6's value, and the variants whose runs do not depend on
the parameter (NH forms no blocks), come from the main runs of the same
workload and seeds (the README's interpretations): every point is paired
by seed with every other.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from simlib.claims import Claim, Verdict, combine_cases, paired_evidence, value_verdict
from simlib.figures.common import footer, new_figure, save_figure
from simlib.io import write_csv, write_text
from simlib.render import render
from simlib.stats import mean_ci

from . import SWEEP_PARAMETERS, depends, value_tag  # re-exported: the sweep's vocabulary
from .cubes import build, ci_text, read_summaries, write
from .verdicts import all_of
from .words import SEED_UNIT, claim

__all__ = ["SWEEP_PARAMETERS", "depends", "value_tag", "records", "aggregate_step",
           "sweep_table", "optimum_claim", "best_at_optimum_claim", "plateau_claim",
           "sweep_claims", "figures_step"]

_CLASSES = ("medium", "long", "all")
_ORDER = ("GLTS", "CST", "CSTWS", "FBO", "NS", "NH")


def records(parameter: str, published_value, variants, values, sweep: list[dict],
            main: list[dict], workload: str) -> list[dict]:
    """One record per (variant, value, seed).

    ``sweep`` holds the summaries of ``zeng_sweep``; ``main`` those of
    the main runs (``zeng_simulate_glts``), which give the point at the
    published value and, at every value, the variants that do not depend
    on the parameter."""
    cast = SWEEP_PARAMETERS[parameter][1]
    every = sorted({cast(v) for v in values} | {cast(published_value)})
    out = [{"variant": variant, parameter: cast(s["value"]), "seed": int(s["seed"]), **metrics}
           for s in sweep for variant, metrics in s["variants"].items()]
    out += [{"variant": variant, parameter: v, "seed": int(g["seed"]), **g["variants"][variant]}
            for g in main if g["workload"] == workload for variant in variants
            for v in ([cast(published_value)] if depends(variant, parameter) else every)]
    keys = sorted({k for r in out for k in r})
    out = [{k: r.get(k, float("nan")) for k in keys} for r in out]
    return sorted(out, key=lambda r: (_ORDER.index(r["variant"]), r[parameter], r["seed"]))


def aggregate_step(ctx, repo=None) -> None:
    """Step ``zeng_aggregate_sweep``: inputs ``sweep`` and ``main`` summaries; output ``cube``."""
    p = ctx.params
    parameter, subtree = p["parameter"], p["subtree"]
    recs = records(parameter, p["published_value"], p["variants"], p["values"],
                   read_summaries(ctx.input.sweep), read_summaries(ctx.input.main), p["workload"])
    constant = [v for v in p["variants"] if not depends(v, parameter)]
    cube = build(recs, dims=["variant", parameter, "seed"], subtree=subtree, repo=repo, attrs=dict(
        experiment=f"sweep of {parameter}", scale=subtree["scale"], parameter=parameter,
        workload=p["workload"], published_value=p["published_value"],
        constant_variants=", ".join(constant) or "none",
        title=f"paper Z (Zeng & Sodan), G-LOMARC-TS against {parameter}, "
              f"workload {p['workload']}, {subtree['scale']} scale"))
    cube = cube.reindex(variant=[v for v in _ORDER if v in cube["variant"].values])
    cube["variant"].attrs["long_name"] = "G-LOMARC-TS variant (paper Z §5.1)"
    cube[parameter].attrs["long_name"] = (f"{SWEEP_PARAMETERS[parameter][2]}; Table 6's value "
                                          f"{p['published_value']} from the main runs")
    write(cube, ctx)


# ------------------------------------------------------------------ verdicts
def _rr(cube: xr.Dataset, variant: str, value, cls: str) -> np.ndarray:
    param = cube.attrs["parameter"]
    return cube[f"rr_{cls}"].sel(variant=variant, **{param: value}).values.astype(float)


def optimum_claim(cube: xr.Dataset, printed) -> Claim:
    """The block size of lowest mean RR (GLTS) is the printed one, per class (medium,
    long; criterion: ``claims.yaml``'s ``optimum``); not testable when the printed value
    was not run.

    A class is a hit when the printed value has the lowest mean RR; otherwise
    the paired difference RR(best) - RR(printed) per seed decides
    (:func:`simlib.claims.paired_evidence`): significantly negative -- the
    printed value is worse -- is against the claim, not significant is
    inconclusive below ``MIN_UNITS`` seeds (a tie on few seeds is no
    evidence) and not reproduced from there. The classes by the majority rule.
    """
    param, workload = cube.attrs["parameter"], cube.attrs["workload"]
    values = cube[param].values.tolist()
    n = cube["seed"].size
    texts = dict(printed=printed, param=param, values=values, workload=workload)
    if printed not in values:
        return claim("optimum_not_run", Verdict.NOT_TESTABLE, key="optimum", unit=SEED_UNIT, n=n,
                     **texts)
    cases = []
    parts = []   # class, best value, its RR, verdict, then (not a hit) RR at printed, the evidence
    for cls in ("medium", "long"):
        means = {v: mean_ci(_rr(cube, "GLTS", v, cls))[0] for v in values}
        # The printed value is the optimum when no value has a lower mean (ties included).
        best = printed if means[printed] <= min(means.values()) else min(values, key=means.get)
        if best == printed:
            cases.append(Verdict.REPRODUCED)
            parts.append((cls, best, means[best], Verdict.REPRODUCED.value))
            continue
        ev = paired_evidence(_rr(cube, "GLTS", best, cls) - _rr(cube, "GLTS", printed, cls))
        cases.append(ev.verdict)
        parts.append((cls, best, means[best], ev.verdict.value, means[printed], ev.text("+.2f")))
    return claim("optimum", combine_cases(cases), unit=SEED_UNIT, n=n, parts=parts, **texts)


def best_at_optimum_claim(cube: xr.Dataset, printed) -> Claim:
    """At the printed optimum GLTS has the lowest RR of the variants drawn (medium and long;
    criterion: ``claims.yaml``'s ``best_at_optimum``): per (class, other variant) the paired
    difference RR(other) - RR(GLTS) per seed (:func:`simlib.claims.paired_evidence`); the
    cases by the majority rule."""
    param = cube.attrs["parameter"]
    others = [v for v in cube["variant"].values.tolist() if v != "GLTS"]
    n = cube["seed"].size
    texts = dict(printed=printed, param=param, workload=cube.attrs["workload"])
    if printed not in cube[param].values.tolist() or not others:
        return claim("best_at_optimum", Verdict.NOT_TESTABLE, unit=SEED_UNIT, n=n, parts=None,
                     **texts)
    cases, parts = [], []
    for cls in ("medium", "long"):
        g = _rr(cube, "GLTS", printed, cls)
        for o in others:
            ev = paired_evidence(_rr(cube, o, printed, cls) - g)
            cases.append(ev.verdict)
            parts.append((cls, o, ev.effect, ev.verdict.value))
    return claim("best_at_optimum", combine_cases(cases), unit=SEED_UNIT, n=n, parts=parts, **texts)


def plateau_claim(cube: xr.Dataset, threshold, tol: float) -> Claim:
    """RR improves with F_slack up to ``threshold`` and stays flat beyond it (GLTS; criterion:
    ``claims.yaml``'s ``plateau``).

    Per class (medium, long, all) two cases: (a) the rise RR(smallest value) -
    RR(threshold) per seed is positive (:func:`simlib.claims.paired_evidence`);
    (b) for every value past the threshold, the mean paired difference to
    RR(threshold) is within ``tol`` x RR(threshold)
    (:func:`simlib.claims.value_verdict` against 0, all values must hold:
    :func:`.verdicts.all_of`). The six cases by the majority rule.
    """
    param = cube.attrs["parameter"]
    values = sorted(cube[param].values.tolist())
    n = cube["seed"].size
    texts = dict(threshold=threshold, tol=tol, param=param, values=values,
                 workload=cube.attrs["workload"])
    below = [v for v in values if v < threshold]
    above = [v for v in values if v > threshold]
    if threshold not in values or not below or not above:
        return claim("plateau", Verdict.NOT_TESTABLE, unit=SEED_UNIT, n=n, parts=None, **texts)
    cases, parts = [], []
    for cls in _CLASSES:
        ref = _rr(cube, "GLTS", threshold, cls)
        rise = paired_evidence(_rr(cube, "GLTS", below[0], cls) - ref)
        flat = []
        for v in above:
            m, h, k = mean_ci(_rr(cube, "GLTS", v, cls) - ref)
            flat.append((value_verdict(m, h, k, 0.0, tolerance=tol * ref.mean()),
                         m / ref.mean()))
        flat_verdict = all_of(f for f, _ in flat)
        cases += [rise.verdict, flat_verdict]
        parts.append((cls, rise.effect, 100 * max(abs(x) for _, x in flat), rise.verdict.value,
                      flat_verdict.value))
    return claim("plateau", combine_cases(cases), unit=SEED_UNIT, n=n, parts=parts,
                 low=below[0], **texts)


def sweep_claims(cubes: dict[str, xr.Dataset], pub: dict, thresholds: dict) -> list[Claim]:
    """The verdicts on §5.3-§5.4's sweeps, for the sweeps that were run."""
    h = pub["headline"]
    out = []
    if "block_size" in cubes:
        opt = int(h["optimum_block_size_w2"])
        out += [optimum_claim(cubes["block_size"], opt), best_at_optimum_claim(cubes["block_size"], opt)]
    if "f_slack" in cubes:
        out.append(plateau_claim(cubes["f_slack"], float(h["f_slack_plateau"]),
                                 float(thresholds["plateau_tolerance"])))
    return out


# ------------------------------------------------------------ figures, tables
def sweep_table(cube: xr.Dataset) -> pd.DataFrame:
    """Per (variant, value): RR per class and the group counters, mean ± 95 % CI over seeds."""
    param = cube.attrs["parameter"]
    rows = []
    for variant in cube["variant"].values.tolist():
        for v in cube[param].values.tolist():
            sel = cube.sel(variant=variant, **{param: v})
            row = {"variant": variant, param: v,
                   "source": ("main run" if v == cube.attrs["published_value"]
                              or not depends(variant, param) else "sweep")}
            for var in [f"rr_{c}" for c in _CLASSES] + ["groups", "jobs_per_group",
                                                        "eligible_in_groups"]:
                if var in sel:
                    row[var] = ci_text(sel[var].values, ".3g", ".2g")[2]
            rows.append(row)
    return pd.DataFrame(rows)


def _draw(ax, cube, variant, cls, dodge: float = 0.0, **style):
    param = cube.attrs["parameter"]
    xs = cube[param].values.tolist()
    stats = [mean_ci(_rr(cube, variant, x, cls)) for x in xs]
    # Dodged sideways so that the variants' error bars do not hide each other.
    ax.errorbar([x + dodge for x in xs], [m for m, _, _ in stats],
                yerr=[0 if np.isnan(h) else h for _, h, _ in stats],
                capsize=2, marker="o", ms=3, **style)


def _figure(cube: xr.Dataset, path: str, title: str, note: str, printed, printed_label: str,
            by_class: bool) -> None:
    param = cube.attrs["parameter"]
    variants = cube["variant"].values.tolist()
    if by_class:   # one panel per class, one line per variant (Fig. 8)
        fig = new_figure(11, 3.8)
        axes = fig.subplots(1, 3)
        xs = cube[param].values.astype(float)
        step = 0.12 * (np.diff(np.sort(xs)).min() if xs.size > 1 else 1.0)
        for ax, cls in zip(axes, _CLASSES):
            for k, v in enumerate(variants):
                flat = not depends(v, param)
                _draw(ax, cube, v, cls, dodge=(k - (len(variants) - 1) / 2) * step,
                      label=v + (" (no blocks)" if flat else ""), ls="--" if flat else "-")
            ax.set_title(f"{cls} jobs", fontsize=9)
    else:          # one panel, one line per class (Fig. 9)
        fig = new_figure(6.5, 3.8)
        axes = [fig.add_subplot()]
        for cls in _CLASSES:
            _draw(axes[0], cube, "GLTS", cls, label=f"{cls} jobs")
    for ax in axes:
        ax.axvline(printed, color="0.5", ls=":", lw=1, label=printed_label)
        ax.set_xlabel(SWEEP_PARAMETERS[param][2], fontsize=8)
        ax.set_ylabel("average bounded relative response time RR", fontsize=8)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    footer(fig, note)
    save_figure(fig, path)


def figures_step(ctx) -> None:
    """Step ``zeng_figures_sweeps``: per sweep its figure, table (Markdown and CSV)."""
    from .published import load_published
    p = ctx.params
    pub = load_published(ctx.input.published)["headline"]
    for parameter, spec in p["sweeps"].items():
        cube = xr.load_dataset(ctx.input[f"cube_{parameter}"])
        seeds = ", ".join(map(str, cube["seed"].values.tolist()))
        note = (f"scale {p['scale']}: {p['jobs']} jobs, seeds {seeds}; RR bound "
                f"{p['rr_bound']:g} s; mean and 95 % CI over seeds; Table 6's value "
                f"{cube.attrs['published_value']} from the main runs")
        printed, label = {"block_size": (int(pub["optimum_block_size_w2"]), "printed optimum"),
                          "f_slack": (float(pub["f_slack_plateau"]), "printed threshold")}.get(
            parameter, (cube.attrs["published_value"], "Table 6's value"))
        fig_no = spec.get("figure")
        title = (f"{'Fig. ' + str(fig_no) + ' (ours)' if fig_no else 'Sweep'}: RR against "
                 f"{SWEEP_PARAMETERS[parameter][0]}, workload {spec['workload']}")
        _figure(cube, ctx.output[f"figure_{parameter}"], title, note, printed, label,
                by_class=len(cube["variant"]) > 1)
        table = sweep_table(cube)
        write_csv(table, ctx.output[f"csv_{parameter}"], index=False)
        write_text(ctx.output[f"md_{parameter}"], render(
            __package__, "sweep.md.j2", table6_name=SWEEP_PARAMETERS[parameter][0], workload=spec["workload"],
            note=note, label=label, printed=printed, table=table))
