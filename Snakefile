# Reproduction pipeline of four parallel-job-scheduling papers (see README.md).
#
#   snakemake --cores all                      # default scale
#   snakemake --cores all --config scale=smoke # CI scale
#
#   snakemake --report report.zip              # browsable report of the built artifacts
#
# Thin on purpose: configuration, validation, the stage rules, and `all`.
# Stages: traces -> workloads -> simulate -> aggregate -> figures -> report;
# the generic rules are in workflow/rules/, every study's (each paper's) are
# generated from its steps (simlib.studies, workflow/rules/studies.smk).

from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

# Paths relative to the repository, so `--directory <elsewhere>` works.
configfile: f"{workflow.basedir}/config/config.yaml"
# Every study's grid: adding a paper adds a file, not a line here.
for _grid in sorted(Path(workflow.basedir, "config", "grids").glob("*.yaml")):

    configfile: str(_grid)

# common.smk validates the config (structure against config/config.schema.json
# and each study's own schema, then names and values) before any job runs.
include: "workflow/rules/common.smk"


# Front page of `snakemake --report`; each artifact's caption is written by
# rule report_pages (workflow/rules/report.smk).
report: "workflow/report/workflow.rst"


wildcard_constraints:
    scale="smoke|default|full",
    trace="[A-Za-z0-9_-]+",
    policy="[A-Za-z0-9_-]+",
    load="[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?",


include: "workflow/rules/traces.smk"
include: "workflow/rules/workloads.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/report.smk"


localrules: all, fetch_trace, report


rule all:
    input:
        [INDEX["path"]] if ALL_STUDIES else [],
        [a["path"] for a in ARTIFACTS],
        # What `snakemake --report` shows of them (report.smk).
        rules.report_pages.output,
    default_target: True


# Every artifact of the index is marked for `snakemake --report` and the
# other way round (common.smk); checked once all rules exist.
check_report_marks()
