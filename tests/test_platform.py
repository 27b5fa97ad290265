import pytest

from simlib.errors import ConfigError
from simlib.platform import Platform


def test_homogeneous_multicore_layout():
    p = Platform.homogeneous(12, cores_per_node=4, clusters=3)
    assert (p.cpus, p.nodes) == (12, 3)
    assert p.core_node.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert p.node_cluster.tolist() == [0, 1, 2]


def test_bad_platform_is_a_config_error():
    with pytest.raises(ConfigError, match="multiple of 4"):
        Platform.homogeneous(10, cores_per_node=4)
