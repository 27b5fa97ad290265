"""Golden cubes: the smoke pipeline on the real PWA traces reproduces the
cubes committed in ``tests/golden/`` exactly (``simlib diff``, tolerance 0).

Needs the real traces in a local directory (marker ``real_traces``) and
SimGrid (marker ``simgrid``, paper D): where either is missing the test is
not run (the summary says why), except in CI, where it must run. When a
change to the engine, a policy or a study changes the smoke results on
purpose, regenerate the golden cubes with the pipeline, never by hand, and
commit them with the change::

    make smoke && cp build/smoke/results/*.smoke.nc tests/golden/
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers_pipeline import REPO, snakemake

# The smoke pipeline includes paper D, whose runs need SimGrid.
pytestmark = [pytest.mark.pipeline, pytest.mark.real_traces, pytest.mark.simgrid]

GOLDEN = REPO / "tests" / "golden"
SIMLIB = Path(sys.executable).with_name("simlib")


@pytest.fixture(scope="module")
def smoke_on_real_traces(tmp_path_factory, real_traces):
    """Work directory of a whole smoke run on the real traces."""
    wd = tmp_path_factory.mktemp("golden")
    snakemake(wd, "--config", "scale=smoke", f"traces={{source: '{real_traces}'}}",
              traces=None)
    return wd


def test_every_smoke_cube_has_a_golden_twin(smoke_on_real_traces):
    made = sorted(p.name for p in (smoke_on_real_traces / "results").glob("*.smoke.nc"))
    golden = sorted(p.name for p in GOLDEN.glob("*.smoke.nc"))
    assert made == golden


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.smoke.nc")))
def test_smoke_cube_equals_the_golden_cube(smoke_on_real_traces, name):
    proc = subprocess.run([str(SIMLIB), "diff", str(GOLDEN / name),
                           str(smoke_on_real_traces / "results" / name)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
