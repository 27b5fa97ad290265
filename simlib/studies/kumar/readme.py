"""Paper K's README: ``paper_figures/kumar/README.md`` (the ``kumar_report`` step).

The words are the template ``templates/README.md.j2``; the numbers are read
from what the tables step wrote, so that the README shows exactly them.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...claims import ALPHA, MIN_UNITS, read_claims, verdict_counts
from ...io import write_text
from ...markdown import markdown_table
from ...render import render
from .plan import FIGURES, PAPER_NAMES, KumarPlan, cs_label, names, ranges

__all__ = ["CLAIM_TABLE", "md", "render_readme", "readme_step"]

#: Columns of the README's claims table.
CLAIM_TABLE = ["figure", "claim", "source", "published", "ours", "verdict", "unit", "n", "criterion"]


def md(df: pd.DataFrame, digits: int = 4) -> str:
    """A README table in paper K's style: every column left-aligned, numbers to ``digits``
    significant digits (integral ones too), missing numbers as an en dash; no final line break."""
    return markdown_table(df, digits=digits, align="left", missing="–",
                          integers=False).rstrip("\n")


def _picks_table(picks: pd.DataFrame, plan: KumarPlan) -> pd.DataFrame:
    """The picks for the README; waits in hours."""
    metric = plan.cs_sweep["pick"]["metric"]
    hours = metric in ("mean_wait", "mean_response")
    col = f"{metric} at C_s" + (" (h)" if hours else "")
    out = picks.assign(p_s=[plan.p_s(w) for w in picks["workload"]])
    out[col] = out["value"] / 3600 if hours else out["value"]
    out["near_best"] = out["near_best"].map(ranges)
    out["cs"], out["best_cs"] = out["cs"].map(cs_label), out["best_cs"].map(cs_label)
    return out[["workload", "p_s", "cs", col, "best_cs", "near_best"]].rename(
        columns={"cs": "picked C_s", "near_best": "C_s not significantly worse than the best"})


def _figure_summaries(plan: KumarPlan, n_bar: pd.DataFrame, picks: pd.DataFrame, out: dict) -> None:
    """Figs. 5–11's (published, reproduced) one-liners: n̄ and the C_s used before the verdicts."""
    nb = {r.workload: r for r in n_bar.itertuples()}
    pk = {r.workload: int(r.cs) for r in picks.itertuples()}
    for fig, spec in FIGURES.items():
        pub, ours = out.get(fig, ("", ""))
        extra_p, extra_o = [], []
        for w in spec["workloads"]:
            r = nb.get(w)
            if r is not None and np.isfinite(r.published):
                extra_p.append(f"n̄ = {r.published:g}")
                extra_o.append(f"n̄ = {r.n_bar:.1f} ± {r.ci:.1f}")
            if spec["kind"] == "load":
                cs = plan.picked_cs(pk, w)
                extra_o += [] if cs is None else [f"C_s = {cs_label(cs)} ({w})"]
            elif w in pk:
                extra_o.append(f"picked C_s = {cs_label(pk[w])}")
        out[fig] = ("; ".join(x for x in [*extra_p, pub] if x),
                    "; ".join(x for x in [*extra_o, ours] if x))


def _summaries(plan, claims_df, tables, n_bar, picks, algorithms, fig2) -> dict:
    """figure key -> (published, reproduced) one-liners for the artifact table."""
    out = {}
    for key, g in claims_df.groupby("figure", sort=False):
        counts = g["verdict"].value_counts()
        out[key] = ("; ".join(dict.fromkeys(g["published"])),
                    ", ".join(f"{v}× {k}" for k, v in counts.items()))
    _figure_summaries(plan, n_bar, picks, out)
    text = names()["summaries"]

    def line(key, **fields):
        return tuple(t.format(**fields) for t in text[key])

    out["fig2"] = line("fig2", **{k: int(df.loc[df["starting_time"] == 0,
                                                "requested_number_of_resources"].sum())
                                  for k, df in fig2.items()})
    out["table3"] = line("table3", total=len(algorithms),
                         ok=int((algorithms["matches_published"] == "yes").sum()))
    if len(tables):
        within = int((tables["verdict"] == "within our range").sum())
        above = int((tables["verdict"] == "published above our range").sum())
        out["tables"] = line("tables", total=len(tables), within=within, above=above,
                             below=len(tables) - within - above)
    out["cs"] = line("cs", picks=", ".join(f"P_S = {plan.p_s(r.workload):g}: C_s = {cs_label(r.cs)}"
                                           for r in picks.itertuples()))
    return out


def _artifacts_table(artifacts: Sequence[Mapping], summaries: Mapping,
                     cubes: Sequence[str]) -> pd.DataFrame:
    """Every artifact with what it shows, published and reproduced (once per figure)."""
    rows, seen = [], set()
    for a in artifacts:
        pub, ours = ("", "") if a["figure"] in seen else summaries.get(a["figure"], ("", ""))
        seen.add(a["figure"])
        rows.append([f"[`{a['file']}`]({a['file']})", a["title"], pub, ours])
    rows += [[f"[`{c}`](../../{c})", names()["cube_row"], "", ""] for c in cubes]
    return pd.DataFrame(rows, columns=["artifact", "what", "published", "reproduced"])


def _workloads_table(plan: KumarPlan) -> pd.DataFrame:
    rows = []
    for w in sorted(set(plan.purpose_workloads("cs")) | set(plan.purpose_workloads("load"))):
        p = plan.params(w)
        rows.append({"workload": w, "P_S": p.p_s, "P_D": p.p_d, "P_E": p.p_e, "P_R": p.p_r,
                     "C_s sweep": "yes" if w in plan.purpose_workloads("cs") else "",
                     "load sweep policies": ", ".join(PAPER_NAMES.get(x, x) for x in
                                                      plan.load_sweeps.get(w, []))})
    return pd.DataFrame(rows)


def _tables_iv_vii(tables: pd.DataFrame) -> pd.DataFrame:
    t = tables.copy()
    t["paper p5…p95"] = [f"{a:.1f} … {b:.1f}" for a, b in zip(t["paper_procedure_p5"],
                                                              t["paper_procedure_p95"])]
    t["mean ± ci"] = [f"{m:+.2f} ± {h:.2f}" if np.isfinite(h) else f"{m:+.2f}"
                      for m, h in zip(t["mean_improvement"], t["ci"])]
    t["new"] = t["new"].map(lambda x: PAPER_NAMES.get(x, x))
    t["base"] = t["base"].map(lambda x: PAPER_NAMES.get(x, x))
    return t[["table", "new", "base", "metric", "published", "ours_max", "ours_at",
              "paper_procedure_median", "paper p5…p95", "mean ± ci", "verdict"]].rename(
        columns={"paper_procedure_median": "paper median"})


def render_readme(*, plan: KumarPlan, artifacts: Sequence[Mapping], n_bar: pd.DataFrame,
                  picks: pd.DataFrame, tables: pd.DataFrame, claims_df: pd.DataFrame,
                  algorithms: pd.DataFrame, fig2, fig1_scale: str = "",
                  cubes: Sequence[str] = (), dedicated: pd.DataFrame | None = None,
                  forced: pd.DataFrame | None = None, size_fit: Mapping,
                  settings: Mapping) -> str:
    """``paper_figures/kumar/README.md``: artifacts, published vs reproduced, verdicts
    (``templates/README.md.j2``); ``size_fit``: :func:`.tables.size_scale_fit`; ``settings``:
    the claims' thresholds, :func:`.report.claims_settings`."""
    summaries = _summaries(plan, claims_df, tables, n_bar, picks, algorithms, fig2)
    counts = verdict_counts(claims_df["verdict"])
    rendered = {
        "workloads": md(_workloads_table(plan)),
        "artifacts": md(_artifacts_table(artifacts, summaries, cubes)),
        "n_bar": md(n_bar[["workload", "p_s", "p_d", "n_bar", "ci", "expected", "expected_linear",
                           "expected_log2", "published", "published_z"]]),
        "picks": md(_picks_table(picks, plan)), "forced": None if forced is None else md(forced),
        "iv_vii": md(_tables_iv_vii(tables), 3),
        "dedicated": md(dedicated, 3) if dedicated is not None and len(dedicated) else None,
        "claims": md(claims_df[CLAIM_TABLE]), "algorithms": md(algorithms)}
    return render(__package__, "README.md.j2", plan=plan, tables=rendered,
                  gen=plan.params(plan.purpose_workloads("load")[0]),
                  cs_values=ranges(plan.cs_values), loads=", ".join(f"{x:g}" for x in plan.loads),
                  counts=", ".join(f"{k}: {v}" for k, v in counts.items()), fig1_scale=fig1_scale,
                  size_fit=size_fit, settings=settings, alpha=ALPHA, min_units=MIN_UNITS)


def readme_step(ctx) -> None:
    """The ``kumar_report`` step: :func:`render_readme` of the files the tables step wrote
    (the claims, Tables IV–VII, n̄, the forced starts) and of the C_s picks, so that the
    README shows exactly their numbers."""
    from ...cube import read_cube
    from .published import load_published
    from .report import claims_settings
    from .runs import fig2_example
    from .tables import algorithms_frame, dedicated_frame, size_scale_fit
    inp, p = ctx.input, ctx.params
    claims_df = read_claims(inp.claims_csv).drop(columns=["scale"])
    plan, published = KumarPlan(p["study"], p["scale"]), load_published(inp.published)
    text = render_readme(
        plan=plan, artifacts=p["artifacts"], cubes=p["cubes"],
        settings=claims_settings(published, plan),
        size_fit=size_scale_fit(published, plan.params(plan.purpose_workloads("load")[0]),
                                plan.n_jobs),
        fig1_scale=p["fig1_scale"], claims_df=claims_df, n_bar=pd.read_csv(inp.n_bar_csv),
        picks=pd.DataFrame(json.loads(Path(inp.picks).read_text(encoding="utf-8"))["table"]),
        tables=pd.read_csv(inp.tables_csv), forced=pd.read_csv(inp.forced_csv, dtype={"C_s": str}),
        algorithms=algorithms_frame(published), fig2=fig2_example(),
        dedicated=dedicated_frame(read_cube(inp.load_cube)))
    write_text(ctx.output.readme, text, encoding="utf-8")
    ctx.log.info("wrote %s (%d claims)", ctx.output.readme, len(claims_df))
