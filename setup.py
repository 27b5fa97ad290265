"""Build step for simlib's one compiled module (everything else is in pyproject.toml).

``simlib.policies._conservative_kernel`` is count-based conservative
backfilling's core, written in Cython. It is optional: without a C compiler
the install goes on without it and the policy runs its pure-Python path
(same schedules, several times slower) after a warning that says so. The
source's sha256 is compiled in, so the loader can tell a stale build from a
current one (see ``simlib/policies/conservative.py``).
"""
import hashlib
from pathlib import Path

from setuptools import Extension, setup

KERNEL = Path("simlib/policies/_conservative_kernel.pyx")

setup(ext_modules=[Extension(
    "simlib.policies._conservative_kernel",
    [str(KERNEL)],
    define_macros=[("SIMLIB_KERNEL_SOURCE", '"%s"' % hashlib.sha256(KERNEL.read_bytes()).hexdigest())],
    optional=True,
)])
