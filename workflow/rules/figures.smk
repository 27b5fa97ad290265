# Stage 5: figures and tables, one rule per study, written under
# paper_figures/<study>/. Every figure and table states the scale that
# produced it. Outputs that are artifacts (ARTIFACTS, the index) are wrapped
# in reported(...) so that `snakemake --report` shows them (common.smk).


# Lublin–Feitelson model (issue 3): one generated workload against the
# model's analytic distributions.
if (config.get("lublin") or {}).get("validation"):
    _LV = config["lublin"]["validation"]

    rule lublin_validation:
        message:
            "Plotting the Lublin model validation figure ({params.param_set}, seed {params.seed})"
        input:
            swf=lublin_path(_LV["param_set"], None, _LV["seed"]),
        output:
            png=reported("paper_figures/workloads/lublin_validation.png", "workloads"),
        params:
            param_set=_LV["param_set"],
            seed=_LV["seed"],
            model=LUBLIN_SETS[_LV["param_set"]].get("model") or {},
            machine_size=LUBLIN_SETS[_LV["param_set"]].get("machine_size", 128),
            fit_machine=LUBLIN_SETS[_LV["param_set"]].get("fit_machine", False),
            scale=SCALE,
        log:
            "logs/figures/lublin_validation.log",
        script:
            "../scripts/lublin_validation.py"

    ARTIFACTS.append(dict(
        section="workloads", path="paper_figures/workloads/lublin_validation.png",
        title=f"Lublin–Feitelson model: {LUBLIN_SETS[_LV['param_set']].get('n_jobs')} generated jobs "
              f"(parameter set {_LV['param_set']}, seed {_LV['seed']}) against the analytic size, "
              "runtime and arrival distributions"))


if UTRERA:
    # Code the figures and tables depend on (not the simulations: see UTRERA_CODE).
    UTRERA_FIG_CODE = [str(REPO / "simlib/figures/utrera.py"),
                       str(REPO / "simlib/studies/utrera_report.py")]
    _U = "paper_figures/U"

    rule utrera_figures_fig2:
        message:
            "Drawing paper U's Fig. 2 Gantt charts and its nine numbers"
        input:
            schedules=f"results/runs/utrera/{SCALE}/fig2/schedules.json",
            published=repo_path(UTRERA["published"]),
            code=UTRERA_FIG_CODE,
        output:
            png=reported(f"{_U}/fig2_gantt.png", "utrera"),
            csv=f"{_U}/fig2_numbers.csv",
            md=reported(f"{_U}/fig2_numbers.md", "utrera"),
        params:
            scale=SCALE,
            policies=UTRERA["fig2"]["policies"],
        log:
            f"logs/figures/utrera_fig2.{SCALE}.log",
        script:
            "../scripts/utrera_figures.py"

    rule utrera_figures_table1:
        message:
            "Tabulating and plotting paper U's Table 1 ({params.scale} scale)"
        input:
            cube=f"results/utrera_table1.{SCALE}.nc",
            fits=([f"data/workloads/utrera/table1/seed{s}/fit.json" for s in utrera_seeds("table1")]
                  if UTRERA["table1"]["fit"] == "runtimes" else []),
            published=repo_path(UTRERA["published"]),
            code=UTRERA_FIG_CODE,
        output:
            png=reported(f"{_U}/table1.png", "utrera"),
            csv=f"{_U}/table1.csv",
            md=reported(f"{_U}/table1.md", "utrera"),
        params:
            scale=SCALE,
            fit=UTRERA["table1"]["fit"],
            lublin=LUBLIN_SETS[UTRERA["table1"]["lublin_params"]],
        log:
            f"logs/figures/utrera_table1.{SCALE}.log",
        script:
            "../scripts/utrera_figures.py"

    rule utrera_figures_traces:
        message:
            "Drawing paper U's Fig. 3, Tables 2-3, fragmentation, headline, orders and readings "
            "({params.scale} scale)"
        input:
            cube=f"results/utrera_traces.{SCALE}.nc",
            infos=[f"data/traces/utrera/{t}.{SCALE}.json" for t in UTRERA["trace_portions"]],
            fig1_jobs=f"results/runs/utrera/{SCALE}/traces/{UTRERA['fig1']['trace']}/easy/jobs.csv",
            fig1_timeline=f"results/runs/utrera/{SCALE}/traces/{UTRERA['fig1']['trace']}/easy/timeline.csv.gz",
            published=repo_path(UTRERA["published"]),
            code=UTRERA_FIG_CODE,
        output:
            fig3=reported(f"{_U}/fig3.png", "utrera"),
            fig3_csv=f"{_U}/fig3.csv",
            fig3_md=reported(f"{_U}/fig3.md", "utrera"),
            table2_csv=f"{_U}/table2.csv",
            table2_md=reported(f"{_U}/table2.md", "utrera"),
            table3_csv=f"{_U}/table3.csv",
            table3_md=reported(f"{_U}/table3.md", "utrera"),
            frag_csv=f"{_U}/fragmentation.csv",
            frag_md=reported(f"{_U}/fragmentation.md", "utrera"),
            gains_csv=f"{_U}/headline_gains.csv",
            gains_md=reported(f"{_U}/headline_gains.md", "utrera"),
            orders=reported(f"{_U}/orders_ablation.png", "utrera"),
            orders_csv=f"{_U}/orders_ablation.csv",
            readings=reported(f"{_U}/time_model_readings.png", "utrera"),
            readings_csv=f"{_U}/time_model_readings.csv",
            fig1=reported(f"{_U}/fig1_substitute.png", "utrera"),
        params:
            scale=SCALE,
            traces=list(UTRERA["trace_portions"]),
            orders=utrera_order_labels(),
            readings={"main": "fcfs_malleable",
                      **{n: f"fcfs_malleable:{n}" for n in (UTRERA.get("readings") or {})}},
            reading_params={"main": utrera_policy("fcfs_malleable"),
                            **{n: dict(v or {}) for n, v in (UTRERA.get("readings") or {}).items()}},
            fig1=UTRERA["fig1"],
            fig1_cpus=utrera_portion(UTRERA["fig1"]["trace"])["machine_procs"],
        log:
            f"logs/figures/utrera_traces.{SCALE}.log",
        script:
            "../scripts/utrera_figures.py"

    rule utrera_figures_long_util:
        message:
            "Plotting paper U's Sect. 5.1 long-job CPU utilization sweep ({params.scale} scale)"
        input:
            cube=f"results/utrera_long_util.{SCALE}.nc",
            info=f"data/traces/utrera/{UTRERA['long_util']['trace']}.{SCALE}.json",
            published=repo_path(UTRERA["published"]),
            code=UTRERA_FIG_CODE,
        output:
            png=reported(f"{_U}/long_util.png", "utrera"),
            csv=f"{_U}/long_util.csv",
            md=reported(f"{_U}/long_util.md", "utrera"),
        params:
            scale=SCALE,
            trace=UTRERA["long_util"]["trace"],
            mode=UTRERA["long_util"].get("mode", "set"),
        log:
            f"logs/figures/utrera_long_util.{SCALE}.log",
        script:
            "../scripts/utrera_figures.py"

    _UA = [
        ("fig2_gantt.png", "Fig. 2: Gantt charts of FCFS, EASY and FCFS-malleable on the toy example, rendered from simulation, with the paper's nine numbers"),
        ("fig2_numbers.md", "Fig. 2: the nine numbers (average response, slowdown, fragmentation), ours vs published"),
        ("table1.png", "Table 1: Lublin workloads (150 jobs in 2 h) at 30-90 % load, ours (mean ± 95 % CI over seeds) vs the paper's S and R columns, and the gains"),
        ("table1.md", "Table 1 as a table: ours vs published S and R"),
        ("table2.md", "Table 2: workload characteristics of the trace portions (CPUs, jobs, CPU utilization, long jobs' utilization, Req.Cpus/Cpus readings) vs published"),
        ("fig3.png", "Fig. 3 (a)-(d): average wait, execution, response time and slowdown per trace, EASY vs FCFS-malleable (95 % CI over OV seeds)"),
        ("fig3.md", "Fig. 3's values as a table"),
        ("table3.md", "Table 3: average MPL per trace and policy vs published"),
        ("fragmentation.md", "Fragmentation (formula 2) per trace and policy vs published"),
        ("headline_gains.md", "Headline claim (28 % slowdown, 31 % response) recomputed: gains of FCFS-malleable over EASY per trace and averaged"),
        ("orders_ablation.png", "Ablation: the four candidate orders for shrinking/expanding (oldest, least CPU utilization, longest, shortest)"),
        ("time_model_readings.png", "Sensitivity: FCFS-malleable / EASY under other readings of the time model (OV = 0, OV on all work, expanding jobs started shrunk)"),
        ("long_util.png", "Sect. 5.1: SDSC re-simulated with the long jobs' CPU utilization from 60 % to 100 %"),
        ("long_util.md", "Sect. 5.1 values as a table"),
        ("fig1_substitute.png", "Fig. 1 SUBSTITUTE: one week of utilization and wait queue of a PWA trace simulated under EASY (MareNostrum data are not public)"),
        ("README.md", "Paper U: every artifact with published vs reproduced numbers, a verdict per claim, scale, seeds and interpretation choices"),
    ]
    ARTIFACTS.extend(dict(section="U", path=f"{_U}/{name}", title=title) for name, title in _UA)
    ARTIFACTS.extend(dict(section="U", path=f"results/utrera_{part}.{SCALE}.nc", title=title) for part, title in (
        ("fig2", "Cube (netCDF): Fig. 2 metrics, dims (policy)"),
        ("table1", "Cube (netCDF): Table 1 runs, dims (policy, load, seed)"),
        ("traces", "Cube (netCDF): trace runs (Fig. 3, Tables 2-3, orders, readings), dims (trace, policy, seed)"),
        ("long_util", "Cube (netCDF): Sect. 5.1 runs, dims (policy, long_util, seed)"),
    ))
