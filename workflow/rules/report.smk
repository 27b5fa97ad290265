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


