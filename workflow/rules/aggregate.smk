# Stage 4: one netCDF cube per study and scale, dims (policy, trace, load),
# one variable per metric with units, provenance (simlib version, git commit,
# sha256 of the study's config sub-tree) in the attributes.


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
