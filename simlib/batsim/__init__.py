"""Cross-checking simlib against Batsim (v4.2.1) driven by pybatsim (3.2.1).

Batsim and pybatsim are not Python dependencies of simlib: they are built
into a prefix by ``scripts/batsim.sh install PREFIX`` (an explicit opt-in),
and :mod:`simlib.batsim.run` finds that prefix and runs one simulation.
"""
