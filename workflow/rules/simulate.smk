# Stage 3: simulations. Studies declare theirs as steps
# (workflow/rules/studies.smk); the rules below are the ones not yet so.


if UTRERA:
    # Paper U. Inner sweeps (seeds) are chunked into one job per point so
    # the DAG stays small: one job per (policy, load) for Table 1, per
    # (trace, policy variant) on the traces, per utilization for Sect. 5.1.
    # Each writes summary.json (one record per seed) and, for its first
    # seed, jobs.csv (Batsim columns) and timeline.csv.gz.

    UTRERA_CODE = ENGINE_CODE + [str(REPO / "simlib/studies/utrera.py"),
                                 str(REPO / "simlib/workload/utrera.py")]

    rule utrera_fig2:
        message:
            "Simulating paper U's Fig. 2 toy example under {params.policies} ({wildcards.scale})"
        input:
            code=UTRERA_CODE,
            policy_code=sorted({f for p in UTRERA["fig2"]["policies"] for f in policy_code(p)}),
        output:
            schedules="results/runs/utrera/{scale}/fig2/schedules.json",
        params:
            fig2=UTRERA["fig2"],
            policies=UTRERA["fig2"]["policies"],
            malleable=utrera_policy("fcfs_malleable"),
            simulation=simulation_params(),
        log:
            "logs/runs/utrera/{scale}/fig2.log",
        script:
            "../scripts/utrera_fig2.py"

    rule utrera_simulate_table1:
        message:
            "Simulating {wildcards.policy} on paper U's Table 1 workloads at load {wildcards.load}, "
            "{params.n_seeds} seeds ({wildcards.scale})"
        input:
            swfs=lambda w: [utrera_table1_workload(s, float(w.load))
                            for s in utrera_seeds("table1", w.scale)],
            code=UTRERA_CODE,
            policy_code=lambda w: policy_code(w.policy),
        output:
            summary="results/runs/utrera/{scale}/table1/{policy}/load{load}/summary.json",
            jobs="results/runs/utrera/{scale}/table1/{policy}/load{load}/jobs.csv",
            timeline="results/runs/utrera/{scale}/table1/{policy}/load{load}/timeline.csv.gz",
        params:
            kind="table1",
            policy=lambda w: w.policy,
            policy_params=lambda w: utrera_policy(w.policy),
            seeded=lambda w: w.policy == "fcfs_malleable",
            seeds=lambda w: utrera_seeds("table1", w.scale),
            n_seeds=lambda w: len(utrera_seeds("table1", w.scale)),
            cpus=LUBLIN_SETS[UTRERA["table1"]["lublin_params"]].get("machine_size", 128),
            coords=lambda w: {"load": float(w.load)},
            simulation=simulation_params(),
        wildcard_constraints:
            policy="easy|fcfs_malleable",
        log:
            "logs/runs/utrera/{scale}/table1/{policy}/load{load}.log",
        script:
            "../scripts/utrera_simulate.py"

    rule utrera_simulate_traces:
        message:
            "Simulating {wildcards.variant} on {wildcards.trace} (paper U, {wildcards.scale})"
        input:
            swf="data/traces/utrera/{trace}.{scale}.swf.gz",
            code=UTRERA_CODE,
            policy_code=lambda w: policy_code(utrera_trace_variants()[w.variant]["policy"]),
        output:
            summary="results/runs/utrera/{scale}/traces/{trace}/{variant}/summary.json",
            jobs="results/runs/utrera/{scale}/traces/{trace}/{variant}/jobs.csv",
            timeline="results/runs/utrera/{scale}/traces/{trace}/{variant}/timeline.csv.gz",
        params:
            kind="traces",
            policy=lambda w: utrera_trace_variants()[w.variant]["policy"],
            policy_params=lambda w: utrera_trace_variants()[w.variant]["params"],
            seeded=lambda w: utrera_trace_variants()[w.variant]["seeded"],
            seeds=lambda w: utrera_seeds("ov", w.scale),
            cpus=lambda w: utrera_portion(w.trace, w.scale)["machine_procs"],
            coords=lambda w: {"trace": w.trace,
                              "policy": utrera_trace_variants()[w.variant]["label"]},
            simulation=simulation_params(),
        wildcard_constraints:
            trace="|".join(UTRERA["trace_portions"]),
            variant="|".join(utrera_trace_variants()),
        log:
            "logs/runs/utrera/{scale}/traces/{trace}/{variant}.log",
        script:
            "../scripts/utrera_simulate.py"

    rule utrera_simulate_long_util:
        message:
            "Simulating {wildcards.policy} on {params.trace} with long jobs' CPU utilization "
            "{wildcards.util} (paper U, Sect. 5.1, {wildcards.scale})"
        input:
            swf=lambda w: f"data/traces/utrera/{UTRERA['long_util']['trace']}.{w.scale}.swf.gz",
            code=UTRERA_CODE,
            policy_code=lambda w: policy_code(w.policy),
        output:
            summary="results/runs/utrera/{scale}/long_util/{policy}/util{util}/summary.json",
            jobs="results/runs/utrera/{scale}/long_util/{policy}/util{util}/jobs.csv",
            timeline="results/runs/utrera/{scale}/long_util/{policy}/util{util}/timeline.csv.gz",
        params:
            kind="long_util",
            trace=UTRERA["long_util"]["trace"],
            policy=lambda w: w.policy,
            policy_params=lambda w: utrera_policy(w.policy),
            seeded=lambda w: w.policy == "fcfs_malleable",
            seeds=lambda w: utrera_seeds("ov", w.scale),
            cpus=lambda w: utrera_portion(UTRERA["long_util"]["trace"], w.scale)["machine_procs"],
            long_util=lambda w: float(w.util),
            long_util_mode=UTRERA["long_util"].get("mode", "set"),
            coords=lambda w: {"long_util": float(w.util), "policy": w.policy},
            simulation=simulation_params(),
        wildcard_constraints:
            policy="easy|fcfs_malleable",
            util="[0-9]+(\\.[0-9]+)?",
        log:
            "logs/runs/utrera/{scale}/long_util/{policy}/util{util}.log",
        script:
            "../scripts/utrera_simulate.py"
