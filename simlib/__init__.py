"""simlib: a fast, deterministic simulator of parallel job scheduling.

The library under the reproduction pipeline of four job-scheduling papers
(see ``shared/DESIGN.md``): workloads (SWF traces, synthetic models), a
discrete-event engine with rate-based job progress, scheduling policies,
paper-specific metrics, and xarray result cubes.
"""

__version__ = "0.1.0"
