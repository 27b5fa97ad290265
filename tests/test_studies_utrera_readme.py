"""Tests of simlib.studies.utrera.readme: paper_figures/utrera/README.md."""
from pathlib import Path

from simlib.render import render
from simlib.studies.utrera import readme
from simlib.studies.utrera.readme import md_file

TEMPLATES = Path(readme.__file__).with_name("templates")


def test_md_file_drops_the_title_and_nests_the_headings(tmp_path):
    f = tmp_path / "t.md"
    f.write_text("# Title\n\nIntro.\n\n| a |\n|---:|\n| 1 |\n\n## Gains\n\n| b |\n", encoding="utf-8")
    assert md_file(f) == "Intro.\n\n| a |\n|---:|\n| 1 |\n\n#### Gains\n\n| b |\n"


def test_links_inside_and_outside_paper_figures():
    here = Path("paper_figures/utrera")
    inside = readme._link("paper_figures/utrera/fig3.png", here)
    assert (inside["name"], inside["rel"], inside["outside"]) == ("fig3.png", "fig3.png", False)
    outside = readme._link("results/utrera_traces.smoke.nc", here)
    assert (outside["path"], outside["rel"], outside["outside"]) == (
        "results/utrera_traces.smoke.nc", "../../results/utrera_traces.smoke.nc", True)
    # The README says the pipeline builds it.
    assert "(built by the pipeline, not committed)" in (TEMPLATES / "README.md.j2").read_text()


def test_every_section_names_artifacts_of_the_study():
    from simlib.studies.utrera.study import declared
    titles = declared()
    names = set(titles["files"])
    for s in titles["sections"]:
        assert set(s["pngs"]) <= names, s["title"]
        assert s["md"] is None or s["md"] in names, s["title"]
    # The README's own sections, in the order the tests and readers rely on.
    interpretation = (TEMPLATES / "interpretation.md.j2").read_text()
    assert interpretation.startswith("## Interpretation choices\n")
    assert (TEMPLATES / "discussion.md.j2").read_text().startswith(
        "## Why (discussion of the verdicts)\n")
    assert "J6 starts expanded" in interpretation


def test_verdict_table_renders_the_claims_file(tmp_path):
    from simlib.claims import Claim, read_claims, write_claims
    path = tmp_path / "claims.csv"
    write_claims([Claim("U", "Fig. 2: nine numbers", "Sect. 3.1", "9 numbers", "9/9 equal",
                        "truncated |x| equal", "reproduced", unit="-", n=1),
                  Claim("U", "Table 3: MPL", "Table 3", "6 numbers", "1.2 vs 1.47",
                        "within 0.1", "partly reproduced", unit="OV seed", n=10)], path,
                 scale="smoke")
    lines = readme._verdict_table(read_claims(path),
                                  {"ov0": {"Table 3: MPL": "reproduced"}}).splitlines()
    assert lines == [
        "| # | claim (source) | published | ours | verdict | rule | unit (n) | if ov0 |",
        "|---:|---|---|---|---|---|---|---|",
        "| 1 | Fig. 2: nine numbers (Sect. 3.1) | 9 numbers | 9/9 equal | **reproduced** | "
        "truncated \\|x\\| equal | - (1) | – |",
        "| 2 | Table 3: MPL (Table 3) | 6 numbers | 1.2 vs 1.47 | **partly reproduced** | "
        "within 0.1 | OV seed (10) | reproduced |"]


def test_reading_claim_matrix_rows_show_levels_verdicts_and_gains(tmp_path):
    import pandas as pd
    from simlib.claims import Claim, read_claims, write_claims
    path = tmp_path / "claims.csv"
    write_claims([Claim("U", "Fig. 2: nine numbers", "Sect. 3.1", "", "", "", "reproduced"),
                  Claim("U", "Table 3: MPL", "Table 3", "", "", "", "partly reproduced")],
                 path, scale="smoke")
    alt = {"ov_zero": {"Table 3: MPL": "reproduced"}, "ov0": {"Table 3: MPL": "reproduced"}}
    gains = pd.DataFrame({"policy": ["fcfs_malleable", "fcfs_malleable:ov_zero"],
                          "trace": "mean of traces", "metric": "utrera_slowdown",
                          "mean": [-9.0, 21.0], "ci95": 1.0, "n": 2})
    p = {"readings": {"ov_zero": "fcfs_malleable:ov_zero", "ov0": "fcfs_malleable:ov0"},
         "reading_factors": {"ov": {"uniform": {}, "zero": {"ov_max": 0.0}}}}
    m = readme.matrix(read_claims(path), alt, gains, p)
    table = m["table"].splitlines()
    assert table[0] == "| reading | ov | Table 3 | slowdown gain % | response gain % |"
    assert table[2] == "| main | uniform | partly reproduced | -9.0 | – |"
    assert table[3] == "| ov_zero | zero | reproduced | +21.0 | – |"
    assert table[4] == "| ov0 | – | reproduced | – | – |"   # a named reading: no factor levels
    # Most claims reproduced under one reading: 1 of 1 judged per reading (ov_zero, ov0).
    assert (m["best"], m["judged"], m["best_readings"]) == (1, 1, ["ov_zero", "ov0"])


def test_scale_lines_say_what_each_scale_runs():
    from helpers_pipeline import repo_study
    u = repo_study("utrera", "smoke")
    lines = render("simlib.studies.utrera", "scale_lines.md.j2", plan=u.scale_plan(),
                   trace="SDSC-SP2").splitlines()
    assert [line.split(":")[0] for line in lines] == ["- **smoke**", "- **default**", "- **full**"]
    assert "Sect. 5.1: SDSC-SP2 the 10,000 jobs with the most long jobs" in lines[1]
    assert lines[0].endswith("whole workloads not run.")
    assert lines[1].endswith("whole workloads not run.")
    assert lines[2].endswith("whole workloads (Table 2's 'Jobs' as workload sizes): CTC-SP2 "
                             "jobs 0-24,999, SDSC-BLUE jobs 0-24,999, SDSC-SP2 jobs 0-44,999.")
    assert "CTC-SP2 jobs 20,000-24,999" in lines[2]


def test_matrix_judges_every_claim_per_reading_but_the_orders(tmp_path):
    import pandas as pd
    from simlib.claims import Claim, read_claims, write_claims
    from simlib.studies.utrera import claims as R
    path = tmp_path / "claims.csv"
    write_claims([Claim("U", "Fig. 2: nine numbers", "", "", "", "", "reproduced",
                        figure="fig2_numbers.md"),
                  Claim("U", "Table 2: workloads", "", "", "", "", "reproduced",
                        figure="table2.md"),
                  Claim("U", "Sect. 5.1: threshold", "", "", "", "", "not reproduced",
                        figure="long_util.png"),
                  Claim("U", "Sect. 5.1: classes", "", "", "", "", "reproduced",
                        figure="slowdown_by_class.md"),
                  Claim("U", "Sect. 3.1: oldest first", "", "", "", "", "reproduced",
                        figure="orders_ablation.png")], path, scale="smoke")
    claims = read_claims(path)
    rv = R.reading_verdicts(claims, {}, {"ov_zero": "fcfs_malleable:ov_zero"})
    assert set(rv["how"]) == {"policy-free", R.MAIN_ONLY, "not run"}
    alt = {"ov_zero": {**dict(zip(rv["claim"], rv["verdict"])),
                       "Fig. 2: nine numbers": "reproduced", "Sect. 5.1: threshold": "reproduced",
                       "Sect. 5.1: classes": "reproduced"}}
    how = {"Table 2: workloads": "policy-free", "Sect. 3.1: oldest first": R.MAIN_ONLY}
    p = {"readings": {"ov_zero": "fcfs_malleable:ov_zero"},
         "reading_factors": {"ov": {"uniform": {}, "zero": {"ov_max": 0.0}}}}
    m = readme.matrix(claims, alt, pd.DataFrame(), p, how)
    table = m["table"].splitlines()
    assert table[0] == ("| reading | ov | Fig. 2 | Table 2* | Sect. 5.1 (#3) | Sect. 5.1 (#4) | "
                        "Sect. 3.1 | slowdown gain % | response gain % |")
    assert table[2] == ("| main | uniform | reproduced | reproduced | not reproduced | reproduced | "
                        "reproduced | – | – |")
    # Table 2: the main verdict (no policy); the orders: main reading only.
    assert table[3] == ("| ov_zero | zero | reproduced | reproduced | reproduced | reproduced | "
                        "main reading only | – | – |")
    # Counted over the 4 claims judged per reading (not the orders): ov_zero holds all 4.
    assert (m["best"], m["judged"], m["best_readings"]) == (4, 4, ["ov_zero"])
    # The README explains the starred column and the orders' cells.
    assert (m["free"], m["only"]) == (["Table 2*"], ["Sect. 3.1"])


# ------------------------------------------- the README's numbers follow its inputs
def _build_readme(src: Path, tmp: Path, edit=None) -> str:
    """The README as the pipeline builds it (steps utrera_claims then utrera_readme, their
    declared inputs and parameters at default scale) from a copy of ``src`` (the committed
    paper_figures/utrera), its tables first changed by ``edit(directory)``."""
    import logging
    import shutil

    from helpers_pipeline import repo_study
    from simlib.studies import Files, StepContext
    from simlib.studies.utrera import claims

    out = tmp / "utrera"
    shutil.copytree(src, out)
    if edit:
        edit(out)
    u = repo_study("utrera", "default")
    here = Path(u.claims_file()).parent

    def ctx(step):
        s = u.step(step)
        inputs = {k: (str(out / Path(v).relative_to(here)) if str(v).startswith(str(here)) else
                      str(Path(__file__).resolve().parents[1] / v))
                  for k, v in s.input.items() if k != "others"}
        outputs = {k: str(out / Path(v).relative_to(here)) for k, v in s.output.items()}
        return StepContext(input=Files(inputs), output=Files(outputs), params=s.params,
                           wildcards={}, log=logging.getLogger("test"),
                           config={"scale": "default"})

    claims.write_claims(ctx("utrera_claims"))
    readme.readme(ctx("utrera_readme"))
    return (out / "README.md").read_text(encoding="utf-8")


def test_readme_numbers_move_with_perturbed_inputs(tmp_path):
    import pandas as pd
    src = Path(__file__).resolve().parents[1] / "paper_figures/utrera"
    base = _build_readme(src, tmp_path / "a")
    t2 = pd.read_csv(src / "table2.csv", index_col="trace")
    lu = pd.read_csv(src / "long_util.csv").iloc[0]
    rd = pd.read_csv(src / "time_model_readings.csv")
    ov0 = rd[(rd["reading"] == "ov0") & (rd["trace"] == "SDSC-SP2")
             & (rd["metric"] == "utrera_mean_mpl")]["mean"].iloc[0]
    demand = " / ".join(f"{t2.loc[t, 'demand_ratio_log']:.1f}" for t in t2.index)
    portion = f"jobs {int(lu['first_job']):,}-{int(lu['last_job']):,}: {int(lu['long_jobs'])} long"
    assert demand in base and portion in base and f"MPL is {ov0:.2f}" in base
    n_orders = pd.read_csv(src / "orders_ablation.csv")["order"].nunique()
    assert f"the {n_orders - 1} other orders" in base

    def edit(d):
        t = pd.read_csv(d / "table2.csv")
        t["demand_ratio_log"] *= 3
        t["queue_demand_ratio_log"] += 1
        t.to_csv(d / "table2.csv", index=False)
        x = pd.read_csv(d / "long_util.csv")
        x["first_job"] += 1000
        x["last_job"] += 1000
        x["long_jobs"] += 7
        x.to_csv(d / "long_util.csv", index=False)
        r = pd.read_csv(d / "time_model_readings.csv")
        r.loc[r["metric"] == "utrera_mean_mpl", "mean"] += 0.5
        r.to_csv(d / "time_model_readings.csv", index=False)
        o = pd.read_csv(d / "orders_ablation.csv")
        o[o["order"] != "shortest"].to_csv(d / "orders_ablation.csv", index=False)

    moved = _build_readme(src, tmp_path / "b", edit)
    demand3 = " / ".join(f"{3 * t2.loc[t, 'demand_ratio_log']:.1f}" for t in t2.index)
    queue = " / ".join(f"{t2.loc[t, 'queue_demand_ratio_log'] + 1:.1f}" for t in t2.index)
    assert demand3 in moved and queue in moved and demand not in moved
    assert (f"jobs {int(lu['first_job']) + 1000:,}-{int(lu['last_job']) + 1000:,}: "
            f"{int(lu['long_jobs']) + 7} long") in moved and portion not in moved
    assert f"MPL is {ov0 + 0.5:.2f}" in moved and f"MPL is {ov0:.2f}" not in moved
    assert f"the {n_orders - 2} other orders" in moved


def test_table1_execution_times_come_from_the_published_file():
    import copy

    import pandas as pd

    from simlib.studies.utrera.published import load_published
    from simlib.studies.utrera.readme import readme_numbers
    repo = Path(__file__).resolve().parents[1]
    src = repo / "paper_figures/utrera"
    pub = load_published(repo / "config/published/utrera.yaml")
    args = (pd.read_csv(src / "table2.csv", index_col="trace"), pd.read_csv(src / "long_util.csv"),
            pd.read_csv(src / "time_model_readings.csv"), pd.read_csv(src / "orders_ablation.csv"),
            {})
    got = readme_numbers(pub, *args)["table1_exec"]
    easy = pub["table1"]["values"][0.3]["easy"]
    assert got["loads"][0] == "30"
    assert got["seconds"][0] == f"{easy['mean_response'][0] - easy['mean_wait'][0]:.1f}"
    moved = copy.deepcopy(pub)
    moved["table1"]["values"][0.3]["easy"]["mean_wait"][0] -= 10
    assert readme_numbers(moved, *args)["table1_exec"]["seconds"][0] == (
        f"{easy['mean_response'][0] - easy['mean_wait'][0] + 10:.1f}")
