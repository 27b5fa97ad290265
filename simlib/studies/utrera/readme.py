"""Paper U's own README (step ``utrera_readme``): ``paper_figures/utrera/README.md``.

Python computes the tables and the verdicts (``claims.csv``, and every claim
again under every other reading of the time model: the reading x claim
matrix); the words are the templates ``templates/README.md.j2`` and those
it includes.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.claims import ALPHA, MIN_UNITS, read_claims, verdict_counts
from simlib.io import write_text
from simlib.markdown import markdown_table
from simlib.render import render
from simlib.studies.utrera.plots import to_markdown

from .claims import MAIN_ONLY, reading_verdicts
from .published import load_published

__all__ = ["md_file", "matrix", "readme_numbers", "readme"]


def md_file(path) -> str:
    """A generated Markdown table file without its title line, its ``##`` headings demoted
    to ``####`` (the README nests it under a ``###`` section)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()[1:]
    lines = ["####" + line[2:] if line.startswith("## ") else line for line in lines]
    return "\n".join(lines).strip() + "\n"


def _link(path, here: Path) -> dict:
    """What the README's link to ``path`` (from its directory ``here``) shows: ``rel``,
    ``name``, and ``outside`` paper_figures/utrera (a pipeline output, not committed)."""
    rel = os.path.relpath(path, here)
    return {"path": str(path), "name": os.path.basename(path), "rel": rel,
            "outside": rel.startswith("..")}


def _verdict_table(claims: pd.DataFrame, alt: dict[str, dict[str, str]]) -> str:
    """The claims (a claims file's rows), numbered, with their verdict under each other reading."""
    return markdown_table(pd.DataFrame({
        "#": range(1, len(claims) + 1),
        "claim (source)": [f"{c} ({s})" for c, s in zip(claims["claim"], claims["source"])],
        "published": claims["published"], "ours": claims["ours"],
        "verdict": [f"**{v}**" for v in claims["verdict"]], "rule": claims["criterion"],
        "unit (n)": [f"{u} ({n})" if u else "" for u, n in zip(claims["unit"], claims["n"])],
        **{f"if {name}": [verdicts.get(c, "–") for c in claims["claim"]]
           for name, verdicts in alt.items()}}))


def _labels(claims) -> dict[str, str]:
    """Each claim's column in the matrix: the text before its colon ("Fig. 3(c)", ...),
    with its number when two share one.
    """
    claims = list(claims)
    shorts = [c.split(":")[0] for c in claims]
    return {c: (f"{sh} (#{i + 1})" if shorts.count(sh) > 1 else sh)
            for i, (c, sh) in enumerate(zip(claims, shorts))}


def _levels(name: str, factors: dict) -> dict[str, str]:
    """The level of each reading factor a reading combines ("–" for a named reading).
    """
    parts = dict(part.rsplit("_", 1) if "_" in part else (part, "")
                 for part in name.split("__")) if name != "main" else {}
    named = not parts.keys() <= set(factors)
    return {f: "–" if named else parts.get(f, next(iter(levels))) for f, levels in factors.items()}


def _gain(gains: pd.DataFrame, label: str, metric: str) -> str:
    """The headline gain (mean of traces) of a reading's label, "–" when not run."""
    if "trace" not in gains:
        return "–"
    r = gains[(gains["trace"] == "mean of traces") & (gains["policy"] == label)
              & (gains["metric"] == metric)]
    return f"{float(r['mean'].iloc[0]):+.1f}" if len(r) else "–"


def matrix(claims: pd.DataFrame, alt: dict[str, dict[str, str]], gains: pd.DataFrame,
           p: dict, how: dict[str, str] | None = None) -> dict:
    """The reading x claim matrix: per reading (main first), the levels of the reading
    factors it combines, the verdict of each claim and the headline gains.

    ``alt``: reading -> claim -> verdict (:func:`.claims.reading_verdicts`);
    ``how``: claim -> "policy-free" or "main reading only" for the claims not
    simulated under each reading. Returns the ``table`` (Markdown), the
    columns of the policy-free (``free``) and main-reading-only (``only``)
    claims, and the most claims reproduced under one reading (``best`` of
    the ``judged`` per reading: all but the main-reading-only ones) with the
    ``best_readings``.
    """
    how = how or {}
    numbers = _labels(claims["claim"])
    shown = [c for c in claims["claim"] if any(c in v for v in alt.values())]
    labels = {c: numbers[c] + ("*" if how.get(c) == "policy-free" else "") for c in shown}
    judged = {labels[c] for c in shown if how.get(c) != MAIN_ONLY}
    main = dict(zip(claims["claim"], claims["verdict"]))
    rows = []
    for name in ["main", *alt]:
        label = "fcfs_malleable" if name == "main" else p["readings"][name]
        verdicts = main if name == "main" else alt[name]
        rows.append({"reading": name, **_levels(name, p["reading_factors"]),
                     **{labels[c]: verdicts.get(c, "–") for c in shown},
                     "slowdown gain %": _gain(gains, label, "utrera_slowdown"),
                     "response gain %": _gain(gains, label, "mean_response")})
    held = {r["reading"]: sum(v == "reproduced" for k, v in r.items() if k in judged)
            for r in rows}
    best = max(held.values()) if held else 0
    return {"table": markdown_table(pd.DataFrame(rows)), "best": best, "judged": len(judged),
            "best_readings": [n for n, h in held.items() if h == best],
            "free": [labels[c] for c in shown if how.get(c) == "policy-free"],
            "only": [labels[c] for c in shown if how.get(c) == MAIN_ONLY]}


def _read_optional(path) -> pd.DataFrame | None:
    """A CSV table, or None when empty (no rows: no reading ran there)."""
    df = pd.read_csv(path)
    return df if len(df) else None


def _values(orders: pd.DataFrame, readings: pd.DataFrame) -> dict:
    """The candidate orders' and the time-model readings' values, as tables."""
    rd = readings[readings["metric"].isin(["mean_response", "utrera_slowdown",
                                           "utrera_fragmentation", "utrera_mean_mpl"])]
    piv = rd.pivot_table(index=["trace", "reading"], columns="metric", values="mean").reset_index()
    return {"orders": to_markdown(orders.assign(mean=orders["mean"].round(4),
                                                ci95=orders["ci95"].round(4))),
            "reading_values": to_markdown(piv),
            "reading_params": [(k, json.dumps(v, sort_keys=True))
                               for k, v in sorted(set(zip(rd["reading"], rd["params"])))]}


def _fmt(x, spec: str = ".1f") -> str:
    return "n/a" if x is None or not np.isfinite(float(x)) else format(float(x), spec)


def readme_numbers(published: dict, table2: pd.DataFrame, long_util: pd.DataFrame,
                   readings: pd.DataFrame, orders: pd.DataFrame, reading_labels: dict) -> dict:
    """The numbers the README's prose cites, computed from this run's tables and the
    published file (never typed into a template).

    - ``demand``: per trace (Table 2's order), the demand ratio of the portion
      under the log's own schedule, waiting jobs (``queue``) and waiting +
      running (``all``), beside the printed Req.Cpus/Cpus (``paper``);
    - ``long_util``: Sect. 5.1's portion (``long_util.csv``: first and last
      job, long jobs, the cleaned log's, the minimum) and the long jobs of
      Fig. 3's portion of that trace (``table2.csv``);
    - ``ov0_mpl``: SDSC's average MPL under reading ``ov0`` beside Table 3's
      (None when that reading did not run);
    - ``orders_cost``: what the candidate orders under every reading would add;
    - ``headline``: the paper's headline gains, as printed;
    - ``table1_exec``: EASY's mean execution time in Table 1's simulated
      column (response minus wait), per load, from the published file.
    """
    pub2 = published["table2"]["values"]
    traces = [t for t in pub2 if t in table2.index]
    demand = {"traces": traces,
              "queue": [_fmt(table2.loc[t, "queue_demand_ratio_log"]) for t in traces],
              "all": [_fmt(table2.loc[t, "demand_ratio_log"]) for t in traces],
              "paper": [f"{float(pub2[t]['req_cpus_ratio']):g}" for t in traces]}
    r = long_util.iloc[0]
    trace = str(r["trace"])
    lu = {"trace": trace, "selection": str(r.get("selection", "")),
          "first_job": f"{int(r['first_job']):,}", "last_job": f"{int(r['last_job']):,}",
          "jobs": f"{int(r['jobs']):,}", "long_jobs": int(r["long_jobs"]),
          "long_jobs_cleaned": int(r["long_jobs_cleaned"]), "min_long_jobs": int(r["min_long_jobs"]),
          "fig3_portion": "", "fig3_long_jobs": "n/a"}
    if trace in table2.index:
        first, last = (int(x) for x in str(table2.loc[trace, "portion"]).split("-"))
        lu["fig3_portion"] = f"{first:,}-{last:,}"
        lu["fig3_long_jobs"] = int(table2.loc[trace, "long_jobs"])
    ov0, mpl_trace = None, "SDSC-SP2"
    rows = readings[(readings["reading"] == "ov0") & (readings["trace"] == mpl_trace)
                    & (readings["metric"] == "utrera_mean_mpl")] if "reading" in readings else []
    if len(rows):
        ov0 = {"ours": _fmt(rows["mean"].iloc[0], ".2f"),
               "paper": f"{published['table3']['values'][mpl_trace]['fcfs_malleable']:g}"}
    n_orders = orders["order"].nunique()
    n_traces = orders["trace"].nunique()
    seeds = int(orders["n"].max()) if len(orders) else 0
    cost = {"others": n_orders - 1, "readings": len(reading_labels), "traces": n_traces,
            "seeds": seeds}
    cost["jobs"] = cost["others"] * cost["readings"] * n_traces
    cost["runs"] = cost["jobs"] * seeds
    head = published["headline"]["values"]
    t1 = published["table1"]["values"]
    loads = sorted(t1, key=float)
    table1_exec = {"loads": [f"{100 * float(x):.0f}" for x in loads],
                   "seconds": [f"{t1[x]['easy']['mean_response'][0] - t1[x]['easy']['mean_wait'][0]:.1f}"
                               for x in loads]}
    return {"demand": demand, "long_util": lu, "ov0_mpl": ov0, "orders_cost": cost,
            "headline": {m: f"{100 * float(v):+.0f}" for m, v in head.items()},
            "table1_exec": table1_exec}


def readme(ctx) -> None:
    """Step ``utrera_readme``: write ``paper_figures/utrera/README.md`` from the claims, the
    figure steps' tables (the other readings' rows too: the reading x claim matrix) and
    the Markdown artifacts; parameters: what the template says (declared with the step
    in ``artifacts.yaml``: scale, readings, sections and the artifacts listed at the end).
    """
    p, inp = ctx.params, ctx.input
    out = Path(ctx.output.readme)
    gains = pd.read_csv(inp.gains)
    readings = pd.read_csv(inp.readings)
    claims = read_claims(inp.claims)
    published = load_published(inp.published)
    numbers = readme_numbers(published, pd.read_csv(inp.table2, index_col="trace"),
                             pd.read_csv(inp.long_util), readings, pd.read_csv(inp.orders),
                             p["readings"])
    # Every claim again under each other reading of the time model.
    rv = reading_verdicts(
        claims, published, p["readings"], traces=readings, gains=gains,
        **{k: _read_optional(inp[f"{k}_readings"]) for k in ("fig2", "table1", "long_util")})
    alt = {name: dict(zip(g["claim"], g["verdict"])) for name, g in rv.groupby("reading", sort=False)}
    how = {c: h for c, h in zip(rv["claim"], rv["how"]) if h in ("policy-free", MAIN_ONLY)}
    counts = verdict_counts(claims["verdict"])
    made = [os.path.basename(a["path"]) for a in p["artifacts"]]
    text = render(
        __package__, "README.md.j2", **{k: v for k, v in p.items() if k != "artifacts"},
        counts=counts, numbers=numbers, min_units=MIN_UNITS, alpha=ALPHA,
        verdicts=_verdict_table(claims, {k: v for k, v in alt.items()
                                         if k in p["single_readings"]}),
        matrix=matrix(claims, alt, gains, p, how),
        tables={md: md_file(out.parent / md) for md in made
                if md.endswith(".md") and md != "README.md"},
        **_values(pd.read_csv(inp.orders), readings),
        artifacts=[{**_link(a["path"], out.parent), "title": a["title"]}
                   for a in p["artifacts"]])
    write_text(out, text, encoding="utf-8")
    ctx.log.info("verdicts: %s", counts)
