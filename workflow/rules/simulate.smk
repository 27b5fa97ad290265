# Stage 3: simulations. Studies declare theirs as steps
# (workflow/rules/studies.smk); the rules below are the ones not yet so.


if KUMAR:

    def kumar_simulate_inputs(w):
        spec = kumar_plan(w.scale).simulation_spec(w.purpose, w.workload, w.policy)
        out = {"workloads": kumar_set_dir(w.purpose, w.workload, w.scale),
               "engine": ENGINE_CODE, "policy_code": policy_code(w.policy),
               "code": KUMAR_RUN_CODE}
        if spec["cs"] == "pick":
            out["picks"] = f"results/kumar_cs_pick.{w.scale}.json"
        return out

    # Paper K: one job per (sweep, workload variant, policy) over every load x
    # seed (x C_s for the swept policy); a 500-job run takes ~0.05 s. Each
    # chunk depends on its own policy's entry and code only; Delayed-LOS /
    # Hybrid-LOS chunks of the load sweeps also on the pipeline's C_s pick.
    rule kumar_simulate:
        message:
            "Simulating {wildcards.policy} on paper K's {wildcards.workload} workloads "
            "({wildcards.purpose} sweep, {wildcards.scale})"
        input:
            unpack(kumar_simulate_inputs),
        output:
            summary="results/runs/kumar/{scale}/{purpose}/{workload}/{policy}/summary.json",
            jobs="results/runs/kumar/{scale}/{purpose}/{workload}/{policy}/jobs.csv.gz",
        params:
            spec=lambda w: kumar_plan(w.scale).simulation_spec(w.purpose, w.workload, w.policy),
            simulation=simulation_params(),
        wildcard_constraints:
            purpose="cs|load",
            workload="|".join(KUMAR["workloads"]),
            policy="|".join(KUMAR["policies"]),
        threads: 1
        resources:
            runtime=60,
            mem_mb=2000,
        log:
            "logs/runs/kumar/{scale}/{purpose}/{workload}/{policy}.log",
        script:
            "../scripts/kumar_simulate.py"
