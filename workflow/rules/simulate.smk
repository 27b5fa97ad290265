# Stage 3: simulations, one job per (study, trace, policy, load). Each job
# depends on its own policy's config entry (params) and source files (input),
# so editing one policy reruns only that policy's runs. The study is
# deterministic: no seed dimension.


rule simulate_trace_sweep:
    message:
        "Simulating {wildcards.policy} on {wildcards.trace} at load {wildcards.load} "
        "({wildcards.study}, {wildcards.scale})"
    input:
        swf="data/workloads/{scale}/{trace}/load{load}.swf.gz",
        info="data/workloads/{scale}/{trace}/load{load}.json",
        # Code the results depend on: the engine (all runs) and this
        # policy's own modules (only its runs).
        engine=ENGINE_CODE,
        policy_code=lambda w: policy_code(w.policy),
    output:
        jobs="results/runs/{study}/{scale}/{trace}/{policy}/load{load}/jobs.csv",
        summary="results/runs/{study}/{scale}/{trace}/{policy}/load{load}/summary.json",
    params:
        policy_params=lambda w: policy_params(w.study, w.policy),
        machine_procs=lambda w: config["traces"]["catalog"][w.trace]["machine_procs"],
        target_load=lambda w: float(w.load),
        simulation=simulation_params(),
    wildcard_constraints:
        study="|".join(TRACE_SWEEP_STUDIES) or "(?!)",
    threads: 1
    resources:
        runtime=60,
        mem_mb=2000,
    log:
        "logs/runs/{study}/{scale}/{trace}/{policy}/load{load}.log",
    script:
        "../scripts/simulate.py"
