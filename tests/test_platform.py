import pytest

from simlib.errors import ConfigError
from simlib.platform import Platform


def test_homogeneous_multicore_layout():
    p = Platform.homogeneous(12, cores_per_node=4, clusters=3)
    assert (p.cpus, p.nodes) == (12, 3)
    assert p.core_node.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert p.core_node_ids == tuple(p.core_node.tolist())
    assert all(type(n) is int for n in p.core_node_ids) and type(p.cpus) is int
    assert p.node_cluster.tolist() == [0, 1, 2]


def test_bad_platform_is_a_config_error():
    with pytest.raises(ConfigError, match="multiple of 4"):
        Platform.homogeneous(10, cores_per_node=4)


def test_sockets_split_each_node_and_old_constructors_still_work():
    p = Platform.homogeneous(8, cores_per_node=4, sockets_per_node=2, clusters=2)
    assert p.sockets_per_node == 2 and p.core_socket.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    # Positional construction as before the socket notion: one socket per node.
    q = Platform([2, 3], [0, 0], [1.0, 1.0], 1, "q")
    assert q.sockets_per_node == 1 and q.core_socket.tolist() == [0, 0, 1, 1, 1]
    r = Platform([4, 2], [0, 1], [1.0, 1.0], sockets_per_node=2)
    assert r.core_socket.tolist() == [0, 0, 1, 1, 2, 3]
    with pytest.raises(ConfigError, match="split evenly into 2 sockets"):
        Platform([4, 3], [0, 0], [1.0, 1.0], sockets_per_node=2)
    with pytest.raises(ConfigError, match="sockets_per_node must be a positive integer"):
        Platform.homogeneous(4, sockets_per_node=0)
