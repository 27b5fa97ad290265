# Stage 5: figures and tables, one rule per study, written under
# paper_figures/<study>/. Every figure and table states the scale that
# produced it. Outputs that are artifacts (ARTIFACTS, the index) are wrapped
# in reported(...) so that `snakemake --report` shows them (common.smk).


# Lublin–Feitelson model (issue 3): one generated workload against the
# model's analytic distributions.
if (config.get("lublin") or {}).get("validation"):
    _LV = config["lublin"]["validation"]

    rule lublin_validation:
        message:
            "Plotting the Lublin model validation figure ({params.param_set}, seed {params.seed})"
        input:
            swf=lublin_path(_LV["param_set"], None, _LV["seed"]),
        output:
            png=reported("paper_figures/workloads/lublin_validation.png", "workloads"),
        params:
            param_set=_LV["param_set"],
            seed=_LV["seed"],
            model=LUBLIN_SETS[_LV["param_set"]].get("model") or {},
            machine_size=LUBLIN_SETS[_LV["param_set"]].get("machine_size", 128),
            fit_machine=LUBLIN_SETS[_LV["param_set"]].get("fit_machine", False),
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


if KUMAR:
    _K = "paper_figures/K"
    KUMAR_ARTS = kumar_study.artifact_list(KUMAR_PLAN, fig1=KUMAR_FIG1)

    def _k_out(rule_name):
        """A rule's outputs under paper_figures/K, all of them artifacts."""
        return [reported(f"{_K}/{a['file']}", "kumar") for a in KUMAR_ARTS if a["rule"] == rule_name]

    if KUMAR_FIG1:

        rule kumar_fig1:
            message:
                "Drawing paper K's Fig. 1 (EASY vs LOS on {params.trace}, {params.scale} scale)"
            input:
                cube=cube_path("kumar_fig1"),
                code=KUMAR_FIG_CODE,
            output:
                png=reported(f"{_K}/fig1_easy_vs_los_sdsc.png", "kumar"),
                svg=reported(f"{_K}/fig1_easy_vs_los_sdsc.svg", "kumar"),
                csv=reported(f"{_K}/fig1_easy_vs_los_sdsc.csv", "kumar"),
            params:
                scale=SCALE,
                trace=", ".join(config["studies"]["kumar_fig1"]["traces"]),
            log:
                f"logs/figures/kumar_fig1.{SCALE}.log",
            script:
                "../scripts/kumar_fig1.py"

    rule kumar_examples:
        message:
            "Drawing paper K's Fig. 2 from simulation and Table III from the policy registry"
        input:
            published=repo_path(KUMAR["published"]),
            code=KUMAR_FIG_CODE,
            policies=sorted({f for p in kumar_study.PAPER_NAMES if p in POLICIES
                             for f in policy_code(p)}),
        output:
            fig2_png=reported(f"{_K}/fig2_delayed_los_example.png", "kumar"),
            fig2_svg=reported(f"{_K}/fig2_delayed_los_example.svg", "kumar"),
            fig2_csv=reported(f"{_K}/fig2_delayed_los_example.csv", "kumar"),
            table3_md=reported(f"{_K}/table3_algorithms.md", "kumar"),
            table3_csv=reported(f"{_K}/table3_algorithms.csv", "kumar"),
        log:
            "logs/figures/kumar_examples.log",
        script:
            "../scripts/kumar_examples.py"

    rule kumar_figures:
        message:
            "Drawing paper K's Figs. 5-11 ({params.scale} scale)"
        input:
            cs_cube=f"results/kumar_cs.{SCALE}.nc",
            load_cube=f"results/kumar_load.{SCALE}.nc",
            picks=f"results/kumar_cs_pick.{SCALE}.json",
            code=KUMAR_FIG_CODE,
        output:
            _k_out("figures"),
        params:
            study=KUMAR,
            scale=SCALE,
            outdir=_K,
        log:
            f"logs/figures/kumar_figures.{SCALE}.log",
        script:
            "../scripts/kumar_figures.py"

    def kumar_tables_inputs(w):
        out = {"load_cube": f"results/kumar_load.{SCALE}.nc",
               "cs_cube": f"results/kumar_cs.{SCALE}.nc",
               "picks": f"results/kumar_cs_pick.{SCALE}.json",
               "published": repo_path(KUMAR["published"]),
               "workloads": [kumar_set_dir("load", w_) for w_ in KUMAR_PLAN.purpose_workloads("load")],
               "code": KUMAR_FIG_CODE}
        if KUMAR_FIG1:
            out["fig1_cube"] = cube_path("kumar_fig1")
        return out

    rule kumar_tables:
        message:
            "Tabulating paper K's Tables IV-VII, n-bar and the claims ({params.scale} scale)"
        input:
            unpack(kumar_tables_inputs),
        output:
            tables_md=reported(f"{_K}/tables_iv_vii.md", "kumar"),
            tables_csv=reported(f"{_K}/tables_iv_vii.csv", "kumar"),
            by_load_csv=reported(f"{_K}/improvements_by_load.csv", "kumar"),
            n_bar_md=reported(f"{_K}/n_bar.md", "kumar"),
            n_bar_csv=reported(f"{_K}/n_bar.csv", "kumar"),
            claims_csv=reported(f"{_K}/claims.csv", "kumar"),
        params:
            study=KUMAR,
            scale=SCALE,
            workloads=KUMAR_PLAN.purpose_workloads("load"),
        log:
            f"logs/figures/kumar_tables.{SCALE}.log",
        script:
            "../scripts/kumar_tables.py"

    ARTIFACTS.extend(dict(section="K", path=f"{_K}/{a['file']}", title=a["title"])
                     for a in KUMAR_ARTS)
    ARTIFACTS.append(dict(section="K", path=f"{_K}/README.md",
                          title="Paper K: every artifact with published vs reproduced numbers "
                                "and a verdict per claim"))
    ARTIFACTS.extend(dict(section="K", path=f"results/kumar_{part}.{SCALE}.nc", title=title)
                     for part, title in (
        ("cs", "Cube (netCDF): the C_s sweep, dims (workload, policy, cs, seed)"),
        ("load", "Cube (netCDF): the load sweeps, dims (workload, policy, load, seed)")))
