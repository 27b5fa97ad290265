# Stage 2: workloads. For trace-based sweeps, each target offered load is
# reached by multiplying the inter-arrival times of the prepared trace (the
# LOS papers' method). Generated workloads (Lublin model, paper variants)
# will get their rules here too.


rule scale_load:
    message:
        "Rescaling {wildcards.trace} ({wildcards.scale}) to offered load {wildcards.load}"
    input:
        swf="data/traces/{trace}.{scale}.swf.gz",
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
