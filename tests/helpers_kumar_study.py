"""Shared helpers for the tests of paper K's study package and figures: small
configs, generated workload sets and synthetic cubes with known values."""
from __future__ import annotations

import copy

import numpy as np

from simlib.cube import build_cube

#: A tiny but complete kumar study (every workload the paper's figures need).
STUDY = {
    "published": "config/published/kumar.yaml",
    "machine_procs": 320,
    "n_jobs": 40,
    "base_seed": 7,
    "generator": {"size_scale": "log2"},
    "workloads": {
        "ps02": {"p_s": 0.2}, "ps05": {"p_s": 0.5}, "ps08": {"p_s": 0.8},
        "het_pd05_ps02": {"p_s": 0.2, "p_d": 0.5}, "het_pd09_ps05": {"p_s": 0.5, "p_d": 0.9},
        "elastic_batch": {"p_s": 0.5, "p_e": 0.2, "p_r": 0.1},
        "elastic_het": {"p_s": 0.5, "p_d": 0.5, "p_e": 0.2, "p_r": 0.1},
    },
    "policies": {"easy": {}, "los": {"unit": 32}, "delayed_los": {"unit": 32},
                 "easy_d": {}, "los_d": {"unit": 32}, "hybrid_los": {"unit": 32},
                 "easy_e": {}, "los_e": {"unit": 32}, "delayed_los_e": {"unit": 32},
                 "easy_de": {}, "los_de": {"unit": 32}, "hybrid_los_e": {"unit": 32}},
    "cs_sweep": {"load": 0.9, "workloads": ["ps02", "ps05", "ps08"], "policies": ["easy", "los"],
                 "swept": "delayed_los"},
    "load_sweeps": {
        "ps02": ["easy", "los", "delayed_los"], "ps05": ["easy", "los", "delayed_los"],
        "ps08": ["easy", "los", "delayed_los"],
        "het_pd05_ps02": ["easy_d", "los_d", "hybrid_los"],
        "het_pd09_ps05": ["easy_d", "los_d", "hybrid_los"],
        "elastic_batch": ["easy_e", "los_e", "delayed_los_e"],
        "elastic_het": ["easy_de", "los_de", "hybrid_los_e"],
    },
    "seeds": {"smoke": 2, "default": 3, "full": 4},
    "loads": {"smoke": [0.6, 0.9], "default": [0.5, 0.7, 0.9], "full": [0.5, 0.9]},
    "cs_values": {"smoke": [1, 3], "default": [1, 2, 3], "full": [1, 2]},
}


def make_sets(root, workloads=("ps02", "het_pd05_ps02", "elastic_het")):
    """Load-sweep workload sets of STUDY's ``workloads`` under ``root``: (plan, {name: dir})."""
    from simlib.studies.kumar.plan import KumarPlan
    from simlib.studies.kumar.workloads import generate_set
    plan = KumarPlan.from_config(config())
    out = {}
    for w in workloads:
        out[w] = root / w
        generate_set(plan.generation_spec("load", w), out[w])
    return plan, out


def config(scale="smoke", **changes):
    """``{"scale": ..., "studies": {"kumar": STUDY + changes}}`` (deep copy)."""
    st = copy.deepcopy(STUDY)
    st.update(changes)
    return {"scale": scale, "studies": {"kumar": st}}


#: Mean wait of each policy family in the synthetic load cube, seconds, before
#: the per-seed factor: the new policies are 20 % better than LOS, 10 % than EASY.
BASE_WAIT = {"easy": 900.0, "los": 1000.0, "new": 800.0}


def _family(policy):
    if policy.startswith(("delayed", "hybrid")):
        return "new"
    return "easy" if policy.startswith("easy") else "los"


def load_cube(loads=(0.5, 0.9), seeds=(0, 1, 2), noise=0.0):
    """Load-sweep cube of every (workload, policy) of STUDY with known values.

    mean_wait = BASE_WAIT[family] * (1 + load) * (1 + seed / 10) (+ noise on
    the new policy at the first load of seed 0); utilization = load (all
    equal); kumar_slowdown = mean_wait / 100; n_bar = 100.
    """
    recs = []
    for w, pols in STUDY["load_sweeps"].items():
        for p in pols:
            for x in loads:
                for s in seeds:
                    wait = BASE_WAIT[_family(p)] * (1 + x) * (1 + s / 10)
                    if noise and _family(p) == "new" and x == loads[0] and s == 0:
                        wait *= 1 - noise
                    recs.append({"workload": w, "policy": p, "load": x, "seed": s,
                                 "mean_wait": wait, "utilization": x,
                                 "kumar_slowdown": wait / 100, "n_bar": 100.0})
    return build_cube(recs, ["workload", "policy", "load", "seed"],
                      ["mean_wait", "utilization", "kumar_slowdown", "n_bar"],
                      metric_info={"n_bar": ("1", "n", "n")})


def cs_cube(cs=(1, 2, 3, 4, 5), seeds=(0, 1, 2), best=3):
    """C_s-sweep cube: Delayed-LOS's wait is smallest at ``best``; EASY/LOS flat."""
    recs = []
    for w in STUDY["cs_sweep"]["workloads"]:
        for c in cs:
            for s in seeds:
                for p in ("easy", "los", "delayed_los"):
                    wait = {"easy": 900.0, "los": 1000.0}.get(p, 800.0 + 10.0 * (c - best) ** 2)
                    wait *= 1 + s / 10
                    recs.append({"workload": w, "policy": p, "cs": c, "seed": s,
                                 "mean_wait": wait, "utilization": 0.8, "n_bar": 100.0})
    return build_cube(recs, ["workload", "policy", "cs", "seed"],
                      ["mean_wait", "utilization", "n_bar"],
                      metric_info={"n_bar": ("1", "n", "n")})


def fig1_cube(easy=(10.0, 50.0), los=(9.0, 60.0), loads=(0.5, 0.9)):
    recs = [{"policy": p, "trace": "SDSC-SP2", "load": x, "mean_wait": v}
            for p, vals in (("easy", easy), ("los", los)) for x, v in zip(loads, vals)]
    return build_cube(recs, ["policy", "trace", "load"], ["mean_wait"])


def finite(a):
    return np.asarray(a, float)[np.isfinite(np.asarray(a, float))]


def with_gains(gains, workload="ps02", new="delayed_los", base="los",
                metrics=("mean_wait", "utilization", "kumar_slowdown")):
    """A load cube whose ``new`` improves on ``base`` by ``gains[s]`` % in seed s (every load
    and metric of ``metrics``)."""
    seeds = tuple(range(len(gains)))
    cube = load_cube(seeds=seeds)
    for m in metrics:
        da = cube[m]
        b = da.sel(workload=workload, policy=base).values  # (load, seed)
        g = np.asarray(gains, float)[None, :] / 100
        higher = m == "utilization"
        da.loc[dict(workload=workload, policy=new)] = b * (1 + g) if higher else b * (1 - g)
    return cube


def noisy_cs_cube(waits_by_cs, seeds=12, jitter=0.002):
    """A C_s cube for ps05: Delayed-LOS's wait per C_s (seed factor and a small per-seed
    jitter so that the paired tests have a spread)."""
    recs = []
    rng = np.random.default_rng(1)
    for w in ("ps02", "ps05", "ps08"):
        for c, wait in waits_by_cs.items():
            for s in range(seeds):
                for p in ("easy", "los", "delayed_los"):
                    v = {"easy": 900.0, "los": 1000.0}.get(p, wait)
                    v *= (1 + s / 10) * (1 + jitter * rng.standard_normal())
                    recs.append({"workload": w, "policy": p, "cs": c, "seed": s,
                                 "mean_wait": v, "utilization": 0.8})
    return build_cube(recs, ["workload", "policy", "cs", "seed"], ["mean_wait", "utilization"])
