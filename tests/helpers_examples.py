"""The example policies of ``examples/policies/`` (docs/writing_a_policy.md) for tests.

Each example registers itself when its file is imported, as ``simlib
--policy-module FILE`` does; here each file is imported once per test
process and its name taken out of the registry again, so that other test
modules see only the built-in policies.
"""
from __future__ import annotations

from pathlib import Path

from simlib.commands import load_policy_module
from simlib.policies import POLICIES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "policies"
#: Example policy name -> its file.
EXAMPLE_FILES = {"sjf_easy": EXAMPLES / "sjf_easy.py", "easy_small": EXAMPLES / "easy_small.py"}


_CLASSES: dict = {}


def example_class(name: str):
    """The class of example policy ``name``, its file imported on first use."""
    if name not in _CLASSES:
        assert name not in POLICIES, f"{name} is registered already"
        load_policy_module(str(EXAMPLE_FILES[name]))
        _CLASSES[name] = POLICIES[name]
        del POLICIES[name]
    return _CLASSES[name]
