"""Pipeline entry point of every study step (workflow/rules/studies.smk).

Builds the study from the config, finds the step named like the rule, and
runs it with a :class:`simlib.studies.base.StepContext`: the step's files,
tracked parameters, wildcards, logger and the config.
"""
import importlib

from _common import job_log, repo_root
from simlib.studies import load_study
from simlib.studies.base import Files, StepContext


def _files(named):
    # Snakemake gives a list-valued entry as a Namedlist, a single path as str.
    return Files({k: (v if isinstance(v, str) else [str(x) for x in v])
                  for k, v in named.items() if not k.startswith("_")})


def main(snakemake):
    with job_log(snakemake) as log:
        # User policies and studies register themselves on import.
        for module in snakemake.config.get("policy_modules") or []:
            importlib.import_module(module)
        wildcards = dict(snakemake.wildcards.items())
        study = load_study(snakemake.params.study, snakemake.config, wildcards.get("scale"),
                           repo=repo_root(snakemake))
        ctx = StepContext(input=_files(snakemake.input), output=_files(snakemake.output),
                          params=dict(snakemake.params.spec), wildcards=wildcards, log=log,
                          config=snakemake.config)
        study.step(snakemake.rule).run(ctx)


main(snakemake)  # noqa: F821 (injected by Snakemake)
