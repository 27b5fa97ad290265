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
