"""Pipeline entry point of every study step (workflow/rules/studies.smk).

Builds the study from the config, finds the step named like the rule, and
runs it with a :class:`simlib.studies.base.StepContext`: the step's files,
tracked parameters, wildcards, logger and the config.
"""
from _common import job_log, repo_root
from simlib.studies import load_study
from simlib.studies.base import Files, StepContext
from simlib.studies.user_policies import import_policy_modules


def _files(named, suffix=""):
    # Snakemake gives a list-valued entry as a Namedlist, a single path as str.
    # A batched job's entry i has the files named <name>__<i> (studies.smk).
    return Files({k[:len(k) - len(suffix)]: (v if isinstance(v, str) else [str(x) for x in v])
                  for k, v in named.items() if not k.startswith("_") and k.endswith(suffix)})


def main(snakemake):
    with job_log(snakemake) as log:
        wildcards = dict(snakemake.wildcards.items())
        repo = repo_root(snakemake)
        # The user's policies register themselves on import.
        import_policy_modules(snakemake.config, repo)
        # The workflow checked the config and filled its defaults when it was parsed.
        study = load_study(snakemake.params.study, snakemake.config, wildcards.get("scale"),
                           repo=repo, validate=False)
        spec = dict(snakemake.params.spec)
        # A batched job (studies.smk) names its step and gives each run's
        # wildcards and params; its files are named <name>__<i>.
        batched = "_batch" in spec and "_step" in spec
        step = study.step(spec["_step"] if batched else snakemake.rule)
        runs = spec["_batch"] if batched else [{"wildcards": {}, "params": spec}]
        for i, run in enumerate(runs):
            suffix = f"__{i}" if batched else ""
            if batched:
                log.info("batch entry %d of %d: %s", i + 1, len(runs), run["wildcards"])
            ctx = StepContext(input=_files(snakemake.input, suffix),
                              output=_files(snakemake.output, suffix),
                              params=dict(run["params"]), wildcards={**wildcards, **run["wildcards"]},
                              log=log, config=snakemake.config, repo=repo)
            step.run(ctx)


main(snakemake)  # noqa: F821 (injected by Snakemake)
