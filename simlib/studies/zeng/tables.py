"""Paper Z's tables (step ``zeng_tables``): printed tables as data, ours beside them
(Tables 1-3 and 6 as printed, Table 4 sampled back, Table 5 measured, SSP per workload,
§4.8's validation; each one's title: ``artifacts.yaml``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from simlib.io import write_csv, write_text
from simlib.render import render, template_data

from .cubes import ci_text
from .published import load_published
from .slowdowns import CoschedulingSlowdowns, bin_shares
from .workloads import read_workload

__all__ = ["published_tables", "table4", "table5", "ssp_table", "validation_table", "tables_step"]


def published_tables(pub: dict) -> str:
    """Tables 1, 2, 3 and 6 as printed, in Markdown."""
    t1, t6 = pub["table1"], pub["table6"]
    tables = [("Table 1", t1["source"], pd.DataFrame(list(t1["rows"].items()),
                                                      columns=["term", "meaning"]), 4),
              *((f"Table {k[-1]}", pub[k]["source"], pd.DataFrame(pub[k]["rows"], index=pub[k]["columns"])
                 .T.reset_index(names="configuration"), 3) for k in ("table2", "table3")),
              ("Table 6", t6["source"], pd.DataFrame([(k, v) for k, v in t6.items() if k != "source"],
                                                     columns=["parameter", "value"]), 4)]
    return render(__package__, "published_tables.md.j2", tables=tables)


def table4(pub: dict, workloads: list[pd.DataFrame], seeds: list[int]) -> pd.DataFrame:
    """Printed vs sampled shares per range of Table 4 (percent), with 4-SE bands.

    SL_scr and SL_sno: every job of the given workload tables; SL_cos: the
    ordered pairs (i, i+1) and (i+1, i) of each seed's first 5,000 jobs.
    """
    t4 = pub["table4"]
    bins = [tuple(b) for b in t4["bins"]]
    scr = np.concatenate([w["sl_scr"].to_numpy(float) for w in workloads])
    sno = np.concatenate([w["sl_sno"].to_numpy(float) for w in workloads])
    draws = [CoschedulingSlowdowns(t4, seed) for seed in seeds]
    cos = np.asarray([x for d in draws for i in range(1, 5000) for x in (d(i - 1, i), d(i, i - 1))])
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
    t5, labels = pub["table5"], template_data(__package__, "labels.yaml")
    names = list(dict.fromkeys(i["workload"] for i in infos))
    by = {w: [i for i in infos if i["workload"] == w] for w in names}
    rows = [{"quantity": label, "printed": t5[printed_key] if printed_key else np.nan,
             **{w: float(np.mean([i[ours_key] for i in by[w]])) for w in names}}
            for printed_key, ours_key, label in labels["table5"]]
    for key, label in labels["load_readings"].items():
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
    for var, label in template_data(__package__, "labels.yaml")["ssp"].items():
        if var not in cube:
            continue
        row = {"metric": label, "variable": var}
        for w in cube["workload"].values.tolist():
            m, h, text = ci_text(mc[var].sel(workload=w).values)
            row[f"{w}_mean"], row[f"{w}_ci95"], row[w] = m, h, text
        row["printed_W2"] = pub["ssp_w2"].get(var, np.nan)   # RR of all, medium, long jobs
        rows.append(row)
    return pd.DataFrame(rows)


def validation_table(cube: xr.Dataset) -> pd.DataFrame:
    """§4.8: multi-core (adjusted) vs single-core (unadjusted), per workload, paired by seed
    (no row without the single-core runs)."""
    rows = []
    for w in cube["workload"].values.tolist() if "single_core" in cube["machine"] else []:
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
    return pd.DataFrame(rows, columns=["workload", "metric", "multicore", "single_core", "ratio_mean",
                                       "ratio_min", "ratio_max", "seeds"])


def tables_step(ctx) -> None:
    """Step ``zeng_tables``: every table of the study (see the module docstring)."""
    p, out = ctx.params, ctx.output
    pub = load_published(ctx.input.published)
    cube = xr.load_dataset(ctx.input.cube)
    infos = [json.loads(Path(f).read_text()) for f in ctx.input.infos]
    write_text(out.published_tables_md, published_tables(pub))

    def page(name: str, table: pd.DataFrame, **context) -> None:
        write_csv(table, out[f"{name}_csv"], index=False)
        write_text(out[f"{name}_md"], render(__package__, f"{name}.md.j2", table=table, **p, **context))

    t4 = table4(pub, [read_workload(f) for f in ctx.input.workloads], p["seeds"])
    page("table4", t4, columns=["range"] + [f"{c}_{k}" for c in ("sl_scr", "sl_sno", "sl_cos")
                                            for k in ("printed", "ours")],
         ok={c: bool(t4[f"{c}_within_4se"].all()) for c in ("sl_scr", "sl_sno", "sl_cos")},
         scr_draws=int(t4["sl_scr_draws"][0]), cos_draws=int(t4["sl_cos_draws"][0]))
    page("table5", table5(pub, infos, cube))
    page("ssp", ssp_table(cube, pub))
    page("validation", validation_table(cube))
