"""Paper Z's tables (step ``zeng_tables``): printed tables as data, ours beside them.

* ``published_tables.md`` -- Tables 1, 2, 3 and 6 rendered from
  ``config/published/zeng.yaml`` (reference data the pipeline reads).
* ``table4`` -- the slowdown shares per range sampled back from our draws
  (every job's SL_scr and SL_sno in the run workloads, SL_cos of ordered
  pairs of neighbouring jobs) beside the printed shares, with the sampling
  error.
* ``table5`` -- the workload characteristics of our W1 and W2 (mean over
  seeds) beside the printed ones, and our readings of "Load = 10.6 / 13.0".
* ``ssp`` -- SSP under each workload: RR per class with 95 % CIs over seeds,
  makespan, drain, utilizations, high-load phases, overhead.
* ``validation`` -- §4.8: SSP on the adjusted workload (multi-core) against
  the unadjusted workload on 128 single-core nodes, paired by seed.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from simlib.io import write_csv, write_text
from simlib.markdown import markdown_table

from .cubes import ci_text
from .published import load_published
from .slowdowns import CoschedulingSlowdowns, bin_shares
from .workloads import read_workload

__all__ = ["published_tables", "table4", "table5", "ssp_table", "validation_table",
           "TABLE5_ROWS", "SSP_ROWS", "tables_step"]

#: Table 5's rows: (printed key, our key in the workload info, label).
TABLE5_ROWS = (
    ("short_jobs", "short_pct", "short jobs (% of jobs)"),
    ("medium_jobs", "medium_pct", "medium jobs (% of jobs)"),
    ("long_jobs", "long_pct", "long jobs (% of jobs)"),
    ("medium_of_medium_and_long", "medium_of_medium_long_pct", "medium (% of medium and long)"),
    ("long_of_medium_and_long", "long_of_medium_long_pct", "long (% of medium and long)"),
    ("short_work", "work_short_pct", "work of short jobs (%)"),
    ("medium_work", "work_medium_pct", "work of medium jobs (%)"),
    ("long_work", "work_long_pct", "work of long jobs (%)"),
    ("serial_jobs", "serial_pct_adjusted", "serial jobs (%)"),
    ("power_of_two_jobs", "pow2_pct_orig", "power-of-two sizes (%), Lublin sizes"),
    (None, "pow2_pct_adjusted", "power-of-two sizes (%), adjusted sizes (formula 7)"),
)
#: Readings of the printed "Load" (workload info keys, then cube variables).
LOAD_READINGS = (
    ("load_jobs_per_hour", "jobs per hour"),
    ("load_node_lublin", "offered node load, Lublin jobs on single-core nodes"),
    ("load_node_ssp", "offered node load under space sharing"),
    ("load_core_ssp", "offered core load under space sharing"),
    ("mean_queue", "time-averaged waiting jobs under SSP (simulated)"),
)
#: The SSP table's rows: cube variable, label.
SSP_ROWS = (
    ("rr_all", "RR, all jobs"), ("rr_short", "RR, short jobs"),
    ("rr_medium", "RR, medium jobs"), ("rr_long", "RR, long jobs"),
    ("rr_t_all", "RR with T_i as pure runtime, all jobs"),
    ("rr_t_medium", "RR with T_i, medium jobs"), ("rr_t_long", "RR with T_i, long jobs"),
    ("makespan_days", "makespan (days)"), ("drain_fraction", "drain fraction"),
    ("u_core", "U_core, whole run"), ("u_node", "U_node, whole run"),
    ("u_core_high", "U_core in high-load phases"), ("u_node_high", "U_node in high-load phases"),
    ("high_phases", "high-load phases (N_wait >= N_H)"),
    ("high_phase_hours_mean", "mean length of a phase (h)"),
    ("high_phase_hours_total", "time in high-load phases (h)"),
    ("mean_queue", "time-averaged waiting jobs"),
    ("mean_wait", "mean wait (s)"), ("overhead_share", "slice-switch overhead (% of makespan)"),
    ("delay_p75_ml", "delay factor R / R_est, 75th pct (medium+long)"),
    ("delay_p95_ml", "delay factor R / R_est, 95th pct (medium+long)"),
    ("preemptions", "preemptions"),
)
_PRINTED_W2 = {"rr_all": "rr_all", "rr_medium": "rr_medium", "rr_long": "rr_long"}


def published_tables(pub: dict) -> str:
    """Tables 1, 2, 3 and 6 as printed, in Markdown."""
    out = ["# Paper Z: Tables 1, 2, 3 and 6 as printed", "",
           "Reference data from `config/published/zeng.yaml` (what the pipeline reads), "
           "never results.", ""]
    t1 = pub["table1"]
    out += [f"## Table 1 ({t1['source']})", "",
            markdown_table(pd.DataFrame({"term": list(t1["rows"]), "meaning": list(t1["rows"].values())}))]
    for key, title in (("table2", "Table 2"), ("table3", "Table 3")):
        t = pub[key]
        frame = pd.DataFrame(t["rows"], index=t["columns"]).T.reset_index(names="configuration")
        out += [f"## {title} ({t['source']})", "", markdown_table(frame, digits=3)]
    t6 = pub["table6"]
    frame = pd.DataFrame({"parameter": [k for k in t6 if k != "source"],
                          "value": [t6[k] for k in t6 if k != "source"]})
    out += [f"## Table 6 ({t6['source']})", "", markdown_table(frame)]
    return "\n".join(out)


def table4(pub: dict, workloads: list[pd.DataFrame], seeds: list[int]) -> pd.DataFrame:
    """Printed vs sampled shares per range of Table 4 (percent), with 4-SE bands.

    SL_scr and SL_sno: every job of the given workload tables; SL_cos: the
    ordered pairs (i, i+1) and (i+1, i) of each seed's first 5,000 jobs.
    """
    t4 = pub["table4"]
    bins = [tuple(b) for b in t4["bins"]]
    scr = np.concatenate([w["sl_scr"].to_numpy(float) for w in workloads])
    sno = np.concatenate([w["sl_sno"].to_numpy(float) for w in workloads])
    cos = []
    for seed in seeds:
        draw = CoschedulingSlowdowns({k: t4[k] for k in ("bins", "sl_scr", "sl_sno", "sl_cos")}, seed)
        for i in range(1, 5000):
            cos += [draw(i - 1, i), draw(i, i - 1)]
    cos = np.asarray(cos)
    rows = {"range": [f"[{lo}, {hi})" for lo, hi in bins]}
    for name, values in (("sl_scr", scr), ("sl_sno", sno), ("sl_cos", cos)):
        printed = np.asarray(t4[name], float)
        printed = 100 * printed / printed.sum()
        ours = bin_shares(values, bins)
        se = 100 * np.sqrt(printed / 100 * (1 - printed / 100) / len(values))
        rows[f"{name}_printed"] = printed
        rows[f"{name}_ours"] = ours
        rows[f"{name}_within_4se"] = np.abs(ours - printed) <= 4 * se + 1e-12
        rows[f"{name}_draws"] = len(values)
    return pd.DataFrame(rows)


def table5(pub: dict, infos: list[dict], cube: xr.Dataset) -> pd.DataFrame:
    """Printed Table 5 beside ours (mean over seeds per workload)."""
    t5 = pub["table5"]
    names = list(dict.fromkeys(i["workload"] for i in infos))
    by = {w: [i for i in infos if i["workload"] == w] for w in names}
    rows = []
    for printed_key, ours_key, label in TABLE5_ROWS:
        row = {"quantity": label, "printed": t5[printed_key] if printed_key else np.nan}
        for w in names:
            row[w] = float(np.mean([i[ours_key] for i in by[w]]))
        rows.append(row)
    for key, label in LOAD_READINGS:
        for w in names:
            row = {"quantity": f"Load of {w}: {label}",
                   "printed": t5["workloads"][w]["load"]}
            if key in by[w][0]:
                val = float(np.mean([i[key] for i in by[w]]))
            else:
                val = float(cube[key].sel(workload=w, machine="multicore").mean())
            row.update({n: (val if n == w else np.nan) for n in names})
            rows.append(row)
    return pd.DataFrame(rows)


def ssp_table(cube: xr.Dataset, pub: dict) -> pd.DataFrame:
    """SSP per workload on the multi-core machine: mean ± 95 % CI over seeds."""
    rows = []
    mc = cube.sel(machine="multicore")
    for var, label in SSP_ROWS:
        if var not in cube:
            continue
        row = {"metric": label, "variable": var}
        for w in cube["workload"].values.tolist():
            m, h, text = ci_text(mc[var].sel(workload=w).values)
            row[f"{w}_mean"], row[f"{w}_ci95"], row[w] = m, h, text
        row["printed_W2"] = pub["ssp_w2"].get(_PRINTED_W2.get(var, ""), np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def validation_table(cube: xr.Dataset) -> pd.DataFrame:
    """§4.8: multi-core (adjusted) vs single-core (unadjusted), per workload, paired by seed."""
    rows = []
    for w in cube["workload"].values.tolist():
        for var in ("mean_response_all", "mean_response_medium", "mean_response_long",
                    "rr_all", "rr_medium", "rr_long", "u_node"):
            a = cube[var].sel(workload=w, machine="multicore").values
            b = cube[var].sel(workload=w, machine="single_core").values
            ratio = a / b
            rows.append({"workload": w, "metric": var,
                         "multicore": float(np.mean(a)), "single_core": float(np.mean(b)),
                         "ratio_mean": float(np.mean(ratio)),
                         "ratio_min": float(np.min(ratio)), "ratio_max": float(np.max(ratio)),
                         "seeds": int(ratio.size)})
    return pd.DataFrame(rows)


def _md(title: str, intro: str, frame: pd.DataFrame, **kw) -> str:
    return f"# {title}\n\n{intro}\n\n" + markdown_table(frame, **kw)


def tables_step(ctx) -> None:
    """Step ``zeng_tables``: every table of the study (see the module docstring)."""
    p, out = ctx.params, ctx.output
    pub = load_published(ctx.input.published)
    cube = xr.load_dataset(ctx.input.cube)
    infos = [json.loads(Path(f).read_text()) for f in ctx.input.infos]
    scale_line = (f"Scale `{p['scale']}`: {p['jobs']} jobs per workload, seeds "
                  f"{', '.join(map(str, p['seeds']))}.")
    write_text(out.published_tables_md, published_tables(pub))

    frames = [read_workload(f) for f in ctx.input.workloads]
    t4 = table4(pub, frames, p["seeds"])
    write_csv(t4, out.table4_csv, index=False)
    cols = ["range"] + [f"{c}_{k}" for c in ("sl_scr", "sl_sno", "sl_cos") for k in ("printed", "ours")]
    ok = {c: bool(t4[f"{c}_within_4se"].all()) for c in ("sl_scr", "sl_sno", "sl_cos")}
    write_text(out.table4_md, _md(
        "Paper Z, Table 4: printed shares and our draws (percent per range)",
        f"{scale_line} Draws: {int(t4['sl_scr_draws'][0])} jobs' SL_scr and SL_sno (every job "
        f"of the run workloads), {int(t4['sl_cos_draws'][0])} ordered pairs' SL_cos. The printed "
        "shares are normalised to 100 %. Every range within 4 standard errors of the printed "
        f"share: SL_scr {ok['sl_scr']}, SL_sno {ok['sl_sno']}, SL_cos {ok['sl_cos']}.",
        t4, columns=cols, digits=3))

    t5 = table5(pub, infos, cube)
    write_csv(t5, out.table5_csv, index=False)
    write_text(out.table5_md, _md(
        "Paper Z, Table 5: our workloads beside the printed characteristics",
        f"{scale_line} Ours: mean over seeds. Work = Lublin size x runtime (node-seconds). "
        "Serial and power-of-two shares are of all jobs. The printed 'Load' has no unit; the "
        "rows 'Load of W...' give our candidate readings beside it (none is stated by the "
        "paper; see README.md).", t5, digits=4))

    ssp = ssp_table(cube, pub)
    write_csv(ssp, out.ssp_csv, index=False)
    write_text(out.ssp_md, _md(
        "Paper Z: SSP (Scojo-PECT with space sharing) under W1 and W2",
        f"{scale_line} Mean ± half-width of the 95 % Student-t interval over seeds; RR with "
        f"a {p['rr_bound']:g} s bound and the job's running time without slicing as the pure "
        "runtime unless stated. The paper prints SSP's RR only under W2.",
        ssp, columns=["metric", *p["workloads"], "printed_W2"]))

    if "single_core" in cube["machine"].values.tolist():
        val = validation_table(cube)
    else:
        val = pd.DataFrame(columns=["workload", "metric", "multicore", "single_core",
                                    "ratio_mean", "ratio_min", "ratio_max", "seeds"])
    write_csv(val, out.validation_csv, index=False)
    write_text(out.validation_md, _md(
        "Paper Z, §4.8: validation of the workload adjustment",
        f"{scale_line} SSP on the adjusted jobs on 128 nodes x 4 cores (multicore) against the "
        "unadjusted Lublin jobs on 128 single-core nodes (single_core), same seeds; ratio = "
        "multicore / single_core per seed (mean, min, max).", val))
