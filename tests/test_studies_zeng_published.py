"""Paper Z's published file: the schema and the cross-checks."""
import pytest

from helpers_pipeline import REPO
from simlib.errors import ConfigError
from simlib.studies.zeng.published import check_published, load_published
from simlib.studies.zeng.slowdowns import TABLE4


def test_the_repositorys_file_is_valid_and_holds_the_printed_values():
    pub = load_published(REPO / "config/published/zeng.yaml")
    assert pub["table6"]["MAX_SL"] == 1.25 and pub["table6"]["N_H"] == 12
    assert pub["ssp_w2"] == {"source": "§5.3 (SSP under W2: saturates, 'as shown by an increased "
                                       "makespan')", "rr_medium": 17.5, "rr_long": 36.74,
                             "rr_all": 10.65}
    for col in ("sl_scr", "sl_sno", "sl_cos"):
        assert list(pub["table4"][col]) == list(TABLE4[col])
    assert pub["table5"]["workloads"]["W2"]["alpha"] == 9.83


def test_mismatched_rows_are_refused():
    pub = load_published(REPO / "config/published/zeng.yaml")
    pub["table3"]["rows"]["8N vs. 16N, multi-CPU per node"] = [1.0]
    with pytest.raises(ConfigError, match="table3.rows.8N vs. 16N, multi-CPU per node: 1 values"):
        check_published(pub, "zeng.yaml")


@pytest.mark.parametrize("edit, match", [
    (lambda t: t.update(sl_cos=[1]), "table4.sl_cos: 1 shares for 9 bins"),
    (lambda t: t["bins"].__setitem__(1, [0.95, 1.2]), r"table4.bins\[1\]: \[0.95, 1.2\) overlaps"),
    (lambda t: t["bins"].__setitem__(0, [1.0, 0.9]), r"table4.bins\[0\]: \[1.0, 0.9\) is empty"),
])
def test_bad_slowdown_tables_are_refused_where_they_are_read(edit, match):
    # Table 4 is checked once, when the file is read (the draws trust it).
    pub = load_published(REPO / "config/published/zeng.yaml")
    edit(pub["table4"])
    with pytest.raises(ConfigError, match=match):
        check_published(pub, "zeng.yaml")


@pytest.mark.parametrize("shares, match", [
    ("[0, 0, 0, 0, 0, 0, 0, 0, 0]", "does not contain items"),
    ("[-1, 25, 17, 17, 13, 17, 8, 3, 0]", "-1 is less than the minimum of 0"),
])
def test_the_schema_refuses_shares_that_draw_nothing(tmp_path, shares, match):
    text = (REPO / "config/published/zeng.yaml").read_text()
    bad = tmp_path / "zeng.yaml"
    bad.write_text(text.replace("sl_cos: [0, 68, 17, 7, 3, 2, 1, 1, 1]", f"sl_cos: {shares}"))
    with pytest.raises(ConfigError, match=f"table4.sl_cos.*{match}"):
        load_published(bad)
