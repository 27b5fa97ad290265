"""Pipeline entry point: generate one CWF workload of paper K.

Thin wrapper around :func:`simlib.workload.kumar.generate_kumar`.
``snakemake.params`` (missing or None = default):

``p_s``, ``p_d``, ``p_e``, ``p_r``  probabilities P_S, P_D, P_E, P_R
                   (defaults 0.5, 0, 0, 0; the paper's elastic runs use
                   P_E = 0.2, P_R = 0.1).
``load``           target Load (β_arr is solved for); None = use
                   ``generator.barr`` as given.
``n_jobs``         jobs per workload (default 500).
``seed``           int or list of ints: the run's coordinates (required).
``generator``      mapping of further :class:`KumarParams` fields
                   (``p_size``, ``dedicated_delay_mean``, ``amount_basis``,
                   ``extension_mean``, ``reduction_mean``,
                   ``command_window``, Table I/II values, ...).
``tolerance``      relative load tolerance (default 0.01).

Outputs: ``cwf`` (CWF, gzip if it ends in .gz) and, if named, ``info``
(JSON: parameters, β_arr, Load with and without commands, n̄ beside the
paper's value, counts of dedicated jobs and commands).
"""
import numpy as np

from _common import job_log, write_json
from simlib.workload import kumar
from simlib.workload.cwf import write_cwf


def _entropy(seed):
    if seed is None:
        return None
    return int(seed) if isinstance(seed, (int, np.integer)) else [int(x) for x in seed]


def main(snakemake):
    p = snakemake.params
    with job_log(snakemake) as log:
        fields = dict(getattr(p, "generator", None) or {})
        for name in ("p_s", "p_d", "p_e", "p_r"):
            value = getattr(p, name, None)
            if value is not None:
                fields[name] = float(value)
        params = kumar.KumarParams.from_config(fields, where="kumar.generator")
        load = getattr(p, "load", None)
        n_jobs = int(getattr(p, "n_jobs", None) or kumar.N_JOBS)
        tolerance = float(getattr(p, "tolerance", None) or 0.01)
        seed = _entropy(getattr(p, "seed", None))
        workload = kumar.generate_kumar(params, load=None if load is None else float(load),
                                        n_jobs=n_jobs, seed=seed, tolerance=tolerance)
        info = kumar.kumar_info(workload)
        log.info("%d jobs, %d commands, Load %.6f (target %s, with commands %.6f), "
                 "beta_arr %.6g, n_bar %.2f", info["n_jobs"], len(workload.jobs) - n_jobs,
                 info["load"], load, info["load_with_commands"], info["beta_arr"],
                 info["n_bar"])
        write_cwf(workload, snakemake.output.cwf)
        if "info" in snakemake.output.keys():
            report = kumar.n_bar_report([workload]).iloc[0]
            info["n_bar_expected"] = float(report["expected"])
            info["n_bar_se"] = float(report["se"])
            info["n_bar_published"] = float(report["published"])
            info["n_bar_published_source"] = kumar.PUBLISHED_N_BAR_SOURCE
            info["seed_entropy"] = seed
            write_json(info, snakemake.output.info)


main(snakemake)  # noqa: F821
