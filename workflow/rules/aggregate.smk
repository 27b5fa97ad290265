# Stage 4: one netCDF cube per study and scale, dims (policy, trace, load),
# one variable per metric with units, provenance (simlib version, git commit,
# sha256 of the study's config sub-tree) in the attributes.


rule aggregate_trace_sweep:
    message:
        "Aggregating {wildcards.study} ({wildcards.scale}) into {output.cube}"
    input:
        summaries=lambda w: study_summaries(w.study, w.scale),
    output:
        cube="results/{study}.{scale}.nc",
    params:
        subtree=lambda w: study_subtree(w.study, w.scale),
    wildcard_constraints:
        study="|".join(TRACE_SWEEP_STUDIES) or "(?!)",
    log:
        "logs/aggregate/{study}.{scale}.log",
    script:
        "../scripts/aggregate.py"
