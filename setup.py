"""Build step for simlib's compiled kernels (everything else is in pyproject.toml).

A few policies' inner loops are written in Cython beside their policies
(``simlib/policies/_*_kernel.pyx``, listed in :mod:`simlib.policies.kernels`).
They are optional: without a C compiler the install goes on without them
and those policies run their pure-Python paths (same results, slower)
after a warning that says so. Each source's sha256 is compiled in, so the
loader can tell a stale build from a current one.
"""
import hashlib
from pathlib import Path

from setuptools import Extension, setup


def kernel(path: Path) -> Extension:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Extension(".".join(path.with_suffix("").parts), [str(path)],
                     define_macros=[("SIMLIB_KERNEL_SOURCE", '"%s"' % digest)], optional=True)


setup(ext_modules=[kernel(p) for p in sorted(Path("simlib/policies").glob("_*_kernel.pyx"))])
