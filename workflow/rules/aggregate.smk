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


if KUMAR:

    # Paper K: one cube per sweep, dims (workload, policy, cs, seed) and
    # (workload, policy, load, seed).
    rule kumar_aggregate:
        message:
            "Aggregating paper K's {wildcards.purpose} sweep ({wildcards.scale}) into {output.cube}"
        input:
            summaries=lambda w: kumar_summaries(w.purpose, w.scale),
            code=KUMAR_RUN_CODE,
        output:
            cube=reported("results/kumar_{purpose}.{scale}.nc", "cube"),
        params:
            subtree=lambda w: {**kumar_plan(w.scale).subtree(w.purpose),
                               "simulation": simulation_params(),
                               "policy_modules": list(config.get("policy_modules") or [])},
            cs_values=lambda w: list(kumar_plan(w.scale).cs_values),
        wildcard_constraints:
            purpose="cs|load",
        log:
            "logs/aggregate/kumar_{purpose}.{scale}.log",
        script:
            "../scripts/kumar_aggregate.py"

    # The C_s of each P_S, picked from the C_s sweep as the paper did; read
    # by the load sweeps' Delayed-LOS / Hybrid-LOS chunks.
    rule kumar_pick_cs:
        message:
            "Picking C_s per P_S from paper K's C_s sweep ({params.pick[rule]} of {params.pick[metric]})"
        input:
            cube=f"results/kumar_cs.{SCALE}.nc",
            code=KUMAR_RUN_CODE,
        output:
            picks=f"results/kumar_cs_pick.{SCALE}.json",
            csv=reported("paper_figures/K/cs_pick.csv", "kumar"),
        params:
            pick=KUMAR_PLAN.cs_sweep["pick"],
            swept=KUMAR_PLAN.cs_sweep["swept"],
            load=float(KUMAR_PLAN.cs_sweep["load"]),
            p_s={w: KUMAR_PLAN.p_s(w) for w in KUMAR_PLAN.purpose_workloads("cs")},
            scale=SCALE,
        log:
            f"logs/aggregate/kumar_cs_pick.{SCALE}.log",
        script:
            "../scripts/kumar_pick_cs.py"
