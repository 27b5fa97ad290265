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
