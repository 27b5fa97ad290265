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
