"""Pipeline entry point: paper U's figures and tables (one rule per part).

Dispatches on the rule: ``utrera_figures_fig2``, ``utrera_figures_table1``,
``utrera_figures_traces`` (Fig. 3, Tables 2-3, fragmentation, headline,
orders, readings, Fig. 1 substitute) and ``utrera_figures_long_util``.
Tables are written as CSV (long format, read back by the README step) and
Markdown (for people). Logic lives in simlib.studies.utrera and
simlib.figures.utrera.
"""
import json
from pathlib import Path

import numpy as np
import pandas as pd

from _common import job_log
from simlib.io import write_csv, write_text
from simlib.cube import read_cube
from simlib.figures import utrera as F
from simlib.studies import utrera as U
from simlib.studies import utrera_report as R

ACK = ("Traces from the Parallel Workloads Archive (Feitelson, Tsafrir, Krakov, JPDC 74(10), "
       "2014); see each log's acknowledgement line")



def _num(x, spec=".2f"):
    """``x`` formatted, or "n/a" when the input has no such number (None, NaN)."""
    return "n/a" if x is None or x != x else format(x, spec)

def pm(mean, ci, digits=3):
    """'mean ± ci' text cell."""
    if not np.isfinite(mean):
        return "–"
    text = num(mean, digits)
    if np.isfinite(ci) and ci > 0:
        text += f" ± {num(ci, 2)}"
    return text


def num(x, digits=3):
    """x to about ``digits`` significant digits, without exponent notation."""
    if x == 0 or not np.isfinite(x):
        return f"{x:g}"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def write_md(path, title, intro, body):
    write_text(path, f"# {title}\n\n{intro}\n\n{body}", encoding="utf-8")


def fig2(snakemake, log):
    pub = R.load_published(snakemake.input.published)
    sched = json.loads(Path(snakemake.input.schedules).read_text())
    F.plot_fig2(sched, pub["fig2"], snakemake.output.png, scale_label=snakemake.params.scale,
                policies=snakemake.params.policies)
    table = F.fig2_table(sched, pub["fig2"])
    write_csv(table, snakemake.output.csv, index=False, lineterminator="\n")
    md = table.assign(policy=table["policy"].map(F._label))
    write_md(snakemake.output.md, "Fig. 2: the nine numbers, ours vs published",
             f"Toy example on {sched['cpus']} CPUs, simulated ({pub['fig2']['source']}). "
             "`ours_truncated` truncates to two decimals as the paper does. Fragmentation is a "
             "fraction.", F.to_markdown(md, digits=4))
    log.info("fig2: %d of %d numbers match", int(table["match"].sum()), len(table))


def table1(snakemake, log):
    p = snakemake.params
    pub = R.load_published(snakemake.input.published)
    cube = read_cube(snakemake.input.cube)
    n_seeds = int(cube.sizes["seed"])
    t1 = R.table1_frame(cube, pub)
    write_csv(t1, snakemake.output.csv, index=False, lineterminator="\n")
    fits = [json.loads(Path(f).read_text()) for f in snakemake.input.fits]
    note = ""
    if fits:
        fac = pd.DataFrame([f for x in fits for f in x["fits"]])
        g = fac.groupby("load")
        note = ("runtimes scaled to fit 2 h: mean runtime per load "
                + ", ".join(f"{l:g}: {v:.0f} s" for l, v in g["mean_runtime"].mean().items())
                + f" (paper's jobs: about 52 s); Lublin {p.lublin.get('n_jobs')} jobs on "
                  f"{p.lublin.get('machine_size')} CPUs")
    else:
        note = "fit: arrivals (inter-arrival times calibrated, span not fixed to 2 h)"
    F.plot_table1(t1, snakemake.output.png, scale_label=p.scale, n_seeds=n_seeds, note=note)
    wide = []
    for load in sorted(set(t1["load"])):
        for pol in ("easy", "fcfs_malleable"):
            row = {"load": f"{100 * load:.0f} %", "policy": F._label(pol)}
            for m, name in (("mean_wait", "wait"), ("mean_response", "resp"),
                            ("utrera_slowdown", "sld")):
                r = t1[(t1["load"] == load) & (t1["policy"] == pol) & (t1["metric"] == m)].iloc[0]
                row[f"{name} ours"] = pm(r["mean"], r["ci95"])
                row[f"{name} S"] = r["paper_S"]
                row[f"{name} R"] = r["paper_R"]
            wide.append(row)
    gains = []
    for m in ("mean_wait", "mean_response", "utrera_slowdown"):
        for load in sorted(set(t1["load"])):
            sub = t1[(t1["load"] == load) & (t1["metric"] == m)].set_index("policy")
            g = {k: 100 * (sub.loc["easy", k] - sub.loc["fcfs_malleable", k]) / sub.loc["easy", k]
                 for k in ("mean", "paper_S", "paper_R")}
            gains.append({"metric": m, "load": f"{100 * load:.0f} %", "gain ours (%)": g["mean"],
                          "gain paper S (%)": g["paper_S"], "gain paper R (%)": g["paper_R"]})
    write_md(snakemake.output.md, f"Table 1: simulator, ours vs published ({p.scale} scale)",
             f"Lublin workloads ({p.lublin.get('n_jobs')} jobs, {p.lublin.get('machine_size')} "
             f"CPUs, fit: {p.fit}), {n_seeds} seeds: ours = mean ± 95 % CI half-width; S and R "
             "are the paper's simulator and runtime-system columns (R cannot be rerun). Wait and "
             f"response in seconds. {note}.",
             F.to_markdown(pd.DataFrame(wide)) + "\n## Gain of FCFS-malleable over EASY\n\n"
             + F.to_markdown(pd.DataFrame(gains), digits=3))
    log.info("table1: %d rows", len(t1))


def traces(snakemake, log):
    p = snakemake.params
    out = snakemake.output
    pub = R.load_published(snakemake.input.published)
    cube = read_cube(snakemake.input.cube)
    n_seeds = int(cube.sizes["seed"])
    tf = R.traces_frame(cube)
    main = tf[tf["policy"].isin(["easy", "fcfs_malleable"])]
    # Fig. 3
    F.plot_fig3(tf, out.fig3, scale_label=p.scale, n_seeds=n_seeds, note=ACK)
    write_csv(main, out.fig3_csv, index=False, lineterminator="\n")
    rows = []
    for t in p.traces:
        for pol in ("easy", "fcfs_malleable"):
            row = {"trace": t, "policy": F._label(pol)}
            for m in ("mean_wait", "mean_execution", "mean_response", "utrera_slowdown",
                      "utrera_fragmentation", "utrera_mean_mpl", "timeline_utilization"):
                r = main[(main["trace"] == t) & (main["policy"] == pol) & (main["metric"] == m)].iloc[0]
                row[m] = pm(r["mean"], r["ci95"])
            rows.append(row)
    write_md(out.fig3_md, f"Fig. 3 values and more, per trace and policy ({p.scale} scale)",
             f"Mean over {n_seeds} OV seeds ± 95 % CI (EASY: one deterministic run). Times in "
             "seconds; slowdown by formula 1; fragmentation (formula 2) and MPL as fractions.",
             F.to_markdown(pd.DataFrame(rows)))
    # Table 2
    infos = {t: json.loads(Path(f).read_text()) for t, f in zip(p.traces, snakemake.input.infos)}
    t2 = R.table2_frame(infos, tf, pub)
    write_csv(t2, out.table2_csv, lineterminator="\n")
    md2 = pd.DataFrame({
        "CPUs (paper)": [f"{r.cpus} ({r.paper_cpus:g})" for r in t2.itertuples()],
        "jobs, positions (paper)": [f"{r.jobs}, {r.portion} ({r.paper_jobs})" for r in t2.itertuples()],
        "avg CPU util (paper)": [f"{100 * r.cpu_util:.0f} % ({100 * r.paper_cpu_util:.0f} %)"
                                 for r in t2.itertuples()],
        "long jobs' CPU util [n] (paper)": [
            f"{100 * r.long_cpu_util:.0f} % [{r.long_jobs}] ({100 * r.paper_long_cpu_util:.0f} %)"
            for r in t2.itertuples()],
        # A log without wait times (field 3) has no schedule of its own.
        "Req.Cpus/Cpus: log, waiting+running": [_num(r.demand_ratio_log) for r in t2.itertuples()],
        "log, waiting only": [_num(r.queue_demand_ratio_log) for r in t2.itertuples()],
        "our EASY, waiting+running": [f"{r.demand_ratio_easy:.2f}" for r in t2.itertuples()],
        "mean size / CPUs": [f"{r.mean_size_ratio:.3f}" for r in t2.itertuples()],
        "paper": [f"{r.paper_req_cpus_ratio:g}" for r in t2.itertuples()],
        "offered load": [f"{r.offered_load:.2f}" for r in t2.itertuples()],
    }, index=t2.index)
    write_md(out.table2_md, f"Table 2: the trace portions simulated ({p.scale} scale)",
             "CPU utilization of a job = SWF field 6 / field 4 (jobs without field 6 left out); "
             "long jobs: > 64 processes and > 8 h. Req.Cpus/Cpus: our reading is the time "
             "average of the CPUs requested by the jobs in the system over the machine's CPUs, "
             "under the log's own schedule (fields 3-4) of the portion; alternatives shown: "
             "waiting jobs only, our simulated EASY schedule, and the literal mean job size / "
             f"CPUs (at most 1, so it cannot be the printed value). {ACK}.",
             F.to_markdown(md2, index=True))
    # Table 3 and fragmentation
    t3, fr = [], []
    for t in p.traces:
        def g(pol, m):
            r = tf[(tf["trace"] == t) & (tf["policy"] == pol) & (tf["metric"] == m)].iloc[0]
            return float(r["mean"]), float(r["ci95"])
        p3 = pub["table3"]["values"].get(t, {})
        (e, eh), (f, fh) = g("easy", "utrera_mean_mpl"), g("fcfs_malleable", "utrera_mean_mpl")
        t3.append({"trace": t, "easy": e, "easy_ci95": eh, "paper_easy": p3.get("easy", np.nan),
                   "fcfs_malleable": f, "fcfs_malleable_ci95": fh,
                   "paper_fcfs_malleable": p3.get("fcfs_malleable", np.nan)})
        pf = pub["fragmentation"]["values"]
        (e, eh), (f, fh) = (g("easy", "utrera_fragmentation"),
                            g("fcfs_malleable", "utrera_fragmentation"))
        fr.append({"trace": t, "easy": e, "easy_ci95": eh,
                   "paper_easy": pf.get("easy", {}).get(t, np.nan),
                   "fcfs_malleable": f, "fcfs_malleable_ci95": fh,
                   "paper_fcfs_malleable": pf.get("fcfs_malleable", {}).get(t, np.nan)})
    t3 = pd.DataFrame(t3)
    fr = pd.DataFrame(fr)
    write_csv(t3, out.table3_csv, index=False, lineterminator="\n")
    write_csv(fr, out.frag_csv, index=False, lineterminator="\n")
    write_md(out.table3_md, f"Table 3: average MPL ({p.scale} scale)",
             "Processes of running jobs per machine CPU, time-averaged from the first submission "
             "to the last completion of the portion (hence below 1 for EASY). fcfs_malleable: "
             f"mean ± 95 % CI over {n_seeds} OV seeds.",
             F.to_markdown(pd.DataFrame({
                 "trace": t3["trace"],
                 "EASY ours": [pm(a, b) for a, b in zip(t3["easy"], t3["easy_ci95"])],
                 "EASY paper": t3["paper_easy"],
                 "FCFS-malleable ours": [pm(a, b) for a, b in zip(t3["fcfs_malleable"],
                                                                  t3["fcfs_malleable_ci95"])],
                 "FCFS-malleable paper": t3["paper_fcfs_malleable"]})))
    write_md(out.frag_md, f"Fragmentation per trace and policy ({p.scale} scale)",
             "Formula 2: free-CPU time while the wait queue is not empty / (span x CPUs), in %. "
             f"{pub['fragmentation']['note']}",
             F.to_markdown(pd.DataFrame({
                 "trace": fr["trace"],
                 "EASY ours (%)": [pm(100 * a, 100 * b) for a, b in zip(fr["easy"], fr["easy_ci95"])],
                 "EASY paper (%)": 100 * fr["paper_easy"],
                 "FCFS-malleable ours (%)": [pm(100 * a, 100 * b) for a, b in
                                             zip(fr["fcfs_malleable"], fr["fcfs_malleable_ci95"])],
                 "FCFS-malleable paper (%)": 100 * fr["paper_fcfs_malleable"]})))
    # Headline
    # The main reading, then every other reading of the time model.
    gains = pd.concat([R.gains_frame(cube, new=label) for label in p.readings.values()],
                      ignore_index=True)
    write_csv(gains, out.gains_csv, index=False, lineterminator="\n")
    hv = pub["headline"]["values"]
    names = {v: k for k, v in p.readings.items()}
    main_gains = gains[gains["policy"] == "fcfs_malleable"]
    gmd = pd.DataFrame([{"metric": F._METRIC_LABELS[m], "over": r.trace,
                         "gain ours (%)": pm(r.mean, r.ci95), "paper (%)": 100 * hv[m]}
                        for m in ("utrera_slowdown", "mean_response")
                        for r in main_gains[main_gains["metric"] == m].itertuples()])
    other = gains[(gains["policy"] != "fcfs_malleable") & (gains["trace"] == "mean of traces")]
    omd = pd.DataFrame([{"reading": names.get(r.policy, r.policy), "metric": F._METRIC_LABELS[r.metric],
                         "gain, mean of traces (%)": pm(r.mean, r.ci95),
                         "paper (%)": 100 * hv[r.metric]} for r in other.itertuples()])
    write_md(out.gains_md, f"Headline: gain of FCFS-malleable over EASY ({p.scale} scale)",
             "gain = 100 (EASY - FCFS-malleable) / EASY, per OV seed, then mean ± 95 % CI. "
             "'mean of traces' averages the three traces' gains (each trace weighs the same); "
             "'pooled' is the gain of the metric averaged over the traces. "
             f"{pub['headline']['note']}", F.to_markdown(gmd)
             + "\n## Under the other readings of the time model\n\n" + F.to_markdown(omd))
    # Orders ablation and time-model readings
    F.plot_orders(tf, p.orders, out.orders, scale_label=p.scale, n_seeds=n_seeds)
    write_csv(R.orders_frame(cube, p.orders), out.orders_csv, index=False, lineterminator="\n")
    F.plot_readings(tf, p.readings, out.readings, scale_label=p.scale, n_seeds=n_seeds)
    rd = tf[tf["policy"].isin(list(p.readings.values()) + ["easy"])].copy()
    rd.insert(1, "reading", rd["policy"].map({v: k for k, v in p.readings.items()}).fillna("easy"))
    rd["params"] = rd["reading"].map(lambda r: json.dumps(p.reading_params.get(r, {}),
                                                          sort_keys=True))
    write_csv(rd, out.readings_csv, index=False, lineterminator="\n")
    # Fig. 1 substitute
    jobs = pd.read_csv(snakemake.input.fig1_jobs)
    tl = pd.read_csv(snakemake.input.fig1_timeline)
    length = float(p.fig1.get("days", 7)) * 86400.0
    start = p.fig1.get("start", "busiest")
    t0 = (U.busiest_window(tl, length) if start == "busiest"
          else float(tl["time"].iloc[0]) + float(start) * 86400.0)
    wc = U.waiting_cpus(jobs, tl["time"])
    F.plot_fig1(tl, wc, p.fig1_cpus, t0, length, out.fig1, trace=p.fig1["trace"],
                scale_label=p.scale,
                note=(f"window from day {(t0 - tl['time'].iloc[0]) / 86400:.1f} of the portion "
                      f"({'busiest: largest mean queue length' if start == 'busiest' else 'configured'})\n"
                      + ACK))
    log.info("traces: %d rows; fig1 window starts at %.0f s", len(tf), t0)


def long_util(snakemake, log):
    p = snakemake.params
    pub = R.load_published(snakemake.input.published)
    cube = read_cube(snakemake.input.cube)
    n_seeds = int(cube.sizes["seed"])
    lu = R.long_util_frame(cube)
    write_csv(lu, snakemake.output.csv, index=False, lineterminator="\n")
    info = json.loads(Path(snakemake.input.info).read_text())
    n_long = int(info["portion"]["long_jobs"])
    own = info["portion"].get("long_cpu_util_mean")
    # A small (smoke) portion may hold no long job with CPU-time data at all.
    own_text = f"{own:.2f}" if own is not None else "n/a: none with CPU time in the trace"
    long_note = (f"{n_long} long jobs among the {info['jobs']} of the portion "
                 f"(their own mean CPU utilization: {own_text})")
    F.plot_long_util(lu, snakemake.output.png, trace=p.trace, scale_label=p.scale, n_seeds=n_seeds,
                     threshold=float(pub["long_util"]["threshold"]), note=long_note)
    rows = []
    for u in sorted(set(lu["long_util"])):
        row = {"long jobs' CPU util": f"{100 * u:.0f} %"}
        for pol in ("easy", "fcfs_malleable"):
            for m, name in (("utrera_slowdown", "slowdown"), ("mean_response", "response (s)")):
                r = lu[(lu["long_util"] == u) & (lu["policy"] == pol) & (lu["metric"] == m)].iloc[0]
                row[f"{F._label(pol)} {name}"] = pm(r["mean"], r["ci95"])
        rows.append(row)
    write_md(snakemake.output.md, f"Sect. 5.1: {p.trace} with long jobs' CPU utilization varied "
             f"({p.scale} scale)",
             f"Long jobs (> 64 processes, > 8 h) get CPU utilization u (mode '{p.mode}'); "
             f"fcfs_malleable: mean ± 95 % CI over {n_seeds} OV seeds; {long_note}. Paper: "
             f"\"{pub['long_util']['claim']}\".", F.to_markdown(pd.DataFrame(rows)))
    log.info("long_util: %d rows", len(lu))


PARTS = {"utrera_figures_fig2": fig2, "utrera_figures_table1": table1,
         "utrera_figures_traces": traces, "utrera_figures_long_util": long_util}


def main(snakemake):
    with job_log(snakemake) as log:
        PARTS[snakemake.rule](snakemake, log)


main(snakemake)  # noqa: F821
