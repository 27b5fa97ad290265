# Every step of every enabled study becomes one rule. A study
# (simlib.studies.base.Study) declares its steps -- outputs, inputs, tracked
# params, the function doing the work -- and workflow/scripts/run_step.py
# runs one; nothing here knows any paper.
#
# Code inputs are derived, not listed: the import closure of the study's
# module and of the modules the step names (simlib.codedeps), plus the
# modules of the policies the step runs, so editing a module reruns exactly
# the steps that can reach it.

import re

from simlib.codedeps import import_closure, policy_files
from simlib.studies import Study

# The studies' artifacts join the index (and the report).
for _study in STUDIES:
    ARTIFACTS.extend(a.as_dict() for a in _study.artifacts())


def _resolve(value, wildcards):
    return value(wildcards) if callable(value) else value


def step_inputs(study, step):
    def inputs(wildcards):
        files = dict(_resolve(step.input, wildcards))
        # The study modules' import-time imports, and what this step names.
        roots = [c.__module__ for c in type(study).__mro__ if issubclass(c, Study)]
        code = set(import_closure(step.code, shallow=roots))
        for policy in _resolve(step.policies, wildcards):
            code.update(policy_files(POLICIES[policy]))
        files["_code"] = sorted(code)
        return files
    return inputs


def step_params(step):
    return lambda wildcards: dict(_resolve(step.params, wildcards))


def step_log(study, step):
    names = []
    for value in step.output.values():
        # An output is a path pattern or a list of them.
        for pattern in [value] if isinstance(value, str) else value:
            for name in re.findall(r"{(\w+)", pattern):
                if name not in names:
                    names.append(name)
    return f"logs/{study.key}/{step.name}" + "".join(f"/{{{n}}}" for n in names) + ".log"


def step_outputs(step):
    def flagged(name, path):
        if name in step.report:
            return reported(path, step.report[name])
        return directory(path) if name in step.directories else path
    return {name: flagged(name, path) for name, path in step.output.items()}


for _study in STUDIES:
    for _step in _study.steps():
        rule:
            name:
                _step.name
            message:
                _step.message or _step.name
            input:
                unpack(step_inputs(_study, _step))
            output:
                **step_outputs(_step)
            params:
                spec=step_params(_step),
                study=_study.key,
            wildcard_constraints:
                **_step.wildcard_constraints
            resources:
                **_step.resources
            log:
                step_log(_study, _step)
            localrule: _step.local
            group: _step.group
            script:
                "../scripts/run_step.py"
