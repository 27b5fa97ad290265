import re

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


# Where runs are short (scales.<scale>.batch), one job per trace rescales it
# to every load this run's trace sweeps ask for (a rescaling takes a few
# milliseconds, a job's start-up about half a second); same files. Other
# loads still come from scale_load. Adding a load to one sweep reruns the
# trace's job, and so every batched simulation reading that trace.
def sweep_loads():
    """Trace -> the load tags of every trace sweep of this run (batched scales only)."""
    from simlib.studies.trace_sweep import TraceSweep

    loads = {}
    for study in STUDIES:
        if isinstance(study, TraceSweep) and study.batches(f"{study.key}_simulate"):
            for trace in study.traces_:
                loads.setdefault(trace, set()).update(load_tag(x) for x in study.loads())
    return {t: sorted(v, key=float) for t, v in sorted(loads.items())}


for _trace, _loads in sweep_loads().items():
    _rule = "scale_load_" + re.sub(r"\W", "_", _trace)

    rule:
        name:
            _rule
        message:
            f"Rescaling {_trace} ({{wildcards.scale}}) to offered loads {', '.join(_loads)}"
        input:
            swf=f"data/traces/{_trace}.{{scale}}.swf.gz",
            _code=code_inputs("simlib.workload.prepare"),
        output:
            **{f"swf__{i}": f"data/workloads/{{scale}}/{_trace}/load{x}.swf.gz"
               for i, x in enumerate(_loads)},
            **{f"info__{i}": f"data/workloads/{{scale}}/{_trace}/load{x}.json"
               for i, x in enumerate(_loads)},
        params:
            trace=_trace,
            machine_procs=config["traces"]["catalog"][_trace]["machine_procs"],
            target_loads=[float(x) for x in _loads],
        log:
            f"logs/workloads/{{scale}}/{_trace}.log",
        # The cluster profiles group scale_load by name; this rule joins it.
        group:
            "sweep"
        script:
            "../scripts/scale_load.py"

    workflow.ruleorder(_rule, "scale_load")


# Lublin–Feitelson workloads (issue 3), by (parameter set, load, seed); any
# study may ask for one. Load "native" = the model's own arrival rate.
rule lublin_workload:
    message:
        "Generating Lublin workload {wildcards.lparams}, load {wildcards.lload}, seed {wildcards.seed}"
    input:
        _code=code_inputs("simlib.workload.lublin.calibration"),
    output:
        swf="data/workloads/lublin/{lparams}/load{lload}/seed{seed}.swf.gz",
        info="data/workloads/lublin/{lparams}/load{lload}/seed{seed}.json",
    params:
        # The parameter set's own entry only: editing another set reruns nothing here.
        model=lambda w: LUBLIN_SETS[w.lparams]["model"],
        machine_size=lambda w: LUBLIN_SETS[w.lparams]["machine_size"],
        fit_machine=lambda w: LUBLIN_SETS[w.lparams]["fit_machine"],
        n_jobs=lambda w: LUBLIN_SETS[w.lparams].get("n_jobs"),
        span=lambda w: LUBLIN_SETS[w.lparams].get("span"),
        start_hour=lambda w: LUBLIN_SETS[w.lparams]["start_hour"],
        calibration=lambda w: LUBLIN_SETS[w.lparams]["calibration"],
        arrival_clock=lambda w: LUBLIN_SETS[w.lparams]["arrival_clock"],
        estimates=lambda w: LUBLIN_SETS[w.lparams]["estimates"],
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


