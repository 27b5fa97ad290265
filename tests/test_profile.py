from simlib.policies.profile import AvailabilityProfile


def test_earliest_start_skips_blocking_steps():
    prof = AvailabilityProfile(0.0, 10)
    prof.reserve(0.0, 10.0, 6)   # running job
    prof.reserve(10.0, 20.0, 8)  # a reservation
    assert prof.earliest_start(4, 5.0, 0.0) == 0.0
    assert prof.earliest_start(4, 15.0, 0.0) == 20.0  # [10,20) has only 2 free
    assert prof.earliest_start(2, 15.0, 0.0) == 0.0
    assert prof.earliest_start(9, 1.0, 3.0) == 20.0


def test_release_and_advance_and_compact():
    prof = AvailabilityProfile(0.0, 4)
    prof.reserve(2.0, 6.0, 3)
    prof.release(2.0, 6.0, 3)
    prof.compact()
    assert prof.times == [0.0] and prof.free == [4]
    prof.reserve(5.0, 9.0, 1)
    prof.advance(7.0)
    assert prof.times == [7.0, 9.0] and prof.free == [3, 4]
