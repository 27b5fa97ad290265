"""Pipeline entry point: the netCDF cube of one of paper K's sweeps.

``wildcards.purpose`` ``cs``: dims (workload, policy, cs, seed); ``load``:
dims (workload, policy, load, seed). Built by
:func:`simlib.studies.kumar.build_kumar_cube` from the simulate chunks'
summaries; provenance (simlib version, git commit, sha256 of the study's
config sub-tree) in the attributes.
"""
import json
from pathlib import Path

from _common import job_log, repo_root
from simlib.cube import provenance, write_cube
from simlib.studies.kumar import build_kumar_cube


def main(snakemake):
    purpose = snakemake.wildcards.purpose
    scale = snakemake.wildcards.scale
    p = snakemake.params
    with job_log(snakemake) as log:
        records = []
        for path in snakemake.input.summaries:
            records.extend(json.loads(Path(path).read_text(encoding="utf-8"))["records"])
        attrs = provenance(p.subtree, repo_dir=repo_root(snakemake))
        attrs.update({
            "study": "kumar", "sweep": purpose, "scale": scale,
            "title": f"paper K, {'C_s' if purpose == 'cs' else 'load'} sweep, {scale} scale",
            "config_subtree": json.dumps(p.subtree, sort_keys=True),
            "tau_s": float(p.subtree["simulation"]["tau"]),
            "note": ("EASY and LOS do not depend on C_s: their one run per seed is repeated "
                     "along cs" if purpose == "cs" else
                     "NaN where a policy does not run on a workload"),
        })
        cube = build_kumar_cube(records, purpose, p.cs_values, attrs=attrs)
        write_cube(cube, snakemake.output.cube)
        log.info("cube %s: dims %s", snakemake.output.cube, dict(cube.sizes))


main(snakemake)  # noqa: F821
