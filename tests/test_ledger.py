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
    assert list(led._free) == [c for c in before if c not in (6, 1, 3)]
    for bad, what in (([2, 2], "twice"), ([0, 9], "out of range"), ([0, 6], "already held")):
        with pytest.raises(SimulationError, match=what):
            led.take_ids(bad)
        assert led.free == 5  # nothing taken by a refused call


class ListStackLedger:
    """The one-layer ledger before free cores were runs: a list stack, the
    core freed last taken first (what TimeSharedLedger keeps, per layer set)."""

    def __init__(self, total):
        self.stack = list(range(total - 1, -1, -1))

    def take(self, count):
        ids = self.stack[len(self.stack) - count:]
        del self.stack[len(self.stack) - count:]
        return ids[::-1]

    def take_ids(self, ids):
        self.stack = [c for c in self.stack if c not in set(ids)]
        return list(ids)

    def give_back(self, ids):
        self.stack.extend(reversed(list(ids)))


def test_time_shared_ledger_hands_out_what_a_list_stack_does():
    # The dict-backed stack of many layers against a plain list stack, step
    # by step (paper Z's schedules were made with that order).
    from simlib.engine.ledger import TimeSharedLedger, make_ledger
    plat = Platform.homogeneous(6)
    a, b = ListStackLedger(18), make_ledger(plat, layers=3)
    assert isinstance(b, TimeSharedLedger)
    for op, arg in (("take", 4), ("take_ids", [17, 8, 9]), ("give_back", [0, 1]),
                    ("take", 3), ("take_ids", [5, 11]), ("give_back", [17, 9, 8]), ("take", 6)):
        assert getattr(a, op)(arg) == getattr(b, op)(arg)
        assert a.stack == list(b._free) and len(a.stack) == b.free
        assert sorted(a.stack) == b.free_ids()
        assert b.free_mask() == sum(1 << c for c in a.stack)
    c = b.free_ids()[0]
    for bad, what in (([c, c], "twice"), ([c, 99], "out of range"), ([c, 5], "already held")):
        with pytest.raises(SimulationError, match=what):
            b.take_ids(bad)
        assert a.stack == list(b._free)  # nothing taken by a refused call
    with pytest.raises(SimulationError, match="over-allocation"):
        b.take(b.free + 1)
