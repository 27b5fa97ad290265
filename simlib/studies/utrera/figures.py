"""Paper U's figure steps, one function each, given a :class:`~simlib.studies.StepContext`:
:func:`fig2`, :func:`table1`, :func:`traces` (Fig. 3, Tables 2-3, fragmentation, the
headline gains, the candidate orders, the time-model readings and the Fig. 1 substitute),
:func:`long_util` (Sect. 5.1) and :func:`whole_workloads` (Table 2's "Jobs" read as whole
workloads).

Tables are written as CSV (long format, read back by the claims and README
steps) and Markdown (for people): the numbers come from :mod:`.tables`, the
drawings from :mod:`.plots`, the words around the tables from the templates
``templates/<file>.md.j2``.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from simlib.cube import read_cube
from simlib.io import write_csv, write_text
from simlib.render import render
from simlib.studies.utrera import plots as F

from . import EASY, MALLEABLE
from . import tables as T
from .claims import JOB_CLASSES, claims
from .metrics import NARROW_PROCS, SHORT_RUNTIME, busiest_window, waiting_cpus
from .published import load_published

__all__ = ["ACK", "num", "pm", "or_na", "shown", "fig2", "fig2_readings_table", "table1", "traces",
           "long_util", "long_util_portion", "whole_frame", "whole_workloads"]

#: The traces' source, cited under every artifact built from them.
ACK = ("Traces from the Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), "
       "2014); see each log's acknowledgement line")

#: The two compared policies, in table order.
POLICIES = (EASY, MALLEABLE)


def shown(cube) -> list[str]:
    """The policies a comparison of EASY with FCFS-malleable shows: those two, then the
    user's policies of ``cube`` (config extra_policies, :func:`.plots.user_policies`) in
    its order; never FCFS-malleable's other readings or candidate orders.
    """
    return [*POLICIES, *F.user_policies(cube["policy"].values)]


def or_na(x, spec: str = ".2f") -> str:
    """``x`` formatted, or "n/a" when there is no such number (None, NaN).

    Examples
    --------
    >>> or_na(1.234), or_na(None), or_na(float("nan"))
    ('1.23', 'n/a', 'n/a')
    """
    return "n/a" if x is None or x != x else format(x, spec)


def num(x, digits: int = 3) -> str:
    """``x`` to about ``digits`` significant digits, without exponent notation.

    Examples
    --------
    >>> num(1234.5), num(0.012345), num(0.0)
    ('1234', '0.0123', '0')
    """
    if x == 0 or not np.isfinite(x):
        return f"{x:g}"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def pm(mean, ci, digits: int = 3) -> str:
    """A "mean ± ci" text cell ("–" without a mean; no "±" without a CI).

    Examples
    --------
    >>> pm(12.345, 0.678), pm(5.0, 0.0), pm(float("nan"), 1.0)
    ('12.3 ± 0.68', '5.00', '–')
    """
    if not np.isfinite(mean):
        return "–"
    text = num(mean, digits)
    if np.isfinite(ci) and ci > 0:
        text += f" ± {num(ci, 2)}"
    return text


def _write_md(path, name: str, **context) -> None:
    """``path``: artifact ``name`` (``fig3.md``...) rendered from ``templates/<name>.j2``."""
    write_text(path, render(__package__, f"{name}.j2", **context), encoding="utf-8")


def _write_csv(df: pd.DataFrame, path, index: bool = False) -> None:
    write_csv(df, path, index=index, lineterminator="\n")


def _read_json(path) -> dict:
    return json.loads(Path(path).read_text())


def _inputs(ctx):
    """The published numbers, the step's cube and its number of seeds."""
    cube = read_cube(ctx.input.cube)
    return load_published(ctx.input.published), cube, int(cube.sizes["seed"])


def _every_reading(cube, frame, path) -> None:
    """``path``: ``frame(cube)`` of the two compared policies and every other reading of the
    time model (no row when the cube holds none), for the reading x claim matrix; the
    user's policies are no reading."""
    others = [str(x) for x in cube["policy"].values if str(x) not in shown(cube)]
    every = frame(cube.sel(policy=[*POLICIES, *others]))
    _write_csv(every if others else every.iloc[0:0], path)


def fig2_readings_table(schedules, readings, published) -> pd.DataFrame:
    """Fig. 2's nine numbers under every reading: the main table, then each reading's
    FCFS-malleable rows under its label (``readings``: the JSON of step ``utrera_fig2``,
    ``runs`` "readings").
    """
    frames = [F.fig2_table(schedules, published)]
    for label, d in readings["policies"].items():
        t = F.fig2_table({"policies": {**schedules["policies"], MALLEABLE: d}}, published)
        frames.append(t[t["policy"] == MALLEABLE].assign(policy=label))
    return pd.concat(frames, ignore_index=True)


def fig2(ctx) -> None:
    """Step ``utrera_figures_fig2``: Fig. 2's Gantt charts (panels in ``policies``
    order) and its nine numbers; ``readings_csv``: :func:`fig2_readings_table`."""
    pub = load_published(ctx.input.published)
    sched = _read_json(ctx.input.schedules)
    F.plot_fig2(sched, pub["fig2"], ctx.output.png, scale_label=ctx.params["scale"],
                policies=ctx.params["policies"])
    table = F.fig2_table(sched, pub["fig2"])
    _write_csv(table, ctx.output.csv)
    readings = _read_json(ctx.input.readings) if ctx.input.get("readings") else {"policies": {}}
    _write_csv(fig2_readings_table(sched, readings, pub["fig2"]), ctx.output.readings_csv)
    _write_md(ctx.output.md, "fig2_numbers.md", cpus=sched["cpus"],
              source=pub["fig2"]["source"],
              table=F.to_markdown(table.assign(policy=table["policy"].map(F.policy_label)),
                                  digits=4))
    ctx.log.info("fig2: %d of %d numbers match", int(table["match"].sum()), len(table))


def _fit_note(fit: str, fits, lublin) -> str:
    """How Table 1's workloads of one fit were made (``templates/table1_fit.j2``), from
    that fit's records (step ``utrera_table1_workloads``, one per seed).
    """
    means = {}
    if fit != "arrivals" and fits:
        g = pd.DataFrame([f for x in fits for f in x["fits"]]).groupby("load").mean(
            numeric_only=True)
        means = {c: dict(g[c].items()) for c in g.columns}
    return render(__package__, "table1_fit.j2", fit=fit, seeds=len(fits), means=means,
                  lublin=lublin)


#: Table 1's metrics as table columns: cube variable, column name.
_T1_COLUMNS = (("mean_wait", "wait"), ("mean_response", "resp"), ("utrera_slowdown", "sld"),
               ("mean_bounded_slowdown", "bsld"))


def _table1_md(t1: pd.DataFrame, policies=POLICIES) -> dict:
    """One fit's Table 1 (ours beside S and R; ``policies`` in this order: a user's has no
    S or R) and the gains of FCFS-malleable, as Markdown tables."""
    wide, gains = [], []
    loads = sorted(set(t1["load"]))
    for load, pol in ((x, p) for x in loads for p in policies):
        row = {"load": f"{100 * load:.0f} %", "policy": F.policy_label(pol)}
        for m, name in _T1_COLUMNS:
            r = t1[(t1["load"] == load) & (t1["policy"] == pol) & (t1["metric"] == m)]
            if len(r):
                r = r.iloc[0]
                row[f"{name} ours"] = pm(r["mean"], r["ci95"])
                # The paper gives no bounded slowdown, and no user's policy.
                if m != "mean_bounded_slowdown" and pol in POLICIES:
                    row[f"{name} S"], row[f"{name} R"] = r["paper_S"], r["paper_R"]
        wide.append(row)
    for m, load in ((m, x) for m, _ in _T1_COLUMNS for x in loads):
        sub = t1[(t1["load"] == load) & (t1["metric"] == m)].set_index("policy")
        if len(sub):
            g = {k: 100 * (sub.loc[EASY, k] - sub.loc[MALLEABLE, k]) / sub.loc[EASY, k]
                 for k in ("mean", "paper_S", "paper_R")}
            gains.append({"metric": m, "load": f"{100 * load:.0f} %", "gain ours (%)": g["mean"],
                          "gain paper S (%)": g["paper_S"], "gain paper R (%)": g["paper_R"]})
    return {"table": F.to_markdown(pd.DataFrame(wide)),
            "gains": F.to_markdown(pd.DataFrame(gains), digits=3)}


def _table1_rows(cube, pub, fit: str) -> pd.DataFrame:
    """:func:`.tables.table1_frame` with columns ``fit`` and ``main`` (the main fit's rows
    first)."""
    t1 = T.table1_frame(cube, pub)
    if "fit" not in t1:  # a cube of one fit
        t1.insert(0, "fit", fit)
    t1.insert(1, "main", t1["fit"] == fit)
    return t1.sort_values("main", ascending=False, kind="mergesort").reset_index(drop=True)


def table1(ctx) -> None:
    """Step ``utrera_figures_table1``: Table 1, ours vs the paper's S and R, and the gains.

    ``png`` (the main fit), ``csv`` (every fit, column ``main``) and ``md``
    (every fit, the main one first, ``fits`` the workloads' fit records)
    show the main reading of the time model; ``readings_csv`` the main fit's
    rows of every reading.
    """
    p = ctx.params
    pub, cube, n_seeds = _inputs(ctx)
    policies = shown(cube)
    t1 = _table1_rows(cube.sel(policy=policies), pub, p["fit"])
    _write_csv(t1, ctx.output.csv)
    main_fit = cube.sel(fit=[p["fit"]]) if "fit" in cube.dims else cube
    _every_reading(main_fit, lambda c: _table1_rows(c, pub, p["fit"]), ctx.output.readings_csv)
    records = [_read_json(f) for f in ctx.input.fits]
    notes = {f: _fit_note(f, [r for r in records if r.get("fit", p["fit"]) == f], p["lublin"])
             for f in dict.fromkeys([p["fit"], *p["fits"]])}
    tau = f"bsld = bounded slowdown, max(1, response / max(execution as run, {p['tau']:g} s))"
    main = t1[t1["main"]].drop(columns=["fit", "main"])
    users = F.users_note(policies[len(POLICIES):])
    F.plot_table1(main, ctx.output.png, scale_label=p["scale"], n_seeds=n_seeds,
                  note="\n".join([*textwrap.wrap(notes[p["fit"]], 190), tau,
                                  *([users] if users else [])]))
    fits = [{"fit": p["fit"], "note": notes[p["fit"]], **_table1_md(main, policies)}]
    fits += [{"fit": f, "note": notes[f], **_table1_md(t1[t1["fit"] == f], policies)}
             for f in notes if f != p["fit"] and f in set(t1["fit"])]
    _write_md(ctx.output.md, "table1.md", scale=p["scale"], lublin=p["lublin"], fit=p["fit"],
              n_seeds=n_seeds, tau=tau, fits=fits)
    ctx.log.info("table1: %d rows, fits %s", len(t1), ", ".join(notes))


def _fig3(ctx, tf: pd.DataFrame, n_seeds: int, policies=POLICIES) -> None:
    """Fig. 3 and its values (and more metrics) per trace and policy (``policies``)."""
    p, out = ctx.params, ctx.output
    main = tf[tf["policy"].isin(policies)]
    users = F.users_note(policies[len(POLICIES):])
    F.plot_fig3(tf, out.fig3, scale_label=p["scale"], n_seeds=n_seeds, policies=policies,
                note=ACK + (f"\n{users}" if users else ""))
    _write_csv(main, out.fig3_csv)
    metrics = ("mean_wait", "mean_execution", "mean_response", "utrera_slowdown",
               "utrera_fragmentation", "utrera_mean_mpl", "timeline_utilization")
    rows = [{"trace": t, "policy": F.policy_label(pol),
             **{m: pm(*T.pick(main, trace=t, policy=pol, metric=m)[["mean", "ci95"]])
                for m in metrics}} for t in p["traces"] for pol in policies]
    _write_md(out.fig3_md, "fig3.md", scale=p["scale"], n_seeds=n_seeds,
              table=F.to_markdown(pd.DataFrame(rows)))


def _table2(ctx, tf: pd.DataFrame, pub) -> None:
    """Table 2: the trace portions, ours beside the paper's."""
    p, out = ctx.params, ctx.output
    infos = {t: _read_json(f) for t, f in zip(p["traces"], ctx.input.infos)}
    t2 = T.table2_frame(infos, tf, pub)
    _write_csv(t2, out.table2_csv, index=True)
    rows = list(t2.itertuples())
    md2 = pd.DataFrame({
        "CPUs (paper)": [f"{r.cpus} ({r.paper_cpus:g})" for r in rows],
        "jobs, positions (paper)": [f"{r.jobs}, {r.portion} ({r.paper_jobs})" for r in rows],
        "avg CPU util (paper)": [f"{100 * r.cpu_util:.0f} % ({100 * r.paper_cpu_util:.0f} %)"
                                 for r in rows],
        "long jobs' CPU util [n] (paper)": [
            f"{100 * r.long_cpu_util:.0f} % [{r.long_jobs}] ({100 * r.paper_long_cpu_util:.0f} %)"
            for r in rows],
        # A log without wait times (field 3) has no schedule of its own.
        "Req.Cpus/Cpus: log, waiting+running": [or_na(r.demand_ratio_log) for r in rows],
        "log, waiting only": [or_na(r.queue_demand_ratio_log) for r in rows],
        "our EASY, waiting+running": [f"{r.demand_ratio_easy:.2f}" for r in rows],
        "mean size / CPUs": [f"{r.mean_size_ratio:.3f}" for r in rows],
        "paper": [f"{r.paper_req_cpus_ratio:g}" for r in rows],
        "offered load": [f"{r.offered_load:.2f}" for r in rows],
    }, index=t2.index)
    _write_md(out.table2_md, "table2.md", scale=p["scale"], ack=ACK,
              table=F.to_markdown(md2, index=True))


def _paper_value(pub, trace: str, policy: str, metric: str) -> float:
    """The printed number of a trace, policy and metric (NaN: Fig. 3 prints none)."""
    if metric == "utrera_mean_mpl":
        return float(pub["table3"]["values"].get(trace, {}).get(policy, np.nan))
    if metric == "utrera_fragmentation":
        return float(pub["fragmentation"]["values"].get(policy, {}).get(trace, np.nan))
    return np.nan


def _per_trace(ctx, tf: pd.DataFrame, pub, metric: str, csv, md, unit: str = "", k: float = 1.0,
               policies=POLICIES, **words) -> None:
    """Table 3 (``utrera_mean_mpl``) or the fragmentation: both policies' mean and CI per
    trace beside the paper's (``csv``), and as Markdown (``md``: ours x ``k``); then the
    user's policies of ``policies`` (ours only)."""
    rows = []
    for t in ctx.params["traces"]:
        row = {"trace": t}
        for pol in policies:
            r = T.pick(tf, trace=t, policy=pol, metric=metric)
            row.update({pol: float(r["mean"]), f"{pol}_ci95": float(r["ci95"]),
                        **({f"paper_{pol}": _paper_value(pub, t, pol, metric)}
                           if pol in POLICIES else {})})
        rows.append(row)
    df = pd.DataFrame(rows)
    _write_csv(df, ctx.output[csv])
    cols = {"trace": df["trace"]}
    for pol, name in ((EASY, "EASY"), (MALLEABLE, "FCFS-malleable"),
                      *((u, u) for u in policies if u not in POLICIES)):
        cols[f"{name} ours{unit}"] = [pm(k * a, k * b) for a, b in zip(df[pol], df[f"{pol}_ci95"])]
        if pol in POLICIES:
            cols[f"{name} paper{unit}"] = k * df[f"paper_{pol}"]
    _write_md(ctx.output[md], Path(ctx.output[md]).name, scale=ctx.params["scale"],
              table=F.to_markdown(pd.DataFrame(cols)), **words)


def _headline(ctx, cube, pub) -> None:
    """The headline gains, under the main reading of the time model and the others."""
    p, out = ctx.params, ctx.output
    # The main reading, then every other reading of the time model.
    gains = pd.concat([T.gains_frame(cube, new=label) for label in p["readings"].values()],
                      ignore_index=True)
    _write_csv(gains, out.gains_csv)
    hv = pub["headline"]["values"]
    names = {v: k for k, v in p["readings"].items()}
    main_gains = gains[gains["policy"] == MALLEABLE]
    gmd = pd.DataFrame([{"metric": F.METRIC_LABELS[m], "over": r.trace,
                         "gain ours (%)": pm(r.mean, r.ci95), "paper (%)": 100 * hv[m]}
                        for m in ("utrera_slowdown", "mean_response")
                        for r in main_gains[main_gains["metric"] == m].itertuples()])
    other = gains[(gains["policy"] != MALLEABLE) & (gains["trace"] == "mean of traces")]
    omd = pd.DataFrame([{"reading": names.get(r.policy, r.policy),
                         "metric": F.METRIC_LABELS[r.metric],
                         "gain, mean of traces (%)": pm(r.mean, r.ci95),
                         "paper (%)": 100 * hv[r.metric]} for r in other.itertuples()])
    _write_md(out.gains_md, "headline_gains.md", scale=p["scale"], note=pub["headline"]["note"],
              table=F.to_markdown(gmd), others=F.to_markdown(omd))


def _job_classes(ctx, tf: pd.DataFrame, policies=POLICIES) -> None:
    """Sect. 5.1's breakdown: average slowdown per runtime x size class, trace and policy."""
    out = ctx.output
    rows = tf[tf["policy"].isin(policies) & tf["metric"].isin(list(JOB_CLASSES))].copy()
    rows.insert(2, "class", rows["metric"].map(lambda m: JOB_CLASSES[m][0]))
    _write_csv(rows, out.classes_csv)
    wide = rows.assign(value=[pm(m, h) for m, h in zip(rows["mean"], rows["ci95"])]).pivot_table(
        index=["trace", "class"], columns="policy", values="value", aggfunc="first").reset_index()
    # The runs' classes (the published ones, when given, are the same: the claim checks).
    _write_md(out.classes_md, "slowdown_by_class.md", runtime_s=SHORT_RUNTIME, procs=NARROW_PROCS,
              table=F.to_markdown(wide))


def _orders_readings(ctx, cube, tf: pd.DataFrame, n_seeds: int) -> None:
    """The candidate-order ablation and the time-model readings."""
    p, out = ctx.params, ctx.output
    F.plot_ratios(tf, p["orders"], p["orders"]["oldest"], out.orders, "orders", base="oldest",
                  scale=p["scale"], n_seeds=n_seeds)
    _write_csv(T.orders_frame(cube, p["orders"]), out.orders_csv)
    shown = p["plotted_readings"]
    F.plot_ratios(tf, {k: v for k, v in p["readings"].items() if k in shown}, EASY, out.readings,
                  "readings", scale=p["scale"], n_seeds=n_seeds)
    rd = tf[tf["policy"].isin(list(p["readings"].values()) + [EASY])].copy()
    rd.insert(1, "reading",
              rd["policy"].map({v: k for k, v in p["readings"].items()}).fillna(EASY))
    rd["params"] = rd["reading"].map(lambda r: json.dumps(p["reading_params"].get(r, {}),
                                                          sort_keys=True))
    _write_csv(rd, out.readings_csv)


def _fig1(ctx) -> float:
    """The Fig. 1 substitute: a week of a trace simulated under EASY; returns its start."""
    p = ctx.params
    fig1 = p["fig1"]
    jobs = pd.read_csv(ctx.input.fig1_jobs)
    tl = pd.read_csv(ctx.input.fig1_timeline)
    length = float(fig1["days"]) * 86400.0
    start = fig1["start"]
    t0 = (busiest_window(tl, length) if start == "busiest"
          else float(tl["time"].iloc[0]) + float(start) * 86400.0)
    how = "busiest: largest mean queue length" if start == "busiest" else "configured"
    F.plot_fig1(tl, waiting_cpus(jobs, tl["time"]), p["fig1_cpus"], t0, length, ctx.output.fig1,
                trace=fig1["trace"], scale_label=p["scale"],
                note=(f"window from day {(t0 - tl['time'].iloc[0]) / 86400:.1f} of the portion "
                      f"({how})\n" + ACK))
    return t0


def traces(ctx) -> None:
    """Step ``utrera_figures_traces``: Fig. 3, Tables 2-3, fragmentation, the headline
    gains, the candidate orders, the time-model readings (``readings``: name -> policy
    label, the main reading first) and the Fig. 1 substitute (EASY's first run on its
    trace: ``fig1_jobs``, ``fig1_timeline``)."""
    pub, cube, n_seeds = _inputs(ctx)
    tf, policies = T.long_frame(cube), shown(cube)
    _fig3(ctx, tf, n_seeds, policies)
    _table2(ctx, tf, pub)
    _per_trace(ctx, tf, pub, "utrera_mean_mpl", "table3_csv", "table3_md", policies=policies,
               n_seeds=n_seeds)
    _per_trace(ctx, tf, pub, "utrera_fragmentation", "frag_csv", "frag_md", " (%)", 100,
               policies=policies, note=pub["fragmentation"]["note"])
    # The headline, the candidate orders and the readings: FCFS-malleable's own.
    _headline(ctx, cube, pub)
    _orders_readings(ctx, cube, tf, n_seeds)
    _job_classes(ctx, tf, policies)
    t0 = _fig1(ctx)
    ctx.log.info("traces: %d rows; fig1 window starts at %.0f s", len(tf), t0)


def long_util_portion(info: dict, min_long_jobs: int) -> dict:
    """Sect. 5.1's portion as ``long_util.csv`` columns, from its record (``info``).
    """
    first, n = int(info["first_job"]), int(info["jobs"])
    return {"trace": info["trace"], "selection": info.get("selection", "positions"),
            "first_job": first, "last_job": first + n - 1, "jobs": n,
            "long_jobs": int(info.get("long_jobs", info["portion"]["long_jobs"])),
            "long_jobs_cleaned": info.get("long_jobs_cleaned"),
            "min_long_jobs": int(min_long_jobs)}


def long_util(ctx) -> None:
    """Step ``utrera_figures_long_util``: Sect. 5.1, long jobs' CPU utilization varied.

    ``csv`` is :func:`.tables.long_frame` with the portion's columns
    (:func:`long_util_portion` of ``info``, read by the claim); it, ``png``
    and ``md`` show the main reading, ``readings_csv`` every reading's rows.
    """
    p = ctx.params
    pub, cube, n_seeds = _inputs(ctx)
    info = _read_json(ctx.input.info)
    where = long_util_portion(info, p["min_long_jobs"])
    policies = shown(cube)
    lu = T.long_frame(cube.sel(policy=policies), "long_util").assign(**where)
    _write_csv(lu, ctx.output.csv)
    _every_reading(cube, lambda c: T.long_frame(c, "long_util").assign(**where), ctx.output.readings_csv)
    # A small (smoke) portion may hold no long job with CPU-time data at all.
    note = render(__package__, "long_util_note.j2", p=where,
                  own=info["portion"].get("long_cpu_util_mean"))
    users = F.users_note(policies[len(POLICIES):])
    F.plot_long_util(lu, ctx.output.png, trace=p["trace"], scale_label=p["scale"],
                     n_seeds=n_seeds, threshold=float(pub["long_util"]["threshold"]),
                     note=note + (f"\n{users}" if users else ""))
    rows = []
    for u in sorted(set(lu["long_util"])):
        row = {"long jobs' CPU util": f"{100 * u:.0f} %"}
        for pol in policies:
            for m, name in (("utrera_slowdown", "slowdown"), ("mean_response", "response (s)")):
                r = T.pick(lu, long_util=u, policy=pol, metric=m)
                row[f"{F.policy_label(pol)} {name}"] = pm(r["mean"], r["ci95"])
        rows.append(row)
    _write_md(ctx.output.md, "long_util.md", trace=p["trace"], scale=p["scale"], mode=p["mode"],
              n_seeds=n_seeds, note=note, long_jobs=where["long_jobs"],
              min_long_jobs=where["min_long_jobs"], claim=pub["long_util"]["claim"],
              table=F.to_markdown(pd.DataFrame(rows)))
    ctx.log.info("long_util: %d rows, %d long jobs in the portion", len(lu), where["long_jobs"])


#: What whole_workloads.md compares: Fig. 3's four metrics, Table 3's MPL, fragmentation.
WHOLE_METRICS = ("mean_wait", "mean_execution", "mean_response", "utrera_slowdown",
                 "utrera_mean_mpl", "utrera_fragmentation")


def whole_frame(whole: pd.DataFrame, portions: pd.DataFrame, pub, infos: dict,
                portion_specs: dict, policies=POLICIES) -> pd.DataFrame:
    """One row per (trace, metric, policy of ``policies``): whole workload, portion and paper
    (``whole``, ``portions``: :func:`.tables.long_frame`; ``infos``: the whole
    workloads' records; ``portion_specs``: Fig. 3's portions, by trace)."""
    rows = []
    for t, m, pol in ((t, m, pol) for t in infos for m in WHOLE_METRICS for pol in policies):
        w = T.pick(whole, trace=t, policy=pol, metric=m)
        q = T.pick(portions, trace=t, policy=pol, metric=m)
        rows.append({
            "trace": t, "metric": m, "policy": pol,
            "whole_first_job": int(infos[t]["first_job"]), "whole_jobs": int(infos[t]["jobs"]),
            "whole_mean": float(w["mean"]), "whole_ci95": float(w["ci95"]),
            "portion_first_job": int(portion_specs[t]["first_job"]),
            "portion_jobs": int(portion_specs[t]["n_jobs"]),
            "portion_mean": float(q["mean"]), "portion_ci95": float(q["ci95"]),
            "paper": _paper_value(pub, t, pol, m)})
    return pd.DataFrame(rows)


def whole_workloads(ctx) -> None:
    """Step ``utrera_figures_whole_workloads``: Table 2's "Jobs" read as whole workloads.

    ``csv`` (:func:`whole_frame`) and ``md``: the whole workloads' numbers
    beside the portions' (``portions_cube``) and the paper's, and the
    verdicts of the claims on the traces (:func:`.claims.claims`) on both.
    """
    p = ctx.params
    pub, cube, n_seeds = _inputs(ctx)
    whole, traces, policies = T.long_frame(cube), list(p["traces"]), shown(cube)
    portions = T.long_frame(read_cube(ctx.input.portions_cube))
    portions = portions[portions["trace"].isin(traces) & portions["policy"].isin(policies)]
    infos = {t: _read_json(f) for t, f in zip(traces, ctx.input.infos)}
    wf = whole_frame(whole, portions, pub, infos, p["portions"], policies)
    _write_csv(wf, ctx.output.csv)
    rows = []
    for r in wf.itertuples():
        k = 100 if r.metric == "utrera_fragmentation" else 1
        rows.append({"trace": r.trace, "metric": F.METRIC_LABELS[r.metric]
                     + (" (%)" if k == 100 else ""), "policy": F.policy_label(r.policy),
                     "portion": pm(k * r.portion_mean, k * r.portion_ci95),
                     "whole workload": pm(k * r.whole_mean, k * r.whole_ci95),
                     "paper": "–" if np.isnan(r.paper) else f"{k * r.paper:g}"})
    workloads = [{"trace": t, "first": i["first_job"], "last": i["first_job"] + i["jobs"] - 1,
                  "portion_first": p["portions"][t]["first_job"],
                  "portion_last": p["portions"][t]["first_job"] + p["portions"][t]["n_jobs"] - 1,
                  "paper": pub["table2"]["values"].get(t, {}).get("jobs", "?")}
                 for t, i in infos.items()]
    # The claims on the traces under both readings of the "Jobs" column.
    on = {"portions": claims(published=pub, traces=portions),
          "whole workloads": claims(published=pub, traces=whole)}
    verdicts = pd.DataFrame({
        "claim": [c.claim for c in on["portions"]],
        **{f"verdict on the {k}": [c.verdict.value for c in v] for k, v in on.items()},
        "ours on the whole workloads": [c.ours for c in on["whole workloads"]]})
    _write_md(ctx.output.md, "whole_workloads.md", scale=p["scale"], workloads=workloads,
              n_seeds=n_seeds, ack=ACK, table=F.to_markdown(pd.DataFrame(rows)),
              verdicts=F.to_markdown(verdicts))
    ctx.log.info("whole workloads: %d rows", len(wf))
