"""Paper D's published file (simlib.studies.dutot.published): schema and checks."""
from pathlib import Path

import pytest
import yaml

from simlib.errors import ConfigError
from simlib.studies.dutot.published import load_published

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "config/published/dutot.yaml"


def test_the_repository_file_holds_the_printed_values():
    pub = load_published(PUBLISHED)
    hom = pub["homogeneous"]
    assert (hom["clusters"], hom["nodes_per_cluster"]) == (8, 16)
    assert (hom["switch_bw"], hom["switch_lat"], hom["bw"], hom["lat"]) == (1.25e9, 0.0, 1.25e6, 24e-9)
    assert (hom["backbone_bw"], hom["backbone_lat"]) == (1.25e9, 24e-9)
    het = pub["heterogeneous"]
    assert het["base"]["speed"] == 286.097e3 and het["base"]["bw"] == 1.25e9
    assert het["multipliers"]["values"]["c5"] == {"switch_bw": 2, "switch_lat": 0, "speed": 1.61,
                                                  "bw": 1, "lat": 1}
    assert het["sets"]["values"] == {"high": ["c1", "c2", "c3"], "low": ["c4", "c5", "c6"]}
    assert het["orderings"]["values"]["o4"] == [3, 1, 2, 3, 1, 2, 1, 2]
    exp = pub["experiments"]
    assert exp["homogeneous"]["runs"] == 20 * 40 * 5
    assert exp["heterogeneous"]["runs_per_set"] == 10 * 20 * 5 * 4
    # Every block names where it comes from.
    for block in ("homogeneous", "heterogeneous", "experiments"):
        assert pub[block]["source"]
    assert all(c["source"] and c["statement"] for c in pub["claims"].values())


def rewrite(tmp_path, edit):
    data = yaml.safe_load(PUBLISHED.read_text())
    edit(data)
    path = tmp_path / "dutot.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["homogeneous"].update(bw="fast"), "homogeneous.bw: 'fast' is not of type 'number'"),
    (lambda d: d["homogeneous"].pop("source"), "homogeneous: 'source' is a required property"),
    (lambda d: d["claims"].pop("no_set_difference"), "'no_set_difference' is a required property"),
    (lambda d: d["heterogeneous"]["sets"]["values"].update(high=["c1", "c7"]),
     "heterogeneous.sets.values.high[1]: 'c7' is not a cluster of Table 1"),
    (lambda d: d["heterogeneous"]["orderings"]["values"].update(o5=[1, 4]),
     "heterogeneous.orderings.values.o5[1]: index 4 is past the smallest set (3 clusters)"),
])
def test_a_bad_file_names_the_file_and_the_key(tmp_path, edit, message):
    path = rewrite(tmp_path, edit)
    with pytest.raises(ConfigError) as err:
        load_published(path)
    assert str(path) in str(err.value) and message in str(err.value)
