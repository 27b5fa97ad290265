"""Tests of simlib.studies.utrera.published: paper U's published numbers."""
from pathlib import Path

import pytest

from simlib.errors import ConfigError
from simlib.studies.utrera import published as R

PUBLISHED = Path(__file__).resolve().parents[1] / "config/published/utrera.yaml"


@pytest.fixture(scope="module")
def pub():
    return R.load_published(PUBLISHED)


def test_published_file_reads(pub):
    assert pub["table3"]["values"]["SDSC-SP2"]["fcfs_malleable"] == 1.47
    assert pub["table1"]["values"][0.9]["easy"]["mean_wait"] == [175.0, 162.0]
    assert pub["headline"]["values"] == {"utrera_slowdown": 0.28, "mean_response": 0.31}


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("table3"), "(top level): 'table3' is a required property"),
    (lambda d: d["table2"].pop("source"), "table2: 'source' is a required property"),
    (lambda d: d["table1"]["values"][0.3]["easy"].update(mean_wait=[55.0]),
     "table1.values.0.3.easy.mean_wait: [55.0] is too short"),
    (lambda d: d["table1"]["values"].update({"high": d["table1"]["values"][0.3]}),
     "table1.values: 'high' does not match"),
    (lambda d: d["table3"]["values"]["CTC-SP2"].update(easy="x"),
     "table3.values.CTC-SP2.easy: 'x' is not of type 'number'"),
    (lambda d: d["headline"]["values"].update(mean_response=31),
     "headline.values.mean_response: 31 is greater than the maximum of 1"),
    (lambda d: d["fig2"].update(sauce="Fig. 2"), "fig2: Additional properties are not allowed"),
    # What the schema cannot express: a trace named in one table but not in Table 2.
    (lambda d: d["fragmentation"]["values"]["easy"].update({"NOPE-SP2": 0.1}),
     "fragmentation.values.easy.NOPE-SP2: not a trace of table2.values"),
])
def test_published_errors_name_file_and_key(tmp_path, pub, edit, message):
    import copy
    import yaml
    data = copy.deepcopy(pub)
    edit(data)
    path = tmp_path / "pub.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as err:
        R.load_published(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)
