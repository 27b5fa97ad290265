# Stage 1: real traces. Fetch (copy or download) each trace file and verify
# its pinned sha256, then clean and subset it for the current scale, and
# characterize what the studies simulate.


rule fetch_trace:
    message:
        "Fetching trace {wildcards.trace} and verifying its sha256"
    output:
        "data/traces/raw/{trace}.swf.gz",
    params:
        # Tracked: the file and its pinned checksum. Not tracked on purpose:
        # traces.source (read by the script from the config), since a verified
        # file is the same whatever its origin.
        file=lambda w: config["traces"]["catalog"][w.trace]["file"],
        sha256=lambda w: MANIFEST[config["traces"]["catalog"][w.trace]["file"]].sha256_uncompressed,
    # No code inputs (code_inputs): whatever the code, the output is the
    # file pinned by its sha256, so editing the fetch code refetches nothing.
    log:
        "logs/traces/fetch.{trace}.log",
    script:
        "../scripts/fetch_trace.py"


rule prepare_trace:
    message:
        "Cleaning {wildcards.trace} and keeping the {wildcards.scale}-scale subset"
    input:
        raw="data/traces/raw/{trace}.swf.gz",
        _code=code_inputs("simlib.workload.prepare"),
    output:
        swf="data/traces/{trace}.{scale}.swf.gz",
        cleaning_log=reported("logs/traces/{trace}.{scale}.cleaning.txt", "traces"),
        info="data/traces/{trace}.{scale}.json",
    params:
        machine_procs=lambda w: config["traces"]["catalog"][w.trace]["machine_procs"],
        cleaning=config["traces"].get("cleaning") or {},
        unsorted=config["traces"].get("unsorted", "sort"),
        first_job=lambda w: config["scales"][w.scale].get("trace_first_job", 0),
        n_jobs=lambda w: config["scales"][w.scale]["trace_jobs"],
    log:
        "logs/traces/prepare.{trace}.{scale}.log",
    script:
        "../scripts/prepare_trace.py"


if traces_in_use():  # nothing to characterize when no study reads a trace

    rule characterize_traces:
        message:
            "Characterizing traces {params.traces} (whole cleaned trace and {params.scale}-scale subset)"
        input:
            info=[f"data/traces/{t}.{SCALE}.json" for t in traces_in_use()],
            _code=code_inputs("simlib.figures.traces"),
        output:
            csv=reported("paper_figures/traces/characterization.csv", "traces"),
            md=reported("paper_figures/traces/characterization.md", "traces"),
        params:
            traces=traces_in_use(),
            scale=SCALE,
        log:
            f"logs/traces/characterize.{SCALE}.log",
        script:
            "../scripts/characterize_traces.py"

    ARTIFACTS.append(dict(
        section="traces", path="paper_figures/traces/characterization.csv",
        title="Trace characterization (CSV): whole cleaned trace and the subset simulated at this scale"))
    ARTIFACTS.append(dict(
        section="traces", path="paper_figures/traces/characterization.md",
        title="Trace characterization (Markdown table)"))
for _t in traces_in_use():
    ARTIFACTS.append(dict(
        section="traces", path=f"logs/traces/{_t}.{SCALE}.cleaning.txt",
        title=f"Cleaning log of {_t}: jobs matched by each cleaning rule and the action taken"))

