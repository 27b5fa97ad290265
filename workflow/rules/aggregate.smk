# Stage 4: one netCDF cube per study and scale, dims (policy, trace, load),
# one variable per metric with units, provenance (simlib version, git commit,
# sha256 of the study's config sub-tree) in the attributes.


if UTRERA:

    def utrera_summaries(part, scale):
        """Run summaries (chunks) that make one U cube."""
        root = f"results/runs/utrera/{scale}"
        if part == "fig2":
            return [f"{root}/fig2/schedules.json"]
        if part == "table1":
            return [f"{root}/table1/{p}/load{load_tag(x)}/summary.json"
                    for p in ("easy", "fcfs_malleable") for x in UTRERA["table1"]["loads"]]
        if part == "traces":
            return [f"{root}/traces/{t}/{v}/summary.json"
                    for t in UTRERA["trace_portions"] for v in utrera_trace_variants()]
        return [f"{root}/long_util/{p}/util{load_tag(u)}/summary.json"
                for p in ("easy", "fcfs_malleable") for u in utrera_long_util_values(scale)]

    # Paper U: one cube per part of the paper, dims
    #   fig2 (policy); table1 (policy, load, seed); traces (trace, policy,
    #   seed); long_util (policy, long_util, seed).
    rule utrera_aggregate:
        message:
            "Aggregating paper U's {wildcards.part} runs into {output.cube}"
        input:
            summaries=lambda w: utrera_summaries(w.part, w.scale),
        output:
            cube=reported("results/utrera_{part}.{scale}.nc", "cube"),
        params:
            subtree=lambda w: utrera_subtree(w.part, w.scale),
            seeds=lambda w: (utrera_seeds("table1", w.scale) if w.part == "table1"
                             else utrera_seeds("ov", w.scale)),
        wildcard_constraints:
            part="fig2|table1|traces|long_util",
        log:
            "logs/aggregate/utrera_{part}.{scale}.log",
        script:
            "../scripts/utrera_aggregate.py"
