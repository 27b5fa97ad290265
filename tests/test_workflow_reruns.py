"""What an edit reruns, counted: the pipeline's code inputs are per step.

One smoke run of a copy of the repository (trace fixtures; paper D and Z
left out as in the other workflow tests), then a dry run after each of four
edits a user makes: a README template, a plot module, one policy's
parameters, and a user's policy module. Each plans only the jobs that can
change, counted per rule (Snakemake's job stats of the dry run).
"""
from __future__ import annotations

import os

import pytest

from helpers_pipeline import (USER_POLICY_MODULE, copy_repository, edited, planned, snakemake,
                              write_yaml)

pytestmark = pytest.mark.pipeline

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(copy, run): a copy of the repository and a function running its pipeline."""
    root = tmp_path_factory.mktemp("reruns")
    copy = copy_repository(root / "repo")
    (root / "plugins").mkdir()
    (root / "plugins" / "wf_rerun_policies.py").write_text(USER_POLICY_MODULE)
    env = {"PYTHONPATH": os.pathsep.join([str(copy), str(root / "plugins")])}
    cfg = write_yaml(root / "user.yaml", """\
        scale: smoke
        policy_modules: [wf_rerun_policies]
        studies:
          baseline: {policies: {fcfs: {}, easy: {}, conservative: {}, easy_tagged: {tag: 0}}}
        """)

    def run(*args, **kw):
        return snakemake(root / "wd", "--configfile", cfg, *args, env=env,
                         snakefile=copy / "Snakefile", **kw)

    run()
    return copy, run


def test_a_finished_run_plans_nothing(built):
    _, run = built
    assert planned(run) == {}


def test_editing_a_readme_template_reruns_that_readme(built):
    copy, run = built
    # Paper K's README, then the index, which lists (and links) every artifact.
    assert edited(copy / "simlib/studies/kumar/templates/README.md.j2", run) == {
        "kumar_report": 1, "report": 1, "report_pages": 1}


def test_editing_a_plot_module_reruns_the_figures_drawn_with_it(built):
    # Paper K's figures (Fig. 2 of kumar_examples too), their README and the
    # index; no simulation, no table, no claim.
    copy, run = built
    assert edited(copy / "simlib/studies/kumar/plots.py", run) == {
        "kumar_fig1": 1, "kumar_fig1_sensitivity": 1, "kumar_figures": 1, "kumar_examples": 1,
        "kumar_report": 1, "report": 1, "report_pages": 1}


def test_one_policys_parameters_rerun_its_runs_and_what_includes_them(built, tmp_path):
    # At smoke scale one job runs a policy's every (trace, load) of the baseline.
    _, run = built
    changed = write_yaml(tmp_path / "changed.yaml",
                         "studies: {baseline: {policies: {easy_tagged: {tag: 1}}}}")
    assert planned(run, "--configfile", changed) == {
        "baseline_simulate": 1, "baseline_aggregate": 1, "baseline_figures": 1,
        "report": 1, "report_pages": 1}


def test_editing_a_user_policy_reruns_its_runs_only(built):
    copy, run = built
    plugin = copy.parent / "plugins" / "wf_rerun_policies.py"
    assert edited(plugin, run) == {
        "baseline_simulate": 1, "baseline_aggregate": 1, "baseline_figures": 1,
        "report": 1, "report_pages": 1}
