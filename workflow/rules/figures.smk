# Stage 5: figures and tables, one rule per study, written under
# paper_figures/<study>/. Every figure and table states the scale that
# produced it.


if "baseline" in config["studies"]:

    rule figures_baseline:
        message:
            "Plotting mean wait vs offered load and tabulating the baseline study ({params.scale} scale)"
        input:
            cube=cube_path("baseline"),
        output:
            png="paper_figures/baseline/mean_wait_vs_load.png",
            svg="paper_figures/baseline/mean_wait_vs_load.svg",
            csv="paper_figures/baseline/metrics_by_load.csv",
            md="paper_figures/baseline/metrics_by_load.md",
        params:
            scale=SCALE,
            metric="mean_wait",
        log:
            f"logs/figures/baseline.{SCALE}.log",
        script:
            "../scripts/figures_baseline.py"

    ARTIFACTS.extend([
        dict(section="baseline", path=cube_path("baseline"),
             title="Result cube (netCDF): every metric over dims (policy, trace, load), units and provenance in attributes"),
        dict(section="baseline", path="paper_figures/baseline/mean_wait_vs_load.png",
             title="Mean wait time vs offered load, one line per policy, one panel per trace"),
        dict(section="baseline", path="paper_figures/baseline/mean_wait_vs_load.svg",
             title="Same figure, vector (SVG)"),
        dict(section="baseline", path="paper_figures/baseline/metrics_by_load.csv",
             title="Table of the cube's metrics by trace, policy and load (CSV)"),
        dict(section="baseline", path="paper_figures/baseline/metrics_by_load.md",
             title="Same table, Markdown"),
    ])
