# Stage 6: paper_figures/README.md, the index of every artifact of this run
# (one line each), saying which scale produced them.


rule report:
    message:
        "Writing the artifact index paper_figures/README.md ({params.scale} scale)"
    input:
        [a["path"] for a in ARTIFACTS],
    output:
        reported(INDEX["path"], "index"),
    params:
        artifacts=ARTIFACTS,
        scale=SCALE,
        scale_description=config["scales"][SCALE].get("description", ""),
        studies={s: st.get("description", "") for s, st in config["studies"].items()},
    log:
        f"logs/report.{SCALE}.log",
    script:
        "../scripts/report.py"


if UTRERA:

    # Paper U's own README: every artifact, published vs reproduced, a
    # verdict per claim (rules in simlib.studies.utrera.claims).
    rule utrera_readme:
        message:
            "Writing paper_figures/U/README.md ({params.scale} scale)"
        input:
            fig2=f"{_U}/fig2_numbers.csv",
            table1=f"{_U}/table1.csv",
            table2=f"{_U}/table2.csv",
            fig3=f"{_U}/fig3.csv",
            gains=f"{_U}/headline_gains.csv",
            orders=f"{_U}/orders_ablation.csv",
            readings=f"{_U}/time_model_readings.csv",
            long_util=f"{_U}/long_util.csv",
            published=repo_path(UTRERA["published"]),
            others=[a["path"] for a in ARTIFACTS
                    if a["section"] == "U" and not a["path"].endswith("README.md")],
            code=UTRERA_FIG_CODE,
        output:
            reported(f"{_U}/README.md", "utrera"),
        params:
            scale=SCALE,
            scale_description=config["scales"][SCALE].get("description", ""),
            study=UTRERA,
            portions={t: utrera_portion(t) for t in UTRERA["trace_portions"]},
            table1_seeds=len(utrera_seeds("table1")),
            ov_seeds=len(utrera_seeds("ov")),
            long_util_values=utrera_long_util_values(),
            lublin=LUBLIN_SETS[UTRERA["table1"]["lublin_params"]],
            readings={n: f"fcfs_malleable:{n}" for n in (UTRERA.get("readings") or {})},
            artifacts=[a for a in ARTIFACTS if a["section"] == "U"],
        log:
            f"logs/report.utrera.{SCALE}.log",
        script:
            "../scripts/utrera_readme.py"


if KUMAR:

    # Paper K's own README: every artifact, published vs reproduced, a
    # verdict per claim (rules in simlib.studies.kumar.claims).
    rule kumar_report:
        message:
            "Writing paper_figures/K/README.md ({params.scale} scale)"
        input:
            published=repo_path(KUMAR["published"]),
            picks=f"results/kumar_cs_pick.{SCALE}.json",
            load_cube=f"results/kumar_load.{SCALE}.nc",
            tables_csv=f"{_K}/tables_iv_vii.csv",
            claims_csv=f"{_K}/claims.csv",
            n_bar_csv=f"{_K}/n_bar.csv",
            others=[a["path"] for a in ARTIFACTS
                    if a["section"] == "K" and not a["path"].endswith("README.md")],
            code=KUMAR_FIG_CODE,
        output:
            reported(f"{_K}/README.md", "kumar"),
        params:
            study=KUMAR,
            scale=SCALE,
            fig1_scale=(f"{config['scales'][SCALE].get('trace_jobs') or 'all'} jobs of "
                        + ", ".join(config["studies"]["kumar_fig1"]["traces"])
                        if KUMAR_FIG1 else ""),
            cubes=[f"results/kumar_{p}.{SCALE}.nc" for p in ("cs", "load")],
        log:
            f"logs/report.kumar.{SCALE}.log",
        script:
            "../scripts/kumar_report.py"
