"""A user's policies in the pipeline: config ``policy_modules`` and ``extra_policies``.

``policy_modules`` names the modules that register the user's policies
(:func:`simlib.policies.register`); they are imported when the workflow is
parsed and in every job (:func:`import_policy_modules`). ``extra_policies``
(policy name -> parameters) puts those policies into every study whose
comparisons can take them: each study adds them to its own grid
(:meth:`simlib.studies.base.Study.add_extra_policies`) or says why it
cannot (:attr:`~simlib.studies.base.Study.extra_policies_refused`). A cube
that holds a user's policy records its module's file and hash
(:func:`policy_sources`).

Examples
--------
>>> extra_policies({"extra_policies": {"sjf_easy": None, "easy_small": {"max_cpus": 8}}})
{'sjf_easy': {}, 'easy_small': {'max_cpus': 8}}
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import ConfigError

__all__ = ["extra_policies", "import_policy_modules", "check_extra_policies", "policy_sources",
           "merge_policies"]

#: Config keys.
MODULES_KEY = "policy_modules"
EXTRA_KEY = "extra_policies"


def extra_policies(config: Mapping) -> dict[str, dict]:
    """The config's ``extra_policies``: policy name -> parameters (a copy; None -> {})."""
    return {name: dict(params or {}) for name, params in (config.get(EXTRA_KEY) or {}).items()}


def merge_policies(study: str, policies: Mapping[str, dict] | None,
                   extra: Mapping[str, dict]) -> dict[str, dict]:
    """A study's ``policies`` grid with the ``extra`` ones after them.

    Raises
    ------
    ConfigError
        When an extra policy has the name of one of the study's own.

    Examples
    --------
    >>> merge_policies("baseline", {"easy": {}}, {"sjf_easy": {}})
    {'easy': {}, 'sjf_easy': {}}
    >>> try:
    ...     merge_policies("baseline", {"easy": {}}, {"easy": {}})
    ... except ConfigError as exc:
    ...     print(str(exc)[:60])
    config extra_policies.easy: already a policy of study baseli
    """
    merged = dict(policies or {})
    for name, params in extra.items():
        if name in merged:
            raise ConfigError(f"config {EXTRA_KEY}.{name}: already a policy of study {study} "
                              f"(studies.{study}.policies); register yours under another name")
        merged[name] = dict(params or {})
    return merged


def import_policy_modules(config: Mapping, repo) -> None:
    """Import the config's ``policy_modules`` (each registers policies on import).

    A ``.py`` path is relative to the repository ``repo`` unless absolute; a
    dotted name is looked up on ``sys.path`` (PYTHONPATH) and from the
    current directory. A module already imported (the workflow and a job
    can share a process) is not imported twice.

    Raises
    ------
    ConfigError
        Naming the config entry and why the module could not be imported.
    """
    from ..policies.modules import load_policy_module

    for i, spec in enumerate(config.get(MODULES_KEY) or []):
        target = spec
        if spec.endswith(".py"):
            path = Path(spec).expanduser()
            path = path if path.is_absolute() else Path(repo) / path
            loaded = sys.modules.get(path.stem)
            if loaded is not None and Path(getattr(loaded, "__file__", "") or "") == path:
                continue
            target = str(path)
        elif spec in sys.modules:
            continue
        try:
            load_policy_module(target)
        except ConfigError as exc:
            raise ConfigError(f"config {MODULES_KEY}[{i}] ({spec}): {exc}") from None


def check_extra_policies(config: Mapping) -> None:
    """Each of ``extra_policies`` registered, with accepted and valid parameters.

    Run after :func:`import_policy_modules`, before any job.

    Examples
    --------
    >>> check_extra_policies({"extra_policies": {"easy": {"depth": 3}}})
    Traceback (most recent call last):
    ...
    simlib.errors.ConfigError: config extra_policies.easy: unknown parameter(s) depth; accepted: reading
    """
    from .base import check_policies
    check_policies(f"config {EXTRA_KEY}", extra_policies(config))


def policy_sources(policies: Iterable[str]) -> dict[str, dict]:
    """Where each policy not built into simlib comes from, for a cube's provenance.

    Policy name -> its class (``module:Class``), the module's file, the
    file's sha256 and, when the module belongs to an installed
    distribution, its version. Built-in policies are covered by the
    commit already and are left out.

    Examples
    --------
    >>> policy_sources(["easy", "fcfs"])
    {}
    """
    from ..policies import BUILTIN, POLICIES

    out: dict[str, dict] = {}
    for name in policies:
        if name in BUILTIN or name not in POLICIES:
            continue
        cls = POLICIES[name]
        module = sys.modules.get(cls.__module__)
        file = getattr(module, "__file__", None)
        entry = {"class": f"{cls.__module__}:{cls.__qualname__}", "file": str(file)}
        if file and Path(file).is_file():
            entry["sha256"] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
        version = _distribution_version(cls.__module__)
        if version:
            entry["version"] = version
        out[name] = entry
    return out


@functools.lru_cache(maxsize=None)  # scanning the installed distributions is slow
def _distribution_version(module: str) -> str | None:
    top = module.partition(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, []):
        try:
            return f"{dist} {importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None
