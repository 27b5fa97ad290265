"""Which source files a pipeline step depends on: the import closure.

Snakemake reruns a job when one of its inputs changes; a step's code inputs
are the simlib modules its function can reach by imports, found by reading
``import`` statements (no module is executed). Listing them by hand drifts
(a helper module missed means a changed table is not rebuilt); deriving
them cannot.

Registries are the exception. :mod:`simlib.policies` registers every
policy, so following its imports would make each simulation depend on every
policy: the closure does not enter ``simlib.policies``, and a step names
the policies it runs and gets exactly their modules (:func:`policy_files`).
Likewise :mod:`simlib.studies` names every study: importing it counts as
importing :mod:`simlib.studies.base` only.

Compiled kernels (:mod:`simlib.policies.kernels`) are Cython sources, not
parsed for imports: a module that runs one declares it in a module-level
``COMPILED_KERNELS`` tuple of kernel names, and the kernel's ``.pyx`` file
is then a code input wherever that module is (read from the tuple's text,
for the modules of a closure and for a policy's helper modules alike).

Examples
--------
>>> files = import_closure(["simlib.stats"])
>>> [f.rsplit("/", 1)[-1] for f in files]
['__init__.py', 'stats.py']
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Iterable

from .policies import kernels

__all__ = ["declared_kernels", "import_closure", "policy_files", "module_file"]

#: Packages whose imports are followed.
ROOT = "simlib"
#: Not entered (see the module docstring).
POLICY_PACKAGE = "simlib.policies"
#: Registries: their ``__init__`` imports every member (every policy, every
#: study), so following it would make each step depend on all of them.
#: Importing the package counts as importing its API module(s) only.
REGISTRIES = {POLICY_PACKAGE: (), "simlib.studies": ("simlib.studies.base",)}
#: The directory of the ``simlib`` package (this module's).
_PACKAGE_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=None)
def module_file(name: str) -> str | None:
    """Source file of an importable module (None for builtins and namespace packages).

    simlib's own modules are found from this file's location, without
    importing anything: ``importlib.util.find_spec`` would import each parent
    package (e.g. matplotlib through :mod:`simlib.figures`) while Snakemake
    builds its DAG.
    """
    if name == ROOT or name.startswith(ROOT + "."):
        parts = name.split(".")[1:]
        base = _PACKAGE_DIR.joinpath(*parts)
        for candidate in ([base.with_suffix(".py")] if parts else []) + [base / "__init__.py"]:
            if candidate.is_file():
                return str(candidate)
        return None  # `from module import name`: not a module
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # `from module import name`: not a module
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return str(Path(spec.origin).resolve())


def _is_package(path: str) -> bool:
    return path.endswith("__init__.py")


def _module_level(tree: ast.Module):
    """Nodes run on import: the module body, into if/try blocks, not into defs."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]


@functools.lru_cache(maxsize=None)
def _imports(name: str, shallow: bool = False) -> tuple[str, ...]:
    """Modules (under ROOT) imported anywhere in module ``name`` (``shallow``:
    only by statements run on import, not inside functions)."""
    path = module_file(name)
    if path is None:
        return ()
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    package = name if _is_package(path) else name.rpartition(".")[0]
    found = []
    for node in (_module_level(tree) if shallow else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append(mod)
            # `from pkg import sub` may name a submodule.
            found += [f"{mod}.{a.name}" for a in node.names]
    return tuple(m for m in found if m == ROOT or m.startswith(ROOT + "."))


@functools.lru_cache(maxsize=None)
def declared_kernels(name: str) -> tuple[str, ...]:
    """Kernel names in module ``name``'s top-level ``COMPILED_KERNELS = (...)``
    (string literals), read without importing it.

    Examples
    --------
    >>> declared_kernels("simlib.runner"), declared_kernels("simlib.stats")
    (('_intervals_kernel',), ())
    """
    path = module_file(name)
    if path is None:
        return ()
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    rule = (f"{path}: COMPILED_KERNELS must be assigned once, as `COMPILED_KERNELS = (...)` "
            "of string literals naming kernels of simlib.policies.kernels (simlib.codedeps "
            "reads it without importing the module)")
    found = None
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        if not any(isinstance(t, ast.Name) and t.id == "COMPILED_KERNELS" for t in targets):
            continue
        if found is not None or not isinstance(node, ast.Assign) or len(targets) != 1:
            raise ValueError(rule)
        value = node.value
        items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        if not all(isinstance(e, ast.Constant) and e.value in kernels.KERNELS for e in items):
            raise ValueError(rule)
        found = tuple(e.value for e in items)
    return found or ()


def _in_policies(name: str) -> bool:
    return name == POLICY_PACKAGE or name.startswith(POLICY_PACKAGE + ".")


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_closure(modules: Iterable[str], shallow: Iterable[str] = ()) -> list[str]:
    """Sorted source files of ``modules`` and every simlib module they import.

    Parent packages count (their ``__init__`` runs on import); registries
    are not entered (see the module docstring). Modules in ``shallow``
    contribute only their import-time imports: a study module imports what
    one step needs inside that step's function, and that step names it.
    """
    # The pipeline asks once per job, with a few distinct arguments: cached.
    return list(_closure(tuple(modules), tuple(shallow)))


@functools.lru_cache(maxsize=None)
def _closure(modules: tuple[str, ...], shallow: tuple[str, ...]) -> tuple[str, ...]:
    seen: set[str] = set()
    todo = list(modules)
    for root in shallow:
        seen.add(root)
        todo += [p for p in _parents(root)] + list(_imports(root, shallow=True))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if _in_policies(name):
            continue  # policies: by name only (policy_files)
        if name in REGISTRIES:
            todo += REGISTRIES[name]
            continue
        todo += [p for p in _parents(name) if p not in seen]
        todo += [m for m in _imports(name) if m not in seen]
    modules = [m for m in seen if not _in_policies(m) and m not in REGISTRIES]
    files = {module_file(m) for m in modules}
    files.update(str(kernels.source(k)) for m in modules for k in declared_kernels(m))
    return tuple(sorted(f for f in files if f))


def policy_files(cls) -> list[str]:
    """Source files a policy's behaviour depends on.

    Its class's module and those of its simlib base classes, plus the
    ``simlib.policies`` helper modules these use (and the helpers' own, in
    turn), and what those import outside the policy package (engine,
    errors...). A policy defined outside simlib contributes its own file.
    """
    return list(_policy_files(cls))


@functools.lru_cache(maxsize=None)
def _policy_files(cls) -> tuple[str, ...]:
    files: set[str] = set()
    helpers: set[str] = set()
    for c in cls.__mro__:
        if c is cls or c.__module__.startswith(ROOT + "."):
            try:
                files.add(str(Path(inspect.getsourcefile(c)).resolve()))
            except TypeError:
                continue
            if c.__module__.startswith(ROOT + "."):
                helpers.add(c.__module__)
    # The policy package's modules that the policy's module uses, and those
    # that they use in turn (e.g. a -DE policy's module uses the dedicated
    # layer, which plans on the profiles).
    todo = [cls.__module__, *helpers]
    scanned: set[str] = set()
    while todo:
        name = todo.pop()
        if name in scanned:
            continue
        scanned.add(name)
        # Helpers imported inside a function (a reading loaded only when chosen).
        for m in _imports(name):
            if (_in_policies(m) and m != POLICY_PACKAGE and m not in helpers
                    and module_file(m) is not None):
                helpers.add(m)
                todo.append(m)
        if name not in sys.modules:
            continue
        for value in vars(sys.modules[name]).values():
            owner = getattr(value, "__module__", None) or getattr(value, "__name__", "")
            if (isinstance(owner, str) and owner.startswith(POLICY_PACKAGE + ".")
                    and owner in sys.modules and owner not in helpers):
                helpers.add(owner)
                todo.append(owner)
    for name in helpers:
        f = module_file(name)
        if f:
            files.add(f)
        files.update(import_closure(m for m in _imports(name) if not _in_policies(m)))
        # Compiled kernels a helper declares (Cython sources: not parsed).
        files.update(str(kernels.source(k)) for k in declared_kernels(name))
    return tuple(sorted(files))
