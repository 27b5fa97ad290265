# Stage 2: workloads. For trace-based sweeps, each target offered load is
# reached by multiplying the inter-arrival times of the prepared trace (the
# LOS papers' method). Generated workloads (Lublin model, paper variants)
# will get their rules here too.


rule scale_load:
    message:
        "Rescaling {wildcards.trace} ({wildcards.scale}) to offered load {wildcards.load}"
    input:
        swf="data/traces/{trace}.{scale}.swf.gz",
        _code=code_inputs("simlib.workload.prepare"),
    output:
        swf="data/workloads/{scale}/{trace}/load{load}.swf.gz",
        info="data/workloads/{scale}/{trace}/load{load}.json",
    params:
        machine_procs=lambda w: config["traces"]["catalog"][w.trace]["machine_procs"],
        target_load=lambda w: float(w.load),
    log:
        "logs/workloads/{scale}/{trace}/load{load}.log",
    script:
        "../scripts/scale_load.py"


# Lublin–Feitelson workloads (issue 3), by (parameter set, load, seed); any
# study may ask for one. Load "native" = the model's own arrival rate.
rule lublin_workload:
    message:
        "Generating Lublin workload {wildcards.lparams}, load {wildcards.lload}, seed {wildcards.seed}"
    input:
        _code=code_inputs("simlib.workload.lublin"),
    output:
        swf="data/workloads/lublin/{lparams}/load{lload}/seed{seed}.swf.gz",
        info="data/workloads/lublin/{lparams}/load{lload}/seed{seed}.json",
    params:
        # The parameter set's own entry only: editing another set reruns nothing here.
        model=lambda w: LUBLIN_SETS[w.lparams].get("model") or {},
        machine_size=lambda w: LUBLIN_SETS[w.lparams].get("machine_size", 128),
        fit_machine=lambda w: LUBLIN_SETS[w.lparams].get("fit_machine", False),
        n_jobs=lambda w: LUBLIN_SETS[w.lparams].get("n_jobs"),
        span=lambda w: LUBLIN_SETS[w.lparams].get("span"),
        start_hour=lambda w: LUBLIN_SETS[w.lparams].get("start_hour", 0),
        calibration=lambda w: LUBLIN_SETS[w.lparams].get("calibration", "cycle"),
        arrival_clock=lambda w: LUBLIN_SETS[w.lparams].get("arrival_clock", "exact"),
        estimates=lambda w: LUBLIN_SETS[w.lparams].get("estimates", {"model": "exact"}),
        load=lambda w: None if w.lload == "native" else float(w.lload),
        seed=lambda w: int(w.seed),
    wildcard_constraints:
        lparams="|".join(LUBLIN_SETS) or "(?!)",
        lload="native|[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?",
        seed="[0-9]+",
    log:
        "logs/workloads/lublin/{lparams}/load{lload}/seed{seed}.log",
    script:
        "../scripts/lublin_workload.py"


