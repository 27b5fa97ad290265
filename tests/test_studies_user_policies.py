"""simlib.studies.user_policies: policy_modules and extra_policies in the studies."""
from __future__ import annotations

import hashlib
import sys
import textwrap

import pytest

from helpers_pipeline import repo_config
from simlib.errors import ConfigError
from simlib.policies import POLICIES
from simlib.studies.base import load_study
from simlib.studies.user_policies import (check_extra_policies, extra_policies,
                                          import_policy_modules, merge_policies, policy_sources)

MODULE = textwrap.dedent('''
    from simlib.policies import register
    from simlib.policies.easy import EASY


    @register
    class {cls}(EASY):
        name = "{name}"
        defaults = {{"width": 4}}
    ''')


@pytest.fixture
def user_module(tmp_path):
    """A user's policy module in a file, imported by path; unregistered after the test."""
    name = f"up_{tmp_path.name.replace('-', '_')}"[:40]
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(cls="Mine", name=name))
    yield name, path
    POLICIES.pop(name, None)
    sys.modules.pop(path.stem, None)


def test_a_py_path_is_imported_relative_to_the_repository_and_only_once(user_module, tmp_path):
    name, path = user_module
    config = {"policy_modules": [path.name]}
    import_policy_modules(config, repo=tmp_path)
    assert POLICIES[name].defaults == {"width": 4}
    import_policy_modules(config, repo=tmp_path)  # again: no "registered twice"


def test_a_module_that_cannot_be_imported_names_the_config_entry(tmp_path):
    with pytest.raises(ConfigError, match=r"config policy_modules\[0\] \(nowhere\.py\)"):
        import_policy_modules({"policy_modules": ["nowhere.py"]}, repo=tmp_path)


def test_extra_policies_are_checked_like_a_studys_policies():
    check_extra_policies({"extra_policies": {"easy": None}})
    with pytest.raises(ConfigError, match=r"config extra_policies\.nosuch: unknown policy"):
        check_extra_policies({"extra_policies": {"nosuch": {}}})
    with pytest.raises(ConfigError, match=r"config extra_policies\.los: .*lookahead"):
        check_extra_policies({"extra_policies": {"los": {"lookahead": "x"}}})


def test_merge_keeps_the_studys_policies_first_and_refuses_a_clash():
    assert list(merge_policies("s", {"easy": {}, "fcfs": {}}, {"mine": {"a": 1}})) == [
        "easy", "fcfs", "mine"]
    with pytest.raises(ConfigError, match=r"extra_policies\.easy: already a policy of study s"):
        merge_policies("s", {"easy": {}}, {"easy": {}})


def test_policy_sources_record_a_user_modules_file_hash(user_module, tmp_path):
    name, path = user_module
    import_policy_modules({"policy_modules": [str(path)]}, repo=tmp_path)
    sources = policy_sources(["easy", name])
    assert list(sources) == [name]
    assert sources[name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert sources[name]["file"] == str(path)
    assert sources[name]["class"].endswith(":Mine")


def test_extra_policies_join_the_baseline_and_paper_k_not_paper_d():
    full = repo_config("kumar")
    for grid in ("baseline", "dutot"):
        full["studies"].update(repo_config(grid)["studies"])
    full["extra_policies"] = {"fcfs_malleable": None}
    assert extra_policies(full) == {"fcfs_malleable": {}}
    baseline = load_study("baseline", full, "smoke")
    assert list(baseline.policies) == ["fcfs", "easy", "conservative", "fcfs_malleable"]
    # The user's grid is left as written.
    assert "fcfs_malleable" not in full["studies"]["baseline"]["policies"]
    kumar = load_study("kumar", full, "smoke")
    assert all(sweep[-1] == "fcfs_malleable" for sweep in kumar.plan.load_sweeps.values())
    assert kumar.plan.purpose_policies("readings", "size_linear@ps02") == [
        "easy", "los", "delayed_los"]
    assert "fcfs_malleable" not in kumar.plan.subtree("readings")["policies"]
    dutot = load_study("dutot", full, "smoke")
    assert dutot.extra_policies == {}
    (line,) = [x for x in dutot.left_out() if "extra_policies" in x]
    assert line.startswith("study dutot: extra_policies fcfs_malleable not run: ")
