from simlib.engine.events import CHANGE, FINISH, TIMER, EventQueue


def test_heap_orders_by_time_then_class_then_insertion():
    q = EventQueue()
    q.push(2.0, FINISH, "late")
    q.push(1.0, TIMER, "t1")
    q.push(1.0, FINISH, "f1")
    q.push(1.0, CHANGE, "c1")
    q.push(1.0, FINISH, "f2")
    assert [q.pop()[3] for _ in range(5)] == ["f1", "f2", "c1", "t1", "late"]


def test_payloads_are_never_compared():
    q = EventQueue()
    q.push(1.0, FINISH, object())
    q.push(1.0, FINISH, object())  # would raise TypeError if tuples compared payloads
    assert len(q) == 2 and q.peek_time() == 1.0
