"""Paper Z's verdicts (step ``zeng_claims``) and ``paper_figures/zeng/README.md`` (``zeng_readme``).

Each claim of ``config/published/zeng.yaml`` gets one criterion, applied
mechanically to the cube (and Table 5) with the grid's thresholds
(``studies.zeng.claims``); every criterion can say "not reproduced". The
words are templates: the claims' in ``claims.yaml``, the README's in
``README.md.j2``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from simlib.claims import (
    CLAIM,
    CONSISTENCY,
    MIN_UNITS,
    Claim,
    Verdict,
    combine_cases,
    read_claims,
    verdict_counts,
    verdict_from_hits,
    write_claims,
)
from simlib.io import write_text
from simlib.render import render

from .published import load_published
from .verdicts import spread as _spread
from .verdicts import value_case
from .words import SEED_UNIT, claim

__all__ = ["saturation_claim", "ssp_rr_claim", "validation_claim", "overhead_claim",
           "workload_claim", "claims_step", "fig3_flow", "readme_step"]

_CLASSES = ("medium", "long", "all")


def _vals(cube, var, workload, machine="multicore") -> np.ndarray:
    return cube[var].sel(workload=workload, machine=machine).values.astype(float)


def saturation_claim(cube: xr.Dataset, pub: dict, thr: float) -> Claim:
    """SSP saturates under W2, not under W1: drain fraction above / below ``thr``, per seed."""
    w1, w2 = _vals(cube, "drain_fraction", "W1"), _vals(cube, "drain_fraction", "W2")
    hits = int(np.sum((w2 > thr) & (w1 <= thr)))
    days = {w: np.round(_vals(cube, "makespan_days", w), 1).tolist() for w in ("W1", "W2")}
    return claim("saturation", verdict_from_hits(hits, w1.size), unit=SEED_UNIT, n=w1.size,
                 **pub["claims"]["saturation"],
                 thr=thr, w1=np.round(w1, 3).tolist(), w2=np.round(w2, 3).tolist(), days=days)


def ssp_rr_claim(cube: xr.Dataset, pub: dict, tol: float, bound: float,
                 primary: bool = True) -> Claim:
    """SSP's RR under W2 (medium, long, all): per class, :func:`.verdicts.value_case`
    with a tolerance of ``tol`` x the printed value; the classes by the majority rule.

    ``primary``: ``bound`` is the grid's ``rr_bound`` (variables ``rr_*``);
    otherwise one of the other ``rr_bounds`` (``rr_b<bound>_*``).
    """
    printed = [pub["ssp_w2"][f"rr_{c}"] for c in _CLASSES]
    prefix = "rr" if primary else f"rr_b{int(bound)}"
    values = [_vals(cube, f"{prefix}_{c}", "W2") for c in _CLASSES]
    cases = [value_case(v, p, tol * p) for v, p in zip(values, printed)]
    ours = [(m, h, v.value) for v, m, h, _ in cases]
    cv = [_spread(v) / abs(v.mean()) for v in values]
    return claim("ssp_rr_w2", combine_cases(v for v, *_ in cases), unit=SEED_UNIT, n=cases[0][3],
                 **pub["claims"]["ssp_rr_w2"], printed=printed, ours=ours, tol=tol, bound=bound,
                 primary=primary, cv=cv, paper_seeds=pub["table5"]["seeds"])


def validation_claim(cube: xr.Dataset, pub: dict, tol: float) -> Claim:
    """§4.8: multicore / single-core ratio of mean response and RR within 1 ± ``tol``, per run."""
    texts = pub["claims"]["adjustment_validation"]
    n = f"{cube['seed'].size} per workload"
    if "single_core" not in cube["machine"].values.tolist():
        return claim("validation_not_run", Verdict.NOT_TESTABLE, key="adjustment_validation",
                     unit=SEED_UNIT, n="-", **texts)
    hits, total, ratios = 0, 0, []
    for w in cube["workload"].values.tolist():
        r = (_vals(cube, "mean_response_all", w) / _vals(cube, "mean_response_all", w, "single_core"))
        q = _vals(cube, "rr_all", w) / _vals(cube, "rr_all", w, "single_core")
        ok = (np.abs(r - 1) <= tol) & (np.abs(q - 1) <= tol)
        hits += int(ok.sum())
        total += int(ok.size)
        ratios.append((w, np.round(r, 2).tolist(), np.round(q, 2).tolist()))
    return claim("adjustment_validation", verdict_from_hits(hits, total), unit=SEED_UNIT, n=n,
                 **texts, ratios=ratios, tol=tol)


def overhead_claim(cube: xr.Dataset, pub: dict, tol: float) -> Claim:
    """The slice-switch overhead's share of the makespan within ``tol`` points of 5 %, per W1 run."""
    target = float(pub["scojo_pect"]["overhead_share"])
    v = _vals(cube, "overhead_share", "W1")
    return claim("overhead", verdict_from_hits(int(np.sum(np.abs(v - target) <= tol)), v.size),
                 unit=SEED_UNIT, n=v.size, **pub["claims"]["overhead"], target=target,
                 shares=np.round(v, 2).tolist(), tol=tol, overhead=pub["scojo_pect"]["overhead"])


def workload_claim(t5: pd.DataFrame, pub: dict, tol: float, seeds: int | str = "-") -> Claim:
    """Table 5's shares within ``tol`` percentage points, per printed row (W1's workloads)."""
    rows = t5[t5["printed"].notna() & ~t5["quantity"].str.startswith("Load")]
    first = [c for c in t5.columns if c not in ("quantity", "printed")][0]
    ok = (rows[first] - rows["printed"]).abs() <= tol
    off = [(q, o, p) for q, o, p, k in zip(rows["quantity"], rows[first], rows["printed"], ok) if not k]
    return claim("workload", verdict_from_hits(int(ok.sum()), len(ok)), unit=SEED_UNIT, n=seeds,
                 **pub["claims"]["workload"],
                 hits=int(ok.sum()), rows=len(ok), off=off, tol=tol, first=first,
                 paper_seeds=pub["table5"]["seeds"])


def claims_step(ctx) -> None:
    """Step ``zeng_claims``: ``paper_figures/zeng/claims.csv``; SSP's RR once per RR bound
    (the primary first), as readings."""
    p, inp, thr = ctx.params, ctx.input, ctx.params["thresholds"]
    pub, cube, bound = load_published(inp.published), xr.load_dataset(inp.cube), p["rr_bound"]
    tol = thr["rr_tolerance"]
    found = [saturation_claim(cube, pub, thr["drain_threshold"]), ssp_rr_claim(cube, pub, tol, bound),
             *(ssp_rr_claim(cube, pub, tol, b, primary=False) for b in p["rr_bounds"] if b != bound),
             validation_claim(cube, pub, thr["validation_tolerance"]),
             overhead_claim(cube, pub, thr["overhead_tolerance"]),
             workload_claim(pd.read_csv(inp.table5), pub, thr["share_tolerance"],
                            cube["seed"].size)]
    if "glts" in inp:
        from .glts import counter_claims, headline_claims
        glts = xr.load_dataset(inp.glts)
        found += headline_claims(glts, pub, thr["improvement_tolerance"], thr["utilization_tolerance"])
        found += counter_claims(glts, pub, thr["counter_tolerance"], thr["delay_tolerance"],
                                thr.get("groups_reading", "grouped_jobs"))
    sweeps = {k[len("sweep_"):]: xr.load_dataset(v) for k, v in inp.items() if k.startswith("sweep_")}
    if sweeps:
        from .sweeps import sweep_claims
        found += sweep_claims(sweeps, pub, thr)
    if "examples" in inp:
        from .examples import example_claims
        found += example_claims(json.loads(Path(inp.examples).read_text()))
    frame = write_claims(found, ctx.output.csv, scale=p["scale"])
    ctx.log.info("%s", verdict_counts(frame["verdict"]))


def fig3_flow() -> str:
    """The reconstructed Fig. 3 flow: the literal block of ``GLomarcTS``'s docstring."""
    import inspect

    from simlib.policies.glomarc_ts import GLomarcTS
    block = inspect.getdoc(GLomarcTS).split("::\n", 1)[1].split("\n\n", 2)
    return inspect.cleandoc(block[0] if block[0].strip() else block[1])


def readme_step(ctx) -> None:
    """Step ``zeng_readme``: ``paper_figures/zeng/README.md``."""
    p = ctx.params
    frame = read_claims(ctx.input.claims)
    claims, checks = frame[frame["kind"] == CLAIM], frame[frame["kind"] == CONSISTENCY]
    here = Path(ctx.output.readme).parent

    def link(path: str) -> str | None:   # relative to the README, if under it
        return str(Path(path).relative_to(here)) if Path(path).is_relative_to(here) else None

    arts = [{**a, "link": link(a["path"])} for a in p["artifacts"] if not a["path"].endswith("README.md")]
    pub = load_published(ctx.input.published)
    with xr.open_dataset(ctx.input.cube) as cube:
        drain = _vals(cube, "drain_fraction", "W2") if "W2" in cube["workload"].values else np.array([])
    from .examples import EXAMPLE_SHARES
    switches, readings_md, nontype_before = {}, "", {}
    if "readings" in ctx.input.keys():
        from simlib.render import template_data

        from .readings import switch_text
        words = template_data(__package__, "readings.yaml")
        switches = {k: {**words[k], "value": switch_text(v)} for k, v in p["matchmaking"].items()}
        # The matrix's own file, without its title (the README gives the section's).
        readings_md = Path(ctx.input.readings).read_text().split("\n", 1)[1].strip()
        readings_md = readings_md.replace("\n## ", "\n### ")
    if "glts" in ctx.input.keys():
        with xr.open_dataset(ctx.input.glts) as g:
            if "nontype_before_matchmaking" in g:
                nontype_before = {w: float(g["nontype_before_matchmaking"].sel(
                    workload=w, scheduler="GLTS").mean()) for w in g["workload"].values.tolist()}
    # The G-LOMARC-TS comparisons (Figs. 6-9 and the counters): how many the seeds decide.
    glts = claims[claims["key"].str.startswith(("improvement_", "counter_", "optimum", "best_at",
                                                 "plateau"))]
    open_ = glts[glts["verdict"] == Verdict.INCONCLUSIVE.value]
    write_text(ctx.output.readme, render(
        __package__, "README.md.j2", decided=len(glts) - len(open_),
        undecided=open_["key"].tolist() if len(glts) else None, paper=pub["paper"], pub=pub,
        min_units=MIN_UNITS,
        saturated=int(np.sum(drain > p["spec"]["claims"]["drain_threshold"])),
        example_shares=EXAMPLE_SHARES,
        claims=claims, checks=checks, counts=verdict_counts(claims["verdict"]), artifacts=arts,
        flow=fig3_flow(), switches=switches, readings_md=readings_md, nontype_before=nontype_before,
        **{k: p[k] for k in ("scale", "workloads", "jobs", "seeds", "machines", "policy_params",
                             "spec")}))
