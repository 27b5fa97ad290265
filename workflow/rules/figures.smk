# Stage 5: figures and tables, one rule per study, written under
# paper_figures/<study>/. Every figure and table states the scale that
# produced it. Outputs that are artifacts (ARTIFACTS, the index) are wrapped
# in reported(...) so that `snakemake --report` shows them (common.smk).


# Lublin–Feitelson model (issue 3): one generated workload against the
# model's analytic distributions.
# A shared artifact, not a study's: built when every study is (no only=, no skip=).
if (config.get("lublin") or {}).get("validation") and ALL_STUDIES:
    _LV = config["lublin"]["validation"]

    rule lublin_validation:
        message:
            "Plotting the Lublin model validation figure ({params.param_set}, seed {params.seed})"
        input:
            swf=lublin_path(_LV["param_set"], None, _LV["seed"]),
            _code=code_inputs("simlib.figures.workloads"),
        output:
            png=reported("paper_figures/workloads/lublin_validation.png", "workloads"),
        params:
            param_set=_LV["param_set"],
            seed=_LV["seed"],
            model=LUBLIN_SETS[_LV["param_set"]]["model"],
            machine_size=LUBLIN_SETS[_LV["param_set"]]["machine_size"],
            fit_machine=LUBLIN_SETS[_LV["param_set"]]["fit_machine"],
            scale=SCALE,
        log:
            "logs/figures/lublin_validation.log",
        script:
            "../scripts/lublin_validation.py"

    ARTIFACTS.append(dict(
        section="workloads", path="paper_figures/workloads/lublin_validation.png",
        title=f"Lublin–Feitelson model: {LUBLIN_SETS[_LV['param_set']].get('n_jobs')} generated jobs "
              f"(parameter set {_LV['param_set']}, seed {_LV['seed']}) against the analytic size, "
              "runtime and arrival distributions"))


