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
from simlib.studies.kumar.plan import CS_INF, KumarPlan, artifact_list
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


def test_ranges():
    assert M.ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert M.ranges([]) == ""
    assert M.ranges([6, 7, 8, CS_INF]) == "6–8, ∞"


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


def test_write_claims_and_readme_round_trip_through_the_files(published, plan, tmp_path):
    import json
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
    verdicts = R.write_claims(tmp_path / "claims.csv", scale="smoke",
                              picks_path=tmp_path / "picks.json", published=published,
                              load_cube=load, cs_cube=cs, tables=tables, plan=plan)
    assert verdicts.columns[0] == "scale" and set(verdicts["scale"]) == {"smoke"}
    assert set(verdicts["verdict"]) <= {v.value for v in Verdict}
    shown = M.write_readme(tmp_path / "README.md", plan=plan, artifacts=artifact_list(plan),
                           picks_path=tmp_path / "picks.json",
                           tables_csv=tmp_path / "tables.csv", claims_csv=tmp_path / "claims.csv",
                           n_bar_csv=tmp_path / "n_bar.csv",
                           algorithms=algorithms_frame(published), fig2=fig2_example(),
                           dedicated=pd.DataFrame(columns=["workload", "policy", "on_time",
                                                           "mean_delay_h"]),
                           fig1_scale="1500 jobs of SDSC-SP2")
    # The README shows the claims as read back from the CSV, verdicts included.
    assert shown["verdict"].tolist() == verdicts["verdict"].tolist()
    text = (tmp_path / "README.md").read_text()
    assert "(1500 jobs of SDSC-SP2)" in text and "## Dedicated jobs" not in text
    for claim in verdicts["claim"]:
        assert claim.replace("|", "\\|") in text




def test_readme_examples():
    assert doctest.testmod(M).failed == 0
