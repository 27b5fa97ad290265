"""Paper D's own README (step ``dutot_readme``): ``paper_figures/dutot/README.md``.

The scale and grid, a verdict per claim and reading (``claims.csv`` of step
``dutot_claims``, each rule stated beside its verdict), the figures and
tables, the facts behind the verdicts that follow from the platforms alone
(:func:`bottlenecks`: which resource bounds a job's duration;
:func:`findings`), and every interpretation choice. The words are the
template ``templates/README.md.j2``; tables go through the one renderer,
:func:`simlib.markdown.markdown_table`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from simlib.claims import MIN_UNITS, read_claims, verdict_counts
from simlib.io import write_text
from simlib.markdown import markdown_table
from simlib.render import render

from .figures import format_latency, format_rate, trends_markdown
from .platforms import MODELS, homogeneous_values
from .published import load_published
from .report import sign_test_min_units

__all__ = ["bottlenecks", "findings", "readings", "readme_step"]


def bottlenecks(descriptions: Sequence[Mapping], *, size: int, f_comp: float, f_comm: float,
                self_communication: bool = True) -> pd.DataFrame:
    """Seconds each resource needs per second of trace runtime, for one job alone.

    A job of ``size`` hosts in one cluster (the first) and, if it has at
    least two, the same job split evenly over two clusters: SimGrid's
    parallel-task model runs a task at the pace of its most loaded resource,
    so the largest of these is the job's duration per second of trace
    runtime (without other jobs). Compared with F_w, it says when jobs hit
    their walltime. A private link carries what its host sends (one
    direction of a ``split_duplex`` link; the traffic matrix is symmetric,
    so the other direction carries as much) or, ``shared``, what it sends
    to and receives from the other hosts and its traffic to itself once (as
    SimGrid counts it: ``tests/test_backends_simgrid.py``).

    Columns: ``platform``, ``placement`` (one cluster / two clusters),
    ``compute``, ``private link``, ``cluster switch``, ``main switch``,
    ``bound`` (the largest) and ``binding`` (its resource).
    """
    rows = []
    n = int(size)
    diag = 1 if self_communication else 0
    for d in descriptions:
        c0 = d["clusters"][0]
        per_pair = float(f_comm)
        shared = d.get("private_links", "split_duplex") == "shared"
        compute = float(f_comp) / min(c["speed"] for c in d["clusters"][:2])
        # Each host sends to every host of the job (itself too, when counted);
        # what its private link carries (received too where it is shared).
        link = ((2 * (n - 1) + diag) if shared else (n - 1 + diag)) * per_pair
        one = {"compute": float(f_comp) / c0["speed"],
               "private link": link / c0["bw"],
               "cluster switch": (n * (n - 1 + diag)) * per_pair / c0["switch_bw"],
               "main switch": 0.0}
        rows.append({"platform": d["name"], "placement": "one cluster", **one})
        if n >= 2 and len(d["clusters"]) >= 2:
            c1 = d["clusters"][1]
            a, b = n // 2, n - n // 2
            # Pairs inside each half, and pairs crossing in both directions.
            inside = [a * (a - 1 + diag), b * (b - 1 + diag)]
            cross = 2 * a * b
            two = {"compute": compute,
                   "private link": link / min(c0["bw"], c1["bw"]),
                   "cluster switch": max((inside[0] + cross) * per_pair / c0["switch_bw"],
                                         (inside[1] + cross) * per_pair / c1["switch_bw"]),
                   "main switch": cross * per_pair / d["backbone_bw"]}
            rows.append({"platform": d["name"], "placement": "two clusters", **two})
    df = pd.DataFrame(rows)
    res = ["compute", "private link", "cluster switch", "main switch"]
    df["bound"] = df[res].max(axis=1)
    df["binding"] = df[res].idxmax(axis=1)
    return df


def findings(bounds: pd.DataFrame, trends_hom: pd.DataFrame, trends_het: pd.DataFrame,
             f_w: float) -> list[dict]:
    """What follows mechanically from the platforms and the runs, per reading.

    Per platform group (each homogeneous ``model``; None for the
    heterogeneous platforms): what bounds a job alone in one cluster and
    split over two (``parts``: placement, binding resources, bound), whether
    such a job alone would reach its walltime (``above`` F_w), whether only
    private links bind (``private_only``: placement cannot change a job's
    duration), and the runs with jobs killed.
    """
    groups = [(m, bounds[bounds["platform"] == f"hom-{m}"], trends_hom[trends_hom["model"] == m])
              for m in dict.fromkeys(trends_hom["model"])]
    groups.append((None, bounds[bounds["platform"].str.startswith("het-")],
                   trends_het[trends_het["grouping"] == "all"]))
    out = []
    for model, b, t in groups:
        if b.empty or t.empty:
            continue
        parts = []
        for placement, rows in b.groupby("placement", sort=False):
            lo, hi = rows["bound"].min(), rows["bound"].max()
            parts.append({"placement": placement, "binding": ", ".join(sorted(set(rows["binding"]))),
                          "bound": f"{lo:.3g}" if rows["bound"].nunique() == 1 else f"{lo:.3g}-{hi:.3g}"})
        runs = int(t["runs"].sum())
        out.append({"model": model, "parts": parts, "above": bool(b["bound"].max() > f_w),
                    "private_only": set(b["binding"]) == {"private link"}, "runs": runs,
                    "kills": int(t["runs_with_kills"].sum()),
                    "share": float((t["killed_share"] * t["runs"]).sum() / max(runs, 1))})
    return out


def _platform_table(descriptions: Sequence[Mapping]) -> str:
    rows = []
    for d in descriptions:
        cl = d["clusters"]
        rows.append({
            "platform": d["name"],
            "clusters (node ids in order)": ", ".join(c["name"] for c in cl),
            "node speed (kflop/s)": ", ".join(sorted({f"{c['speed'] / 1e3:.6g}" for c in cl})),
            "private links": ", ".join(sorted({f"{format_rate(c['bw'])}, "
                                               f"{format_latency(c['lat'])}" for c in cl})),
            "cluster switches": ", ".join(sorted({format_rate(c["switch_bw"]) for c in cl})),
            "main switch": f"{format_rate(d['backbone_bw'])}, {format_latency(d['backbone_lat'])}",
        })
    return markdown_table(pd.DataFrame(rows))


def readings(published: Mapping, homogeneous: Mapping) -> dict:
    """Every reading of §5.3's platform (:data:`~.platforms.MODELS`), run at this scale or
    not, with its values as text (``speed``, ``bw``, ``lat``, ``switch_bw``, ...,
    ``clusters``, ``nodes``), and ``base_differs``: the values in which ``base`` differs
    from ``printed``."""
    hom = published["homogeneous"]
    values = {m: homogeneous_values(published, homogeneous, m) for m in MODELS}
    out: dict = {}
    for model, v in values.items():
        text = {k: (format_latency(x) if k.endswith("lat") else format_rate(x))
                for k, x in v.items() if k != "speed"}
        out[model] = {**text, "speed": f"{v['speed'] / 1e3:.6g}e3 flop/s",
                      "clusters": int(hom["clusters"]), "nodes": int(hom["nodes_per_cluster"])}
    names = {"speed": "node speed", "bw": "private link bandwidth", "lat": "private link latency",
             "switch_bw": "cluster switch bandwidth", "switch_lat": "cluster switch latency",
             "backbone_bw": "main switch bandwidth", "backbone_lat": "main switch latency"}
    out["base_differs"] = [f"{names[k]} ({out['base'][k]} instead of {out['printed'][k]})"
                           for k in names if values["base"][k] != values["printed"][k]]
    return out


def _verdict_table(claims: pd.DataFrame) -> str:
    table = pd.DataFrame({
        "#": range(1, len(claims) + 1),
        "claim (source)": [f"{c} ({s})" for c, s in zip(claims["claim"], claims["source"])],
        "reading": claims["reading"], "unit": claims["unit"], "n": claims["n"],
        "ours": claims["ours"], "verdict": [f"**{v}**" for v in claims["verdict"]],
        "rule": claims["criterion"]})
    return markdown_table(table)


def _facts(trends_hom: pd.DataFrame, trends_het: pd.DataFrame) -> str:
    """Killed jobs and trends per reading, as the figures show them."""
    het = trends_het[trends_het["grouping"] == "all"]
    t = pd.concat([trends_hom.assign(experiment="homogeneous, " + trends_hom["model"]),
                   het.assign(experiment="heterogeneous")], ignore_index=True)
    t["runs_with_kills"] = t["runs_with_kills"].astype(str) + "/" + t["runs"].astype(str)
    return trends_markdown(t, ["experiment", "variant"], [
        "mean makespan (h)", "slope (h per 1e8)", "residual SD / mean (%)", "runs with kills",
        "jobs killed (%)"])


def readme_step(ctx) -> None:
    """Step ``dutot_readme``: write ``paper_figures/dutot/README.md``.

    Inputs: ``claims``, ``published``, the trend tables, ``eligible`` (the
    pool's facts), ``workloads`` (each seed's facts) and ``others`` (every
    other artifact, so the README comes last). Parameters: ``scale``,
    ``spec`` (the study's config), ``seeds``, ``f_comm``, ``runs`` (per
    experiment), ``models``, ``jobs``, ``platforms`` (name -> experiment,
    coords, source, description) and ``artifacts``.
    """
    p, inp = ctx.params, ctx.input
    # Links are relative to the README's place among the artifacts (paths
    # relative to the working directory), wherever the file is written.
    here = Path(next(a["path"] for a in p["artifacts"] if a["path"].endswith("/README.md"))).parent
    artifacts = [{**a, "rel": os.path.relpath(a["path"], here)} for a in p["artifacts"]]
    claims = read_claims(inp.claims)
    counts = verdict_counts(claims["verdict"])
    descriptions = [v["description"] for v in p["platforms"].values()]
    trends_hom = pd.read_csv(inp.trends_homogeneous)
    trends_het = pd.read_csv(inp.trends_heterogeneous)
    spec = p["spec"]
    f_max = max(max(v) for v in p["f_comm"].values())
    bounds = bottlenecks(descriptions, size=spec["workload"]["max_size"],
                         f_comp=spec["task"]["f_comp"], f_comm=f_max,
                         self_communication=spec["task"]["self_communication"])
    published = load_published(inp.published)
    text = render(
        __package__, "README.md.j2", **{**p, "artifacts": artifacts},
        paper=published["paper"], readings=readings(published, spec["homogeneous"]),
        experiments=published["experiments"],
        paper_platforms=(len(published["heterogeneous"]["sets"]["values"])
                         * len(published["heterogeneous"]["orderings"]["values"])),
        arts={Path(a["path"]).name: a for a in artifacts},
        verdicts=counts, verdict_table=_verdict_table(claims), f_max=f_max,
        min_units=MIN_UNITS, sign_min=sign_test_min_units(spec["claims"]["alpha"]),
        facts_table=_facts(trends_hom, trends_het),
        bounds_table=markdown_table(bounds, integers=False, digits=3),
        findings=findings(bounds, trends_hom, trends_het, spec["workload"]["f_w"]),
        platform_table=_platform_table(descriptions),
        eligible=json.loads(Path(inp.eligible).read_text()),
        workloads=[json.loads(Path(f).read_text()) for f in inp.workloads])
    write_text(ctx.output.readme, text, encoding="utf-8")
    ctx.log.info("verdicts: %s", counts)
