import pytest

from simlib.engine.ledger import ResourceLedger
from simlib.errors import SimulationError
from simlib.platform import Platform


def test_take_and_give_back_keep_identity():
    led = ResourceLedger(Platform.homogeneous(8))
    a = led.take(3, owner=0)
    b = led.take(2, owner=1)
    assert a == [0, 1, 2] and b == [3, 4] and led.free == 3
    led.give_back(a)
    assert led.free == 6
    assert sorted(led.take(6, owner=2)) == [0, 1, 2, 5, 6, 7]


def test_over_allocation_is_refused():
    led = ResourceLedger(Platform.homogeneous(4))
    led.take(3)
    with pytest.raises(SimulationError, match="over-allocation"):
        led.take(2)


def test_explicit_ids_and_conflicts():
    led = ResourceLedger(Platform.homogeneous(8, cores_per_node=4))
    assert led.take_ids([4, 5], owner=0) == [4, 5]
    with pytest.raises(SimulationError, match="already held"):
        led.take_ids([5, 6], owner=1)
    assert led.free_ids() == [0, 1, 2, 3, 6, 7]


def test_take_ids_keeps_the_free_order_and_refuses_bad_ids_whole():
    # Paired with the list a one-by-one removal leaves: take() after
    # take_ids() hands out the same cores in the same order.
    led = ResourceLedger(Platform.homogeneous(8))
    led.give_back(led.take(5))
    before = list(led._free)
    assert led.take_ids([6, 1, 3]) == [6, 1, 3]
    assert led._free == [c for c in before if c not in (6, 1, 3)]
    for bad, what in (([2, 2], "twice"), ([0, 9], "out of range"), ([0, 6], "already held")):
        with pytest.raises(SimulationError, match=what):
            led.take_ids(bad)
        assert led.free == 5  # nothing taken by a refused call
