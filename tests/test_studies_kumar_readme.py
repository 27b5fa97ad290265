"""Paper K's README (simlib.studies.kumar.readme, template README.md.j2) on
synthetic cubes with known values."""
from __future__ import annotations

import doctest
import math
from pathlib import Path

import pandas as pd
import pytest

from helpers_kumar_study import config, cs_cube, load_cube

from simlib.claims import Verdict, claims_frame
from simlib.studies.kumar import readme as M
from simlib.studies.kumar import report as R
from simlib.studies.kumar.cubes import pick_cs
from simlib.studies.kumar.plan import KumarPlan, artifact_list
from simlib.studies.kumar.published import load_published
from simlib.studies.kumar.runs import fig2_example
from simlib.studies.kumar.tables import algorithms_frame, tables_frame

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def published():
    return load_published(REPO / "config/published/kumar.yaml")


@pytest.fixture(scope="module")
def plan():
    return KumarPlan.from_config(config())


def _fit(published, plan):
    from simlib.studies.kumar.tables import size_scale_fit
    return size_scale_fit(published, plan.params("ps05"), plan.n_jobs)


def _readme(published, plan):
    load, cs = load_cube(), cs_cube()
    picks, tables = pick_cs(cs), tables_frame(load, published)
    nbar = pd.DataFrame([{"workload": "ps05", "p_s": 0.5, "p_d": 0.0, "n_bar": 133.0, "ci": 1.0,
                          "expected": 133.4, "expected_linear": 144.0, "expected_log2": 133.4,
                          "published": 139.35, "published_z": 1.5}])
    df = claims_frame(R.claims(published=published, load_cube=load, cs_cube=cs, picks=picks,
                               tables=tables, plan=plan))
    return M.render_readme(plan=plan, artifacts=artifact_list(plan), n_bar=nbar, picks=picks,
                           tables=tables, claims_df=df, algorithms=algorithms_frame(published),
                           fig2=fig2_example(), size_fit=_fit(published, plan),
                           settings=R.claims_settings(published, plan))


def test_readme_numbers_come_from_the_published_numbers_and_the_grid(published, plan):
    import copy
    import re
    text = _readme(published, plan)
    fit = _fit(published, plan)
    assert f"p ≈ {fit['linear']['p']:.1g} jointly" in text
    assert f"(p ≈ {fit['log2']['p']:.1g})" in text
    assert "7e-6" not in text   # the number once typed into the template
    # Printed n̄ values moved up by 10 processors: the p-values move with them.
    moved = copy.deepcopy(published)
    for e in moved["n_bar"]["values"]:
        e["n_bar"] += 10.0
    other = _readme(moved, plan)
    p_lin = re.search(r"p ≈ (\S+) jointly", text).group(1)
    p_lin_moved = re.search(r"p ≈ (\S+) jointly", other).group(1)
    assert p_lin != p_lin_moved
    assert f"p ≈ {_fit(moved, plan)['linear']['p']:.1g} jointly" in other
    # The minimum effects follow the grid's fraction.
    half = KumarPlan.from_config(config(claims={"min_effect_fraction": 0.5}))
    assert f"mean_wait {R.claims_settings(published, plan)['min_effect']['mean_wait']:.2f}" in text
    assert f"mean_wait {R.claims_settings(published, half)['min_effect']['mean_wait']:.2f}" in \
        _readme(published, half)


def test_render_readme_lists_every_artifact_and_the_note(published, plan):
    load = load_cube()
    cs = cs_cube()
    picks = pick_cs(cs)
    tables = tables_frame(load, published)
    nbar = pd.DataFrame([{"workload": "ps05", "p_s": 0.5, "p_d": 0.0, "size_scale": "log2",
                          "n_bar": 133.0, "ci": 1.0, "seeds": 2, "expected": 133.4,
                          "expected_linear": 144.0, "expected_log2": 133.4, "se_500": 4.0,
                          "published": 139.35, "published_figure": "Fig. 5",
                          "published_z": 1.5}])
    df = claims_frame(R.claims(published=published, load_cube=load, cs_cube=cs, picks=picks,
                               tables=tables, n_bar=nbar, plan=plan))
    arts = artifact_list(plan)
    text = M.render_readme(plan=plan, artifacts=arts, n_bar=nbar, picks=picks, tables=tables,
                           size_fit=_fit(published, plan),
                           settings=R.claims_settings(published, plan),
                           claims_df=df, algorithms=algorithms_frame(published),
                           fig2=fig2_example(), cubes=["results/kumar_load.smoke.nc"])
    for a in arts:
        assert f"[`{a['file']}`]({a['file']})" in text
    for heading in ("## Artifacts", "## n̄ per workload", "## C_s picked by the pipeline",
                    "## Tables IV–VII", "## Claims and verdicts", "## Table III",
                    "## Interpretations and deviations"):
        assert heading in text
    assert "A maximum over a noisy sweep overstates the gain" in text
    assert "**smoke** scale" in text
    assert "LOS: 7 of 10 busy at t = 0; Delayed-LOS: 10 of 10" in text
    assert "12 of 12 rows match" in text


def test_claims_and_readme_round_trip_through_the_files(published, plan, tmp_path):
    import json
    import logging
    from simlib.claims import write_claims
    from simlib.cube import write_cube
    from simlib.studies import Files, StepContext
    from simlib.studies.kumar.cubes import picks_document
    load, cs = load_cube(), cs_cube()
    picks = pick_cs(cs)
    (tmp_path / "picks.json").write_text(json.dumps(picks_document(
        picks, {"ps02": 0.2, "ps05": 0.5, "ps08": 0.8}, metric="mean_wait")))
    tables = tables_frame(load, published)
    tables.to_csv(tmp_path / "tables.csv", index=False)
    nbar = pd.DataFrame([{"workload": "ps05", "p_s": 0.5, "p_d": 0.0, "n_bar": 133.0, "ci": 1.0,
                          "expected": 133.4, "expected_linear": 144.0, "expected_log2": 133.4,
                          "published": math.nan, "published_z": math.nan}])
    nbar.to_csv(tmp_path / "n_bar.csv", index=False)
    verdicts = write_claims(R.claims(published=published, load_cube=load, cs_cube=cs, picks=picks,
                                     tables=tables, plan=plan), tmp_path / "claims.csv", scale="smoke")
    assert verdicts.columns[0] == "scale" and set(verdicts["scale"]) == {"smoke"}
    assert set(verdicts["verdict"]) <= {v.value for v in Verdict}
    from simlib.studies.kumar.tables import forced_starts_frame
    forced = forced_starts_frame(cs.assign(forced_starts=cs["mean_wait"] * 0,
                                           max_skip_count=cs["mean_wait"] * 0))
    forced.to_csv(tmp_path / "forced.csv", index=False)
    # No dedicated job ran: the README has no section on them.
    write_cube(load.assign(**{v: load["utilization"] * 0 for v in (
        "dedicated_jobs", "dedicated_on_time", "dedicated_mean_delay")}), tmp_path / "load.nc")
    inputs = {"picks": tmp_path / "picks.json", "tables_csv": tmp_path / "tables.csv",
              "claims_csv": tmp_path / "claims.csv", "n_bar_csv": tmp_path / "n_bar.csv",
              "forced_csv": tmp_path / "forced.csv", "load_cube": tmp_path / "load.nc",
              "published": REPO / "config/published/kumar.yaml"}
    params = {"study": plan.spec, "scale": "smoke", "artifacts": artifact_list(plan), "cubes": [],
              "fig1_scale": "1500 jobs of SDSC-SP2"}
    M.readme_step(StepContext(input=Files(inputs), output=Files(readme=tmp_path / "README.md"),
                              params=params, wildcards={}, log=logging.getLogger("test"),
                              config={}))
    text = (tmp_path / "README.md").read_text()
    assert "(1500 jobs of SDSC-SP2)" in text and "## Dedicated jobs" not in text
    # The README shows the claims as read back from the CSV, verdicts included.
    for claim, verdict in zip(verdicts["claim"], verdicts["verdict"]):
        assert f"| {claim.replace('|', chr(92) + '|')} |" in text and verdict in text


def test_readme_examples():
    assert doctest.testmod(M).failed == 0
