"""Paper K's workload sets: every (load, seed) CWF workload of one variant and sweep.

One set is one Snakemake job (a 500-job workload takes ~0.03 s to
generate): ``<set>/load<x>/seed<s>.cwf.gz`` from
:func:`simlib.studies.kumar.generator.generate_kumar`, plus ``index.json`` with the
facts the cubes and tables need (β_arr, Load reached, n̄, counts).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path

from ...errors import ConfigError
from ...io import write_text
from ...workload.cwf import write_cwf
from . import generator as kgen
from .plan import workload_file

__all__ = ["generate_set", "make_set"]
_LOG = logging.getLogger(__name__)

#: What a set's ``index.json`` keeps of each workload's facts (:func:`.generator.kumar_info`).
_FACTS = ("beta_arr", "beta_arr_in_paper_range", "load_with_commands", "n_bar", "dedicated",
          "commands", "n_jobs")


def generate_set(spec: Mapping, outdir, log=_LOG) -> list[dict]:
    """Generate every (load, seed) CWF workload of one variant and sweep.

    ``spec`` is :meth:`KumarPlan.generation_spec`; a Load reached
    farther than ``spec["tolerance"]`` (relative) from its target is a
    ConfigError. Writes
    ``<outdir>/load<x>/seed<s>.cwf.gz`` and ``<outdir>/index.json`` (the
    spec, E[n̄] and its standard error, and one entry per file: load, seed,
    β_arr, Load reached with and without commands, n̄, counts); returns the
    entries.
    """
    outdir = Path(outdir)
    params = kgen.KumarParams.from_config(spec["params"], where=f"workload {spec['workload']}")
    entries = []
    for load in spec["loads"]:
        for seed in range(int(spec["seeds"])):
            entropy = [*spec["entropy_prefix"], seed]
            wl = kgen.generate_kumar(params, load=float(load), n_jobs=int(spec["n_jobs"]),
                                     seed=entropy)
            info = kgen.kumar_info(wl)
            if not abs(info["load"] / load - 1.0) <= spec["tolerance"]:
                raise ConfigError(f"{spec['workload']}: Load calibration to {load}: reached only "
                                  f"{info['load']:.6g} (tolerance {spec['tolerance']}); "
                                  "generate more jobs")
            path = workload_file(outdir, load, seed)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_cwf(wl, path)
            entries.append({"load": float(load), "seed": seed, "entropy": entropy,
                            "file": path.relative_to(outdir).as_posix(), "offered_load": info["load"],
                            **{k: info[k] for k in _FACTS}})
            log.info("%s load %s seed %d: Load %.4f, beta_arr %.4f, n_bar %.1f", spec["workload"],
                     load, seed, info["load"], info["beta_arr"], info["n_bar"])
    doc = {**dict(spec), "expected_n_bar": kgen.expected_mean_job_size(params),
           "n_bar_se": kgen.mean_job_size_se(params, int(spec["n_jobs"])), "entries": entries}
    write_text(outdir / "index.json", json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return entries


def make_set(ctx) -> None:
    """The ``kumar_workloads`` step: one set, ``ctx.params["spec"]`` into ``ctx.output.dir``."""
    entries = generate_set(ctx.params["spec"], ctx.output.dir, log=ctx.log)
    ctx.log.info("wrote %d workloads to %s", len(entries), ctx.output.dir)
