"""docs/adding_a_study.md, followed literally: its files written into a copy
of the repository, its commands run there, what they build checked.

A block whose info string names a file (```` ```python file=path ````) is
that file's text (blocks naming the same file are concatenated, in order);
every ```` ```sh ```` block is run, with ``.venv/bin/`` meaning this test's
virtual environment. The copy holds the repository's tracked files and its
compiled kernels; the new study needs no trace and no network.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_pipeline import REPO, copy_repository, pending, snakemake

from simlib.cube import read_cube

pytestmark = pytest.mark.pipeline

GUIDE = REPO / "docs" / "adding_a_study.md"
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def guide_blocks() -> tuple[dict[str, str], list[str]]:
    """(file path -> text, commands) of the guide."""
    files, commands = {}, []
    for lang, info, body in BLOCK.findall(GUIDE.read_text(encoding="utf-8")):
        named = re.search(r"\bfile=(\S+)", info)
        if named:
            files[named.group(1)] = files.get(named.group(1), "") + body
        elif lang == "sh":
            commands += [line for line in body.splitlines() if line.strip()]
    return files, commands


@pytest.fixture(scope="module")
def followed(tmp_path_factory):
    """A copy of the repository with the guide applied and its commands run."""
    root = tmp_path_factory.mktemp("guide")
    copy_repository(root)
    files, commands = guide_blocks()
    for path, text in files.items():
        assert not (root / path).exists(), f"the guide overwrites {path}"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root), "SIMLIB_TRACES": str(root / "no-traces")}
    runs = []
    for command in commands:
        command = command.replace(".venv/bin/", f"{BIN}/")
        runs.append(subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True,
                                   text=True, timeout=1200))
    return root, files, runs, env


def test_the_guide_names_its_files_and_commands():
    files, commands = guide_blocks()
    assert "config/grids/example.yaml" in files
    assert any(p.startswith("simlib/studies/example/") for p in files)
    assert any("only=example" in c for c in commands)
    # The newcomer touches the grid, the published file and the package, nothing else.
    assert all(p.startswith(("simlib/studies/example/", "config/grids/example.yaml",
                             "config/published/example.yaml")) for p in files)


def test_the_guides_commands_run(followed):
    _, _, runs, _ = followed
    for run in runs:
        assert run.returncode == 0, run.args + "\n" + run.stdout[-3000:] + run.stderr[-6000:]


def test_the_new_study_builds_its_artifacts(followed):
    root, _, runs, _ = followed
    out = root / "build" / "example"
    assert (out / "results" / "example.smoke.nc").is_file()
    md = (out / "paper_figures" / "example" / "mean_wait.md").read_text()
    assert md.startswith("# Example study (smoke scale)\n\nMean wait of each policy on each of the 3 ")
    assert (out / "paper_figures" / "example" / "mean_wait.png").stat().st_size > 0
    claims = (out / "paper_figures" / "example" / "claims.csv").read_text()
    assert re.search(r"(reproduced|partly reproduced|not reproduced|contradicted|inconclusive)",
                     claims)
    assert "seed (workload)" in claims  # the claim names its unit of replication
    # Alone: no other study ran, and the shared index was left out, saying why.
    assert not (out / "paper_figures" / "README.md").exists()
    assert sorted(p.name for p in (out / "results").glob("*.nc")) == ["example.smoke.nc"]
    assert "left out" in "".join(r.stderr for r in runs)


def test_the_guides_code_passes_the_linter(followed):
    root, files, _, _ = followed
    py = [p for p in files if p.endswith(".py")]
    run = subprocess.run([str(BIN / "ruff"), "check", *py], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout


def test_the_guides_error_message_is_the_real_one(followed):
    root, _, _, env = followed
    (root / "bad.yaml").write_text("studies: {example: {cpus: 0}}\n")
    run = subprocess.run([str(BIN / "snakemake"), "-n", "--cores", "1", "--configfile", "bad.yaml",
                          "--config", "only=example"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode != 0
    quoted = re.search(r"e\.g\. `(config studies\.example\.cpus: [^`]*)`", GUIDE.read_text())
    message = " ".join(quoted.group(1).split())
    assert message in " ".join((run.stdout + run.stderr).split())


def test_the_same_study_runs_from_outside_simlib(tmp_path):
    """The guide's package moved outside simlib, registered by its own module name."""
    files, _ = guide_blocks()
    mine = tmp_path / "mine"
    for path, text in files.items():
        if path.startswith("simlib/studies/example/"):
            dest = mine / "my_studies" / "example" / path[len("simlib/studies/example/"):]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text)
    (mine / "my_studies" / "__init__.py").write_text("")
    (mine / "published.yaml").write_text(files["config/published/example.yaml"])
    grid = files["config/grids/example.yaml"].replace(
        "simlib.studies.example:Example", "my_studies.example:Example").replace(
        "config/published/example.yaml", str(mine / "published.yaml"))
    (mine / "example.yaml").write_text(grid)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(mine), os.environ.get("PYTHONPATH")]))}
    wd = tmp_path / "wd"
    _, out = snakemake(wd, "--configfile", mine / "example.yaml", "--config", "scale=smoke",
                       "only=example", env=env)
    cube = read_cube(wd / "results/example.smoke.nc")
    assert dict(cube.sizes) == {"policy": 2, "seed": 3}
    assert (wd / "paper_figures/example/mean_wait.md").read_text().startswith("# Example study")
    assert pending(wd, "--configfile", mine / "example.yaml", "--config", "scale=smoke",
                   "only=example", env=env) == {}
    # Its code inputs are derived from imports: editing the figure module reruns the figure
    # only (and the report's HTML pages of the artifacts, which show it).
    figures = mine / "my_studies" / "example" / "figures.py"
    figures.write_text(figures.read_text() + "\n# an edit\n")
    todo = pending(wd, "--configfile", mine / "example.yaml", "--config", "scale=smoke",
                   "only=example", env=env)
    assert set(todo.values()) == {"example_figures", "report_pages"}
