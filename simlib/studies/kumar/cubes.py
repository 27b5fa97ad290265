"""Paper K's cubes and the C_s pick.

One netCDF cube per sweep from the simulation chunks' records
(:func:`build_kumar_cube`, written by :func:`aggregate_step`): the C_s
sweep with dims ``(workload, policy, cs, seed)``, the load sweeps with
``(workload, policy, load, seed)``. The C_s of each P_S is then picked
from the C_s sweep (:func:`pick_cs`, written by :func:`pick_step`) and
read by the load sweeps' Delayed-LOS / Hybrid-LOS chunks. The cubes'
words (variables, coordinates, titles, notes): ``templates/cubes.yaml``.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...cube import build_cube, read_cube, study_attrs, write_cube
from ...errors import ConfigError
from ...io import write_csv, write_json
from ...stats import mean_ci
from ..base import load_tag
from .plan import HIGHER_IS_BETTER, names, reading_workload

__all__ = ["RUN_INFO", "build_kumar_cube", "pick_cs", "picks_document", "aggregate_step",
           "pick_step"]

#: ``templates/cubes.yaml``.
WORDS = names("cubes.yaml")
#: Cube variables besides simlib.metrics.summarize's: name -> (units, long_name, description).
RUN_INFO: dict[str, tuple[str, str, str]] = {k: tuple(v) for k, v in WORDS["variables"].items()}
#: The sweeps whose grid is sparse by design -> the dims of their variable ``ran``
#: (which combinations were run; its reason: ``templates/cubes.yaml``'s ``ran``).
RAN_DIMS = {"load": ["workload", "policy"], "long": ["workload", "policy"],
            "readings": ["reading", "workload", "policy"]}
#: Dimensions of a sweep's cube (the load sweeps: ``load``).
DIMS = {"cs": ["workload", "policy", "cs", "seed"],
        "readings": ["reading", "workload", "policy", "load", "seed"],
        "load": ["workload", "policy", "load", "seed"]}


def _rows(records: Sequence[Mapping], purpose: str, cs_values: Sequence[int]) -> list[dict]:
    """One record per cube cell: a policy without C_s (its ``cs`` None) repeated along the
    C_s sweep's ``cs_values``; a readings set's ``reading@workload`` split in two."""
    if purpose == "cs":
        return [{**r, "cs": int(c)} for r in records
                for c in ([r["cs"]] if r["cs"] is not None else cs_values)]
    if purpose == "readings":
        split = (reading_workload(r["workload"]) for r in records)
        return [{**r, "reading": reading, "workload": w} for r, (reading, w) in zip(records, split)]
    return list(records)


def build_kumar_cube(records: Sequence[Mapping], purpose: str, cs_values: Sequence[int] = (),
                     attrs: Mapping | None = None):
    """The cube of a sweep from :func:`.runs.simulate_set`'s records.

    ``cs`` sweep: dims ``(workload, policy, cs, seed)``; a policy that does
    not take C_s (EASY, LOS) ran once per seed and its values are repeated
    along ``cs``. ``load`` sweep: dims ``(workload, policy, load, seed)``;
    combinations not run are NaN, and the load sweep's, the long runs' and
    the readings' cubes say which in their boolean variable ``ran`` (:data:`RAN_DIMS`).

    Examples
    --------
    >>> recs = [{"workload": "w", "policy": "easy", "load": 0.9, "seed": 0, "cs": None,
    ...          "mean_wait": 5.0}]
    >>> cube = build_kumar_cube(recs, "cs", [1, 2])
    >>> cube["mean_wait"].sel(policy="easy").values.ravel().tolist()
    [5.0, 5.0]
    """
    skip = {"workload", "policy", "load", "seed", "cs", *(["cs_used"] if purpose == "cs" else [])}
    metrics = [k for k in records[0] if k not in skip] if records else []
    return build_cube(_rows(records, purpose, cs_values), DIMS.get(purpose, DIMS["load"]),
                      metrics, attrs=attrs, metric_info=RUN_INFO, coord_info=WORDS["coordinates"],
                      ran_dims=RAN_DIMS.get(purpose), ran_reason=WORDS["ran"].get(purpose, ""))


def aggregate_step(ctx) -> None:
    """Step ``kumar_aggregate``: the cube of sweep ``{purpose}`` from its chunks'
    ``summaries`` (:func:`.runs.simulate_chunk`); parameters ``subtree`` (everything the
    sweep depends on: its provenance) and ``cs_values`` (:func:`build_kumar_cube`).
    """
    purpose, scale, subtree = ctx.wildcards["purpose"], ctx.scale, ctx.params["subtree"]
    records = []
    for path in ctx.input.summaries:
        records.extend(json.loads(Path(path).read_text(encoding="utf-8"))["records"])
    attrs = study_attrs(
        "kumar", subtree, ctx.repo, sweep=purpose, scale=scale,
        title=f"paper K, {WORDS['titles'].get(purpose, 'load sweep')}, {scale} scale",
        tau_s=float(subtree["simulation"]["tau"]),
        note=WORDS["notes"]["cs" if purpose == "cs" else "other"])
    write_cube(build_kumar_cube(records, purpose, ctx.params["cs_values"], attrs=attrs),
               ctx.output.cube, ctx.log)


# --------------------------------------------------------------------------
# the C_s pick
# --------------------------------------------------------------------------
def pick_cs(cube, swept: str = "delayed_los", metric: str = "mean_wait", rule: str = "argmin",
            level: float = 0.95) -> pd.DataFrame:
    """The C_s of each C_s-sweep workload, as the pipeline picks it.

    ``argmin``: the C_s whose seed-mean ``metric`` is best (smallest; largest
    for utilization), the smallest C_s on ties. ``one_se``: the smallest C_s
    whose seed mean is within one standard error of the best (a common
    guard against picking noise). ``near_best`` lists the C_s values whose
    paired difference to the best is not significant at ``level``.

    Returns
    -------
    pandas.DataFrame
        ``workload, cs, value, best_cs, best_value, near_best`` per workload.

    Examples
    --------
    >>> from simlib.cube import build_cube
    >>> recs = [{"workload": "w", "policy": "delayed_los", "cs": c, "seed": s,
    ...          "mean_wait": (c - 3) ** 2 + s} for c in (1, 2, 3, 4) for s in (0, 1, 2)]
    >>> cube = build_cube(recs, ["workload", "policy", "cs", "seed"], ["mean_wait"])
    >>> pick_cs(cube)[["workload", "cs"]].values.tolist()
    [['w', 3]]
    """
    higher = HIGHER_IS_BETTER.get(metric, False)
    rows = []
    for w in cube["workload"].values:
        da = cube[metric].sel(workload=w, policy=swept).transpose("cs", "seed")
        vals = da.values
        if not np.isfinite(vals).any():
            continue
        cs = [int(c) for c in da["cs"].values]
        mean = np.nanmean(vals, axis=1)
        score = -mean if higher else mean
        best = int(np.nanargmin(score))
        chosen = best
        if rule == "one_se":
            n = np.isfinite(vals).sum(axis=1)
            se = np.nanstd(vals, axis=1, ddof=1) / np.sqrt(np.maximum(n, 1))
            ok = score <= score[best] + (se[best] if np.isfinite(se[best]) else 0.0)
            chosen = int(np.flatnonzero(ok)[0])
        elif rule != "argmin":
            raise ConfigError(f"pick_cs: rule must be argmin or one_se, not {rule!r}")
        near = []
        for k in range(len(cs)):
            d = vals[k] - vals[best]
            m, h, _ = mean_ci(d, level)
            if k == best or not np.isfinite(h) or abs(m) <= h:
                near.append(cs[k])
        rows.append({"workload": str(w), "cs": cs[chosen], "value": float(mean[chosen]),
                     "best_cs": cs[best], "best_value": float(mean[best]), "near_best": near})
    return pd.DataFrame(rows, columns=["workload", "cs", "value", "best_cs", "best_value",
                                       "near_best"])


def picks_document(frame: pd.DataFrame, p_s: Mapping[str, float], **about) -> dict:
    """JSON-ready record of the picks, keyed by workload and by P_S.

    ``p_s`` maps each C_s-sweep workload to its P_S; ``about`` (metric,
    rule, ...) is recorded as is. The load sweeps read ``by_p_s[repr(P_S)]``.

    Examples
    --------
    >>> df = pd.DataFrame({"workload": ["ps05"], "cs": [7], "value": [1.0], "best_cs": [7],
    ...                    "best_value": [1.0], "near_best": [[6, 7]]})
    >>> picks_document(df, {"ps05": 0.5}, metric="mean_wait")["by_p_s"]
    {'0.5': 7}
    """
    return {
        **about,
        "by_workload": {r.workload: int(r.cs) for r in frame.itertuples()},
        "by_p_s": {load_tag(p_s[r.workload]): int(r.cs) for r in frame.itertuples()},
        "table": json.loads(frame.to_json(orient="records")),
    }


def pick_step(ctx) -> None:
    """Step ``kumar_pick_cs``: the C_s of each P_S from the C_s-sweep ``cube``.

    Parameters: ``swept`` (the policy whose C_s is swept), ``pick`` (``metric`` and
    ``rule`` of :func:`pick_cs`), ``p_s`` (P_S of each C_s-sweep workload), ``load`` (the
    sweep's, recorded) and ``scale``. Writes ``picks`` (:func:`picks_document`, read by
    the load sweeps' chunks) and ``csv`` (the same table for ``paper_figures/kumar``, with
    each workload's P_S and the scale).
    """
    p = ctx.params
    pick, p_s, scale = p["pick"], p["p_s"], p["scale"]
    frame = pick_cs(read_cube(ctx.input.cube), p["swept"], pick["metric"], pick["rule"])
    doc = picks_document(frame, p_s, metric=pick["metric"], rule=pick["rule"], swept=p["swept"],
                         load=p["load"], scale=scale)
    write_json(doc, ctx.output.picks)
    out = frame.copy()
    out.insert(1, "p_s", [p_s[w] for w in out["workload"]])
    out["near_best"] = [" ".join(map(str, v)) for v in out["near_best"]]
    out.insert(0, "scale", scale)
    write_csv(out, ctx.output.csv, index=False, lineterminator="\n")
    ctx.log.info("picks: %s", doc["by_p_s"])
