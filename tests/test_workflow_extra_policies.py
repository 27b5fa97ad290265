"""The guide's two example policies put into the papers' experiments by `extra_policies`.

One smoke run (trace fixtures) of the baseline, paper K (Fig. 1 and the
Section V load sweeps) and paper U with ``policy_modules`` naming copies of
``examples/policies/sjf_easy.py`` and ``easy_small.py`` and
``extra_policies`` naming both, as docs/writing_a_policy.md shows. Each
cube holds them and records their module's hash; each figure that shows
them names them in its legend in a reserved colour no paper policy uses
(read back from the SVG). Then what an edit of one of the modules reruns.
"""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from helpers_figures import assert_user_styles, drawn_colours
from helpers_pipeline import REPO, edited, snakemake, write_yaml
from simlib.cube import read_cube
from simlib.figures.styles import USER_COLORS

pytestmark = pytest.mark.pipeline

USER = ["sjf_easy", "easy_small"]

#: Cube -> the policy coordinate's name for the user's policies in it.
CUBES = ["baseline", "kumar_fig1", "kumar_load", "utrera_traces", "utrera_table1",
         "utrera_long_util"]
#: Figures that show the user's policies (SVG; PNG is the same drawing).
FIGURES = ["baseline/mean_wait_vs_load.svg", "kumar/fig1_easy_vs_los_sdsc.svg",
           "kumar/fig7_batch_ps02.svg", "kumar/fig8_wait_ps05_ps08.svg",
           "kumar/fig9_het_pd05_ps02.svg", "kumar/fig10_het_pd09_ps05.svg",
           "kumar/fig11_elastic.svg"]
#: Paper U's figures are PNG only: their legends are checked on the drawing
#: functions (tests/test_studies_utrera_plots.py); here, that the user's
#: colours are drawn.
PNG_FIGURES = ["utrera/fig3.png", "utrera/table1.png", "utrera/long_util.png"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(workdir, the user's module directory, run): after one smoke run with the examples."""
    root = tmp_path_factory.mktemp("extra")
    mine = root / "mine"
    mine.mkdir()
    for name in USER:
        shutil.copy2(REPO / "examples" / "policies" / f"{name}.py", mine / f"{name}.py")
    cfg = write_yaml(root / "mine.yaml", f"""\
        scale: smoke
        only: [baseline, kumar, kumar_fig1, utrera]
        policy_modules: [{mine / 'sjf_easy.py'}, {mine / 'easy_small.py'}]
        extra_policies:
          sjf_easy: {{}}
          easy_small: {{max_cpus: 16}}
        """)

    def run(*args, **kw):
        return snakemake(root / "wd", "--configfile", cfg, *args, **kw)

    run()
    return root / "wd", mine, run


@pytest.mark.parametrize("cube", CUBES)
def test_each_cube_holds_the_users_policies_and_their_modules_hash(built, cube):
    wd, mine, _ = built
    ds = read_cube(wd / "results" / f"{cube}.smoke.nc")
    assert set(USER) <= {str(p) for p in ds["policy"].values}
    for name in USER:
        assert ds["mean_wait"].sel(policy=name).notnull().any()
    sources = json.loads(ds.attrs["config_subtree"])["policy_sources"]
    for name in USER:
        digest = hashlib.sha256((mine / f"{name}.py").read_bytes()).hexdigest()
        assert sources[name]["sha256"] == digest


@pytest.mark.parametrize("figure", FIGURES)
def test_each_figure_names_them_in_a_style_no_paper_policy_uses(built, figure):
    wd, _, _ = built
    assert_user_styles(wd / "paper_figures" / figure, USER)


@pytest.mark.parametrize("figure", PNG_FIGURES)
def test_each_png_figure_draws_them_in_the_user_colours(built, figure):
    wd, _, _ = built
    assert drawn_colours(wd / "paper_figures" / figure, USER_COLORS[:len(USER)]) == [True, True]


def test_the_readmes_say_where_they_appear(built):
    wd, _, _ = built
    assert "Your policies (config `extra_policies`): sjf_easy, easy_small" in (
        wd / "paper_figures/kumar/README.md").read_text()
    assert "Your policies (config `extra_policies`): sjf_easy, easy_small" in (
        wd / "paper_figures/baseline/metrics_by_load.md").read_text()
    assert "**Your policies** (config `extra_policies`): `sjf_easy`, `easy_small`" in (
        wd / "paper_figures/utrera/README.md").read_text()


def test_editing_a_users_module_reruns_its_runs_and_what_shows_them(built):
    _, mine, run = built
    assert edited(mine / "easy_small.py", run) == EDIT_PLAN


#: What an edit of easy_small.py plans: its own simulations (one batched job
#: per study and sweep; sjf_easy's and the papers' policies' none), the cubes
#: holding it (paper K's load cube, not its C_s, long-run or readings cubes),
#: the figures, tables and READMEs that show it, and the two steps that read
#: those cubes for the paper's comparisons only (kumar_tables, utrera_claims:
#: Snakemake reruns what reads a rebuilt file; their numbers do not change), and
#: the report's HTML pages of the artifacts.
EDIT_PLAN: dict[str, int] = {
    "baseline_simulate": 1, "kumar_fig1_simulate": 1, "kumar_simulate_easy_small": 1,
    "utrera_simulate_long_util_easy_small": 1, "utrera_simulate_table1_easy_small": 1,
    "utrera_simulate_traces_easy_small": 1,
    "baseline_aggregate": 1, "kumar_aggregate": 1, "kumar_fig1_aggregate": 1, "utrera_aggregate": 3,
    "baseline_figures": 1, "kumar_fig1": 1, "kumar_figures": 1, "utrera_figures_long_util": 1,
    "utrera_figures_table1": 1, "utrera_figures_traces": 1,
    "kumar_tables": 1, "kumar_report": 1, "utrera_claims": 1, "utrera_readme": 1,
    "report_pages": 1}
