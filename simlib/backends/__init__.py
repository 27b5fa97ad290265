"""Execution backends beside the engine's own rate model.

:mod:`simlib.backends.simgrid` times jobs with SimGrid's flow-level network
model (paper D); it plugs into the engine through the execution-model seam
(:mod:`simlib.engine.execution`), so the same policy objects run on either.
"""
