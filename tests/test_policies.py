"""Tests of simlib.policies: the registry, its lazy imports and make_policy."""
from __future__ import annotations

import subprocess
import sys

import pytest

import simlib.policies as policies
from simlib.errors import ConfigError
from simlib.policies import BUILTIN, POLICIES, PolicyRegistry, make_policy, register
from simlib.policies.fcfs import FCFS


def _fresh(code: str) -> str:
    """stdout of ``code`` run in a fresh interpreter (nothing imported yet)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


def test_every_builtin_entry_names_a_class_registered_under_its_own_name():
    for name, spec in BUILTIN.items():
        cls = POLICIES[name]
        assert cls.name == name and f"{cls.__module__}:{cls.__qualname__}" == spec
    assert list(POLICIES) == list(BUILTIN)


def test_names_need_no_import_and_one_policy_imports_only_its_module():
    out = _fresh(
        "import sys\n"
        "from simlib.policies import POLICIES, make_policy\n"
        "names = sorted(POLICIES); assert 'glomarc_ts' in POLICIES and len(POLICIES) == 17\n"
        "make_policy('easy')\n"
        "print(sorted(m for m in sys.modules if m.startswith('simlib.policies.')))\n")
    assert out.split() == ["['simlib.policies.base',", "'simlib.policies.easy']"]


def test_simulate_command_imports_neither_other_policies_nor_fetch():
    # The `simlib simulate` path (EASY) leaves the other policies and the
    # download code (urllib, http) unimported.
    out = _fresh(
        "import sys\n"
        "import simlib.commands, simlib.runner, simlib.metrics, simlib.workload.prepare\n"
        "from simlib.policies import make_policy; make_policy('easy')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('simlib.policies.')\n"
        "                      or m in ('simlib.workload.fetch', 'http.client'))))\n")
    assert out.split() == ["simlib.policies.base", "simlib.policies.easy"]


def test_policy_classes_can_still_be_imported_from_the_package():
    from simlib.policies import EASY, Conservative

    assert EASY is POLICIES["easy"] and Conservative is POLICIES["conservative"]
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        policies.Nope  # noqa: B018


def test_registry_reads_load_once_and_writes_keep_order():
    reg = PolicyRegistry({"fcfs": "simlib.policies.fcfs:FCFS", "easy": "simlib.policies.easy:EASY"})
    assert reg["fcfs"] is FCFS and reg["fcfs"] is reg["fcfs"]
    assert dict(reg.items())["easy"].name == "easy"
    reg["mine"] = FCFS
    del reg["fcfs"]
    assert list(reg) == ["easy", "mine"] and len(reg) == 2 and reg.get("nope") is None


def test_register_rejects_a_second_class_under_a_builtin_name():
    class Other(FCFS):
        name = "easy"

    with pytest.raises(ConfigError, match="policy name 'easy' registered twice"):
        register(Other)
    assert register(POLICIES["easy"]) is POLICIES["easy"]  # the same class again is fine


def test_make_policy_rejects_unknown_names_and_parameters():
    with pytest.raises(ConfigError, match="unknown policy 'nope'; registered: conservative, delayed_los,"):
        make_policy("nope")
    with pytest.raises(ConfigError, match=r"policy 'easy': unknown parameter\(s\) \['cs'\]"):
        make_policy("easy", cs=1)
    assert make_policy("delayed_los", cs=3).params["cs"] == 3
