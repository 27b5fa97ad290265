"""Paper Z's study (simlib.studies.zeng): config checks, policy parameters, steps, artifacts."""
import re

import pytest

import helpers_pipeline
from simlib.errors import ConfigError
from simlib.policies import make_policy
from simlib.studies import study_class
from simlib.studies.zeng import Zeng


def study(scale="smoke", edit=None):
    return helpers_pipeline.repo_study("zeng", scale, edit)


def test_the_study_is_registered_and_checks():
    assert study_class("zeng", {"registry": helpers_pipeline.repo_registry()}) is Zeng
    s = study()
    s.check()
    assert s.workloads() == ["W1", "W2"] and s.machines() == ["multicore", "single_core"]


def test_policy_parameters_come_from_the_published_file_and_the_grid():
    p = study().policy_params()
    assert (p["interval"], p["medium_share"], p["long_share"], p["overhead"]) == (3600.0, 0.3, 0.7, 60.0)
    assert (p["max_sl"], p["self_sl2"], p["r_est_factor"]) == (1.25, 1.12, 0.75)
    assert p["short_slice"] == 600.0 and p["non_type_backfilling"] is True
    make_policy("scojo_pect", **p)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(workloads=["W1", "W3"]), "studies.zeng.workloads[1]: 'W3' is not a workload"),
    (lambda s: s["scojo_pect"].update(short_slice=4000.0), "studies.zeng.scojo_pect"),
    (lambda s: s.update(rr_bound=30.0), "studies.zeng.rr_bound"),
    (lambda s: s["gantt"].update(seed=7), "studies.zeng.gantt.seed"),
    # The schema's checks (zeng.schema.json), before any of the study's own.
    (lambda s: s["workload"].update(estimates="psychic"), "studies.zeng.workload.estimates: 'psychic'"),
    (lambda s: s["workload"].update(estimates={"model": "factor", "f": 0.5}),
     "studies.zeng.workload.estimates.f: 0.5 is less than the minimum of 1"),
    (lambda s: s["workload"].update(estimates={"model": "tsafrir", "max_estimate": 3600}),
     "studies.zeng.workload.estimates: {'model': 'tsafrir', 'max_estimate': 3600}"),
    (lambda s: s["workload"].update(rounding="up"), "studies.zeng.workload.rounding: 'up'"),
    (lambda s: s["glts"].update(variants=["CST", "NH"]),
     "studies.zeng.glts.variants: ['CST', 'NH'] does not contain items"),
    (lambda s: s["glts"]["sweeps"]["block_size"]["values"].update(default=[8, 16]),
     "studies.zeng.glts.sweeps.block_size.values.default[1]: 16 is Table 6's value"),
    (lambda s: s["glts"]["sweeps"]["block_size"]["values"].update(smoke=[8.5]),
     "studies.zeng.glts.sweeps.block_size.values.smoke[0]: 8.5 is not of type 'integer'"),
    (lambda s: s["glts"]["sweeps"]["f_slack"].update(workload="W3"),
     "studies.zeng.glts.sweeps.f_slack.workload: 'W3' is not run"),
    (lambda s: s["glts"].update(variants=["GLTS", "CST"]),
     "studies.zeng.glts.sweeps.block_size.variants[1]: 'FBO' is not run by glts.variants"),
    (lambda s: s["glts"]["sweeps"]["f_slack"]["values"].update(full=[1.0, 1.0]),
     "studies.zeng.glts.sweeps.f_slack.values.full: [1.0, 1.0] has non-unique elements"),
])
def test_bad_config_is_refused_with_its_key(edit, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        study(edit=edit).check()


def test_job_type_thresholds_out_of_order_are_refused():
    # The published §5.1 values pass the scheduler's own checks before any job.
    s = study()
    s.published["scojo_pect"]["medium_max"] = s.published["scojo_pect"]["short_max"]
    with pytest.raises(ConfigError, match=re.escape("studies.zeng.scojo_pect (with the published "
                                                    "§5.1 values): ") + ".*short_max"):
        s.check()


def test_glts_parameters_are_table_6s():
    p = study().glts_params()
    assert (p["block_size"], p["matched_larger"], p["matched_longer"]) == (16, 0.125, 3000.0)
    assert (p["min_utilgain"], p["f_slack"], p["running_prim_num"]) == (0.45, 1.5, 8)


def test_scales_and_artifacts():
    assert study("full").jobs() == 10000 and study("full").seeds() == list(range(10))
    s = study()
    names = [st.name for st in s.steps()]
    assert names == ["zeng_workload", "zeng_simulate", "zeng_aggregate", "zeng_tables",
                     "zeng_figures", "zeng_simulate_glts", "zeng_aggregate_glts",
                     "zeng_figures_glts", "zeng_sweep", "zeng_aggregate_sweep",
                     "zeng_figures_sweeps", "zeng_simulate_reading", "zeng_aggregate_readings",
                     "zeng_figures_readings", "zeng_examples", "zeng_claims", "zeng_readme"]
    paths = [a.path for a in s.artifacts()]
    assert "paper_figures/zeng/README.md" in paths and "paper_figures/zeng/gantt_day.png" in paths
    assert len(s.summaries("smoke")) == 2 * 2 * 2


def test_sweeps_take_table_6s_point_from_the_main_runs():
    s = study("default")
    assert s.sweep_values("block_size") == [4, 8, 12, 24]
    assert s.published_value("block_size") == 16 and s.published_value("f_slack") == 1.5
    assert s.sweep_value("f_slack", "1.25", "default") == 1.25
    with pytest.raises(ValueError, match="not a value"):
        s.sweep_value("f_slack", "1.5", "default")
    agg = s.step("zeng_aggregate_sweep")
    w = type("W", (), {"parameter": "block_size", "scale": "default"})()
    inputs = agg.input(w)
    # values x seeds sweep runs; the main runs of the sweep's workload (W2) for Table 6's value.
    assert len(inputs["sweep"]) == 4 * 3
    assert inputs["main"] == [f"results/runs/zeng/default/W2/glts/seed{i}.json" for i in range(3)]
    run = s.step("zeng_sweep")
    w = type("W", (), {"parameter": "block_size", "value": "12", "scale": "default", "seed": "0"})()
    params = run.params(w)
    # NH forms no blocks: it is not rerun per block size.
    assert params["value"] == 12 and params["variants"] == ["GLTS", "FBO", "NS"]
    paths = [a.path for a in s.artifacts()]
    for name in ("fig8_block_size.png", "fig9_f_slack.png", "fig1_node_usage.png",
                 "fig5_group.png", "sweep_block_size.md", "examples.md"):
        assert f"paper_figures/zeng/{name}" in paths


def test_part_1_alone_when_no_variant_is_run():
    # No G-LOMARC-TS variant: no part-2 step, sweep or example (and their schema default: no sweep).
    s = study(edit=lambda spec: (spec["glts"].update(variants=[]), spec["glts"].pop("sweeps")))
    s.check()
    assert [st.name for st in s.steps()] == ["zeng_workload", "zeng_simulate", "zeng_aggregate",
                                             "zeng_tables", "zeng_figures", "zeng_claims",
                                             "zeng_readme"]
    assert not any("fig6" in a.path or "examples" in a.path for a in s.artifacts())


def test_readings_of_group_matchmaking_are_checked_before_any_job():
    s = study("default")
    # The main reading is the grid's glts.matchmaking, passed to every G-LOMARC-TS run.
    assert s.main_reading()["case4_last"] is True and s.glts_params()["rematch"] is True
    readings = s.readings()
    assert "stacked" in readings and readings["case4_competes"] == {"case4_last": False}
    assert readings["stacked"]["window_fill"] == "first_fit"
    assert s.reading_params("case4_competes")["case4_last"] is False
    step = s.step("zeng_simulate_reading")
    w = type("W", (), {"reading": "stacked", "scale": "default", "workload": "W1", "seed": "0"})()
    assert step.params(w)["policy_params"]["matchmaking_first"] is True
    assert step.params(w)["variants"] == ["GLTS", "CST", "CSTWS"]

    def same(spec):
        spec["glts"]["readings"]["alternatives"]["noop"] = {"case4_last": True}
    with pytest.raises(ConfigError, match=r"alternatives\.noop: changes nothing"):
        study(edit=same).check()

    def clash(spec):
        r = spec["glts"]["readings"]
        r["alternatives"]["other"] = {"window_fill": "consecutive", "rematch": False}
        r["stacked"] = ["first_fit_windows", "other"]
    with pytest.raises(ConfigError, match=r"stacked\[1\]: 'other' sets window_fill"):
        study(edit=clash).check()

    def unknown(spec):
        spec["glts"]["readings"]["stacked"] = ["nope"]
    with pytest.raises(ConfigError, match=r"stacked\[0\]: 'nope' is not an alternative"):
        study(edit=unknown).check()

    def no_cst(spec):
        spec["glts"]["readings"]["variants"] = ["GLTS"]
    with pytest.raises(ConfigError, match="must include CST"):
        study(edit=no_cst).check()


def test_a_bad_switch_value_names_the_grid_key():
    def bad(spec):
        spec["glts"]["matchmaking"]["window_fill"] = "best"
    with pytest.raises(ConfigError, match="window_fill"):
        study(edit=bad)
