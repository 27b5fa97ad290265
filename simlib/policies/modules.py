"""Importing a user's policy module: a dotted module name or the path of a ``.py`` file.

Used by the command line (``--policy-module``) and the pipeline (config
``policy_modules``, :mod:`simlib.studies.user_policies`). It lives in the
policy package, whose modules a step's code inputs name one by one
(:mod:`simlib.codedeps`), so that loading users' modules does not make a
step depend on the command line's code.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

from ..errors import ConfigError, SimlibError

__all__ = ["load_policy_module", "MODULE_LOOKUP"]


#: How ``--policy-module`` finds a module, for its error messages.
MODULE_LOOKUP = ("--policy-module takes a dotted module name, looked up in the current "
                 "directory {cwd} and then on PYTHONPATH ({pythonpath}), or the path of a "
                 ".py file")


def _lookup_hint() -> str:
    pythonpath = os.environ.get("PYTHONPATH") or "not set"
    return MODULE_LOOKUP.format(cwd=os.getcwd(), pythonpath=pythonpath)


def _missing_spec(spec: str, exc: ModuleNotFoundError) -> bool:
    """Whether ``exc`` says ``spec`` itself (or a package on its way) is missing.

    Not a module that the user's module imports in turn: that one is
    the user's code's error, reported as it is.
    """
    missing = exc.name or ""
    return bool(missing) and (spec == missing or spec.startswith(missing + "."))


def load_policy_module(spec: str) -> list[str]:
    """Import a module that registers policies: a dotted name or a ``.py`` file.

    A dotted name is looked up from the current directory first, as
    ``python -m`` would, then on ``PYTHONPATH``; a ``.py`` path is
    relative to the current directory. Returns the names of the policies
    the module registered.

    Raises
    ------
    ConfigError
        A missing file or module (saying how the module is looked up), or
        any error raised while importing it (file and line of the error).

    Examples
    --------
    >>> load_policy_module("no_such_policies")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: cannot import policy module 'no_such_policies': no module named ...
    """
    from . import POLICIES

    before = set(POLICIES)
    try:
        if spec.endswith(".py"):
            path = Path(spec)
            if not path.is_file():
                raise ConfigError(f"{spec}: no such policy module file (in {os.getcwd()}); "
                                  + _lookup_hint())
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[path.stem] = module
            module_spec.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())
            try:
                importlib.import_module(spec)
            finally:
                sys.path.remove(os.getcwd())
    except SimlibError:
        raise
    except ModuleNotFoundError as exc:
        if not _missing_spec(spec, exc):
            raise _import_error(spec, exc) from None
        path_like = "/" in spec or os.sep in spec
        raise ConfigError(f"cannot import policy module {spec!r}: no module named "
                          f"{exc.name!r}; " + _lookup_hint()
                          + (" (ending in .py)" if path_like else "")) from None
    except Exception as exc:  # an import error of the user's code: report, don't trace
        raise _import_error(spec, exc) from None
    return [name for name in POLICIES if name not in before]


def _import_error(spec: str, exc: Exception) -> ConfigError:
    """An error raised by the user's module as one line: where, what."""
    where = getattr(exc, "filename", None) or spec
    line = getattr(exc, "lineno", None)
    return ConfigError(f"{where}{f':{line}' if line else ''}: cannot import policy module "
                       f"{spec!r}: {type(exc).__name__}: {exc}")
