"""Paper D's own README (step ``dutot_readme``): ``paper_figures/dutot/README.md``.

The scale and grid, a verdict per claim and reading (``claims.csv`` of step
``dutot_claims``, each rule stated beside its verdict), the figures and
tables, the facts behind the verdicts that follow from the platforms alone
(:func:`bottlenecks`: which resource bounds a job's duration), and every
interpretation choice (:func:`interpretation`). Tables go through the one
renderer, :func:`simlib.markdown.markdown_table`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from simlib.claims import read_claims, verdict_counts
from simlib.io import write_text
from simlib.markdown import markdown_table

from .figures import format_latency, format_rate, picks_note, variant_label
from .published import load_published

__all__ = ["bottlenecks", "interpretation", "readme_step"]


def bottlenecks(descriptions: Sequence[Mapping], *, size: int, f_comp: float, f_comm: float,
                self_communication: bool = True) -> pd.DataFrame:
    """Seconds each resource needs per second of trace runtime, for one job alone.

    A job of ``size`` hosts in one cluster (the first) and, if it has at
    least two, the same job split evenly over two clusters: SimGrid's
    parallel-task model runs a task at the pace of its most loaded resource,
    so the largest of these is the job's duration per second of trace
    runtime (without other jobs). Compared with F_w, it says when jobs hit
    their walltime.

    Columns: ``platform``, ``placement`` (one cluster / two clusters),
    ``compute``, ``private link``, ``cluster switch``, ``main switch``,
    ``bound`` (the largest) and ``binding`` (its resource).

    Examples
    --------
    >>> d = {"name": "p", "backbone_bw": 1e9, "backbone_lat": 0.0, "clusters": [
    ...     {"name": "c", "nodes": 2, "speed": 1e6, "bw": 1e6, "lat": 0.0, "switch_bw": 1e9,
    ...      "switch_lat": 0.0}] * 2}
    >>> b = bottlenecks([d], size=2, f_comp=1e6, f_comm=1e6)
    >>> b[["placement", "compute", "private link", "binding"]].values.tolist()[0]
    ['one cluster', 1.0, 2.0, 'private link']
    """
    rows = []
    n = int(size)
    diag = 1 if self_communication else 0
    for d in descriptions:
        c0 = d["clusters"][0]
        per_pair = float(f_comm)
        compute = float(f_comp) / min(c["speed"] for c in d["clusters"][:2])
        # Each host sends to every host of the job (itself too, when counted).
        sent = (n - 1 + diag) * per_pair
        one = {"compute": float(f_comp) / c0["speed"],
               "private link": sent / c0["bw"],
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
                   "private link": sent / min(c0["bw"], c1["bw"]),
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
             f_w: float) -> list[str]:
    """What follows mechanically from the platforms and the runs, one bullet per reading.

    Per platform group (each homogeneous model; the heterogeneous platforms):
    what bounds a job alone in one cluster and split over two
    (:func:`bottlenecks`), whether a job alone would reach its walltime,
    and how many runs had jobs killed.

    Examples
    --------
    >>> b = pd.DataFrame({"platform": ["hom-printed"] * 2, "placement": ["one cluster",
    ...                   "two clusters"], "bound": [2e3, 2e3], "binding": ["private link"] * 2})
    >>> t = pd.DataFrame({"model": ["printed"], "runs": [4], "runs_with_kills": [2],
    ...                   "killed_share": [0.1]})
    >>> het = pd.DataFrame(columns=["grouping", "runs", "runs_with_kills", "killed_share"])
    >>> print(findings(b, t, het, 1000.0)[0])  # doctest: +NORMALIZE_WHITESPACE
    - **homogeneous, printed model**: a job of the largest size alone is bound by its private
      link in one cluster (2e+03 s per s of runtime) and private link split over two (2e+03);
      above F_w = 1000, so such jobs reach their walltime; placement does not change its
      duration, so the variants differ only in when jobs start. 2/4 runs had jobs killed
      (10.0 % of the jobs).
    """
    out = []
    groups = [(f"homogeneous, {m} model", bounds[bounds["platform"] == f"hom-{m}"],
               trends_hom[trends_hom["model"] == m]) for m in dict.fromkeys(trends_hom["model"])]
    groups.append(("heterogeneous platforms", bounds[bounds["platform"].str.startswith("het-")],
                   trends_het[trends_het["grouping"] == "all"]))
    for name, b, t in groups:
        if b.empty or t.empty:
            continue
        parts = []
        for placement, label in (("one cluster", "in one cluster"),
                                 ("two clusters", "split over two")):
            rows = b[b["placement"] == placement]
            if rows.empty:
                continue
            bindings = ", ".join(sorted(set(rows["binding"])))
            bound = (f"{rows['bound'].min():.3g}" if rows["bound"].nunique() == 1 else
                     f"{rows['bound'].min():.3g}-{rows['bound'].max():.3g}")
            parts.append((label, bindings, bound))
        text = f"- **{name}**: a job of the largest size alone is bound by its " + " and ".join(
            f"{bd} {lb} ({bo}{' s per s of runtime' if i == 0 else ''})"
            for i, (lb, bd, bo) in enumerate(parts))
        worst = b["bound"].max()
        text += (f"; above F_w = {f_w:g}, so such jobs reach their walltime" if worst > f_w
                 else f"; below F_w = {f_w:g}")
        if set(b["binding"]) == {"private link"}:
            text += ("; placement does not change its duration, so the variants differ only "
                     "in when jobs start")
        runs, kills = int(t["runs"].sum()), int(t["runs_with_kills"].sum())
        share = float((t["killed_share"] * t["runs"]).sum() / max(runs, 1))
        text += f". {kills}/{runs} runs had jobs killed ({100 * share:.1f} % of the jobs)."
        out.append(text)
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


def interpretation(p: Mapping, eligible: Mapping) -> str:
    """The interpretation choices, with this run's settings."""
    spec = p["spec"]
    wl, task, hom, het = spec["workload"], spec["task"], spec["homogeneous"], spec["heterogeneous"]
    counts = eligible["filter_counts"]
    return f"""\
## Interpretation choices

1. **Variants.** Conservative backfilling (`conservative`,
   `simlib/policies/conservative.py`) with `allocation` = each of the five
   rules of §5.2 (basic, best_effort_contiguous, best_effort_local,
   contiguous, local: the policy's docstring says how each accepts a hole
   and picks resources) and `recompute: {spec.get('recompute', 'rebuild')}`: when a job
   ends before its walltime, every queued job is planned again from scratch,
   in queue order ("the job allocation is completely recomputed at each new
   event", §2); `compress` (reservations only move earlier) is the
   alternative switch. The scheduler knows node ids and cluster membership
   only (§3); reservations use the walltimes.
2. **Workloads (§5.1).** The whole CEA-Curie log ({eligible['cleaning_counts']['jobs_in']}
   jobs) cleaned with the project's rules (`simlib/workload/prepare.py`:
   {eligible['cleaning_counts']['jobs_dropped']} dropped, mostly zero runtimes). Size =
   requested processors (SWF field 8), falling back to the allocated ones
   (field 5) where the log has none: {eligible['size_from_allocated']} jobs. One processor of the log
   is one node of the platform. Kept: size <= {wl['max_size']} (fits one cluster) and
   {wl['runtime_min']:g} s <= runtime <= {wl['runtime_max']:g} s (l_t = 1 h, u_t = 4 h as in §5.3
   and §5.4; §5.1 calls 1 day "typical"): {counts['eligible']} eligible jobs
   ({counts['too_wide']} too wide, {counts['too_short']} too short, {counts['too_long']} too long).
   Seed s draws {p['jobs']} of them without replacement with
   `numpy.random.Generator(PCG64(SeedSequence([{wl['base_seed']}, s])))`
   (`Generator.choice(pool, {p['jobs']}, replace=False)`), kept in
   {_order_text(wl['order'])}, which is the queue order since every release
   date is 0. Walltime w_j = max(rw_j, ret_j x F_w), F_w = {wl['f_w']:g},
   rounded up to a whole second (SWF field 9). The same seed gives the same
   workload to both experiments. **The paper's own picks cannot be
   recovered** (its generator and random numbers are not published): our
   workloads are drawn the same way, not the same jobs.
3. **Jobs as parallel tasks (§5.1).** c_j = ret_j x F_comp flop on each of
   the job's hosts (F_comp = {task['f_comp']:g}); C_j[r, c] = ret_j x F_comm bytes from its
   r-th host to its c-th for every pair, **diagonal included**
   (`self_communication: {str(task['self_communication']).lower()}`): the paper's S matrix is all
   ones, and SimGrid routes a host's traffic to itself up its private link,
   through its cluster switch and back. `false` zeroes the diagonal.
   SimGrid 3.32's parallel-task model (`ptask_L07`) runs a task at the pace
   of its most loaded resource; a job still running at its walltime is
   killed there (`jobs_killed`).
4. **Homogeneous platform (§5.3), two readings** (cube coordinate `model`;
   this scale runs {', '.join(p['models'])}). `printed`: §5.3's values as printed,
   bw_s = 1.25e9 B/s, lat_s = 0, bw = 1.25e6 B/s, lat = 24e-9 s, main switch
   1.25e9 B/s and 24e-9 s; the node speed is not printed there, so Table 1's
   base cp ({hom['printed_speed']}: 286.097e3 flop/s) stands in. `griffon`:
   SimGrid's own Griffon description (examples/platforms/griffon.xml), which
   §5.3 says the platform derives from: nodes 286.087e3 flop/s, private
   links 125 MB/s (1.25e8 B/s) and 24 us, cluster switch 1.25e9 B/s with
   latency 0, main switch 1.25e9 B/s and 24 us. **The printed private links
   look like unit slips of Griffon's**: 1.25e6 B/s where Griffon has
   125 MB/s = 1.25e8 B/s, and 24 ns where it has 24 us. Under the printed
   values a job's private links are slower than its share of the cluster
   switch by two orders of magnitude (see "What bounds a job" above).
5. **Heterogeneous platforms (§5.4, Table 1).** Cluster c = base b x its
   multipliers (10 Gbit/s = 1.25e9 B/s); sets high = (c1, c2, c3) and
   low = (c4, c5, c6); orderings o1-o4 as printed, the k-th entry picking
   the set's cluster of node ids 16k to 16k + 15. o2 is printed
   (c3, c3, c3, c2, c2, c2, c1, c1), i.e. 3 c3 and 2 c1, although the text
   announces 3 c1, 3 c2 and 2 c3 per platform: taken as printed (so o2 has
   more fast nodes than the other orderings; `ordering_values` can replace
   it). The heterogeneous platforms' main switch is not printed:
   {_backbone_text(het['backbone'])}.
6. **Metric.** The makespan C_max = the last completion time (every job is
   released at 0), per run; also in the cubes: mean execution and wait
   times and killed jobs. F_comm grids: {_f_text(p['f_comm'])}.
7. **Claims.** Each claim is tested per reading (homogeneous model;
   heterogeneous) on paired runs (same workload and F_comm, and platform),
   with the thresholds of the grid (`claims`: share {spec['claims']['share']:g}, alpha
   {spec['claims']['alpha']:g}, spread {spec['claims']['spread']:g}); the rules are
   in the verdict table and in `simlib/studies/dutot/report.py`.
"""


def _order_text(order: str) -> str:
    return "trace (submission) order" if order == "trace" else "draw order"


def _backbone_text(backbone) -> str:
    if backbone == "homogeneous":
        return "the main switch of §5.3 (1.25e9 B/s, 24e-9 s)"
    return "the grid's value " + json.dumps(backbone, sort_keys=True)


def _f_text(f_comm: Mapping[str, Sequence[float]]) -> str:
    return "; ".join(f"{e} {len(v)} values, 0 to {max(v):.3g}" for e, v in f_comm.items())


def _link(path: str, here: Path) -> str:
    rel = os.path.relpath(path, here)
    return f"[`{path}`]({rel})"


def _verdict_table(claims: pd.DataFrame) -> str:
    table = pd.DataFrame({
        "#": range(1, len(claims) + 1),
        "claim (source)": [f"{c} ({s})" for c, s in zip(claims["claim"], claims["source"])],
        "reading": claims["reading"], "ours": claims["ours"],
        "verdict": [f"**{v}**" for v in claims["verdict"]], "rule": claims["criterion"]})
    return markdown_table(table)


def _facts(trends_hom: pd.DataFrame, trends_het: pd.DataFrame) -> str:
    """Killed jobs and trends per reading, as the figures show them."""
    rows = []
    for r in trends_hom.itertuples():
        rows.append({"experiment": f"homogeneous, {r.model}", "variant": variant_label(r.variant),
                     "mean makespan (h)": r.mean_makespan / 3600,
                     "slope (h per 1e8)": r.slope * 1e8 / 3600,
                     "residual SD / mean (%)": 100 * r.resid_sd_rel,
                     "runs with kills": f"{r.runs_with_kills}/{r.runs}",
                     "jobs killed (%)": 100 * r.killed_share})
    for r in trends_het[trends_het["grouping"] == "all"].itertuples():
        rows.append({"experiment": "heterogeneous", "variant": variant_label(r.variant),
                     "mean makespan (h)": r.mean_makespan / 3600,
                     "slope (h per 1e8)": r.slope * 1e8 / 3600,
                     "residual SD / mean (%)": 100 * r.resid_sd_rel,
                     "runs with kills": f"{r.runs_with_kills}/{r.runs}",
                     "jobs killed (%)": 100 * r.killed_share})
    return markdown_table(pd.DataFrame(rows), integers=False, digits=4)


def readme_step(ctx) -> None:
    """Step ``dutot_readme``: write ``paper_figures/dutot/README.md``.

    Inputs: ``claims``, ``published``, the trend tables, ``eligible`` (the
    pool's facts), ``workloads`` (each seed's facts) and ``others`` (every
    other artifact, so the README comes last). Parameters: ``scale``,
    ``scale_description``, ``spec`` (the study's config), ``seeds``,
    ``f_comm``, ``runs`` (per experiment), ``models``, ``jobs``,
    ``platforms`` (name -> experiment, coords, source, description) and
    ``artifacts``.
    """
    p, inp = ctx.params, ctx.input
    out = Path(ctx.output.readme)
    arts = {Path(a["path"]).name: a for a in p["artifacts"]}
    # Links are relative to the README's place among the artifacts (paths
    # relative to the working directory), wherever the file is written.
    here = Path(arts["README.md"]["path"]).parent
    pub = load_published(inp.published)
    claims = read_claims(inp.claims)
    counts = verdict_counts(claims["verdict"])
    eligible = json.loads(Path(inp.eligible).read_text())
    workloads = [json.loads(Path(f).read_text()) for f in inp.workloads]
    descriptions = [v["description"] for v in p["platforms"].values()]
    trends_hom = pd.read_csv(inp.trends_homogeneous)
    trends_het = pd.read_csv(inp.trends_heterogeneous)
    spec = p["spec"]
    f_max = max(max(v) for v in p["f_comm"].values())
    bounds = bottlenecks(descriptions, size=spec["workload"]["max_size"],
                         f_comp=spec["task"]["f_comp"], f_comm=f_max,
                         self_communication=spec["task"]["self_communication"])
    bounds_md = markdown_table(bounds, integers=False, digits=3)
    lines = [
        "# Paper D: contiguity and locality in conservative backfilling, timed by SimGrid",
        "",
        f"{pub['paper']}.",
        "",
        "Generated by `snakemake` (rule `dutot_readme`); do not edit by hand. The paper prints "
        "no result numbers: `config/published/dutot.yaml` holds its claims and the parameters "
        "it prints (the platforms are built from there), each with its source.",
        "",
        f"**Scale: {p['scale']}**. Homogeneous experiment: "
        f"{len(p['seeds']['homogeneous'])} seeds x {len(p['f_comm']['homogeneous'])} F_comm "
        f"values x {len(spec['variants'])} variants x {len(p['models'])} model(s) = "
        f"{p['runs']['homogeneous']} runs (the paper: 20 seeds x 40 F_comm x 5 = 4,000 on one "
        f"platform); heterogeneous: {len(p['seeds']['heterogeneous'])} seeds x "
        f"{len(p['f_comm']['heterogeneous'])} F_comm values x {len(spec['variants'])} variants x "
        f"{sum(1 for v in p['platforms'].values() if v['experiment'] == 'heterogeneous')} "
        f"platforms = {p['runs']['heterogeneous']} runs (the paper: 10 x 20 x 5 x 8 = 8,000). "
        f"{picks_note(p['jobs'])}",
        "",
        "## Verdicts",
        "",
        "Summary: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + ". One row per claim "
        "and reading; each verdict follows its rule (last column) mechanically from this run's "
        "numbers. Few seeds (smoke, default) give the paired tests little power: a claim can "
        "then be *not reproduced* for want of runs; the full scale is the paper's grid.",
        "",
        _verdict_table(claims),
        "## Figures",
        "",
    ]
    for name in [f"fig1_homogeneous_{m}.png" for m in p["models"]] + [
            "fig3_heterogeneous.png", "fig3_heterogeneous_by_set.png",
            "fig3_heterogeneous_by_ordering.png", "platforms.png"]:
        if name in arts:
            lines += [f"### {arts[name]['title']}", "", f"![{name}]({name})", ""]
    lines += [
        "## Trends, stability and killed jobs",
        "",
        "Per reading and variant: least-squares trend of makespan vs F_comm over every run, the "
        "residual SD around it relative to the mean makespan (stability), and the runs in which "
        "jobs reached their walltime. Per set and per ordering: "
        f"{_link(arts['trends_heterogeneous.md']['path'], here)}.",
        "",
        _facts(trends_hom, trends_het),
        "## What bounds a job (from the platforms alone)",
        "",
        f"Seconds of each resource per second of trace runtime for one job of "
        f"{spec['workload']['max_size']} hosts alone, at the largest F_comm of this scale "
        f"({f_max:.3g}), F_comp = {spec['task']['f_comp']:g}: SimGrid's parallel-task model "
        "runs a task at the pace of its most loaded resource, so `bound` is the job's duration "
        f"per second of trace runtime; above F_w = {spec['workload']['f_w']:g} the job reaches "
        "its walltime. Where the private link binds, placement cannot matter: contiguity and "
        "locality only change when jobs start.",
        "",
        bounds_md,
        "What follows for each reading:",
        "",
        *findings(bounds, trends_hom, trends_het, spec["workload"]["f_w"]),
        "",
        "## Platforms",
        "",
        _platform_table(descriptions),
        "Table 1 with absolute values: " + _link(arts["table1.md"]["path"], here) + "; the "
        "SimGrid files: `platforms/*.xml`.",
        "",
        "## Workloads",
        "",
        f"{eligible['filter_counts']['eligible']} eligible jobs in the cleaned CEA-Curie log "
        "(sizes: " + ", ".join(f"{k}: {v}" for k, v in eligible["pool_sizes"].items()) + "). "
        "Per seed: " + "; ".join(
            f"seed {w['seed']}: {w['jobs']} jobs, mean runtime {w['runtime_mean'] / 3600:.2f} h, "
            f"{w['walltime_from_request']} walltimes from the request" for w in workloads) + ".",
        "",
        interpretation(p, eligible),
        "## All artifacts",
        "",
    ]
    lines += [f"- {_link(a['path'], here)} — {a['title']}" for a in p["artifacts"]]
    lines += ["", "Trace: CEA-Curie, Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, "
              "JPDC 74(10), 2014); log by Joseph Emeras, CEA/CNRS.", ""]
    write_text(out, "\n".join(lines), encoding="utf-8")
    ctx.log.info("verdicts: %s", counts)
