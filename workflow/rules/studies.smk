# Every step of every enabled study becomes one rule. A study
# (simlib.studies.base.Study) declares its steps -- outputs, inputs, tracked
# params, the function doing the work -- and workflow/scripts/run_step.py
# runs one; nothing here knows any paper.
#
# Code inputs are derived, not listed: the import closure of the step's own
# function's module and of the modules the step names (Step.code_modules,
# simlib.codedeps), the templates it renders (Step.templates,
# simlib.render), and the modules of the policies the step runs, so editing
# a module or a template reruns exactly the steps that can reach it.
#
# A step with a batch (Step.batch, at scales whose runs are shorter than a
# job's start-up) becomes one rule whose job runs every batch entry in one
# process: its files are the step's, named <name>__<i> for entry i.

from simlib.codedeps import import_closure, policy_files
from simlib.render import template_files
from simlib.studies import Files
from simlib.studies.base import wildcard_names

# The studies' artifacts join the index (and the report).
for _study in STUDIES:
    ARTIFACTS.extend(a.as_dict() for a in _study.artifacts())


def _resolve(value, wildcards):
    return value(wildcards) if callable(value) else value


def _runs(entries, wildcards):
    """(suffix, wildcards) of every run of a job: one, or one per batch entry.

    A batched job names its files ``<name>__<i>`` (run_step.py splits them).
    """
    if entries is None:
        return [("", wildcards)]
    # Files: a dict read by attribute too, as Snakemake's wildcards (w.trace).
    own = dict(wildcards.items())
    return [(f"__{i}", Files(own, **entry)) for i, entry in enumerate(entries)]


def step_inputs(study, step, entries=None):
    def inputs(wildcards):
        files, code = {}, set()
        modules, shallow = step.code_modules()
        code.update(import_closure(modules, shallow=shallow))
        if step.templates:
            code.update(template_files(step.package, step.templates))
        for suffix, w in _runs(entries, wildcards):
            files.update((name + suffix, value) for name, value in _resolve(step.input, w).items())
            for policy in _resolve(step.policies, w):
                code.update(policy_files(POLICIES[policy]))
        files["_code"] = sorted(code)
        return files
    return inputs


def step_params(step, entries=None):
    if entries is None:
        return lambda wildcards: dict(_resolve(step.params, wildcards))
    return lambda wildcards: {
        "_step": step.name,
        "_batch": [{"wildcards": dict(entry), "params": dict(_resolve(step.params, w))}
                  for entry, (_, w) in zip(entries, _runs(entries, wildcards))]}


def step_output_patterns(step, entries=None):
    """Output name -> pattern(s) of the rule: the step's, or every batch entry's."""
    if entries is None:
        return dict(step.output)
    out = {}
    for i, entry in enumerate(entries):
        for name, value in step.output.items():
            out[f"{name}__{i}"] = (step.folded(value, entry) if isinstance(value, str)
                                   else [step.folded(v, entry) for v in value])
    return out


def step_log(study, step, label=None, entries=None):
    names = []
    for value in step_output_patterns(step, entries).values():
        # An output is a path pattern or a list of them.
        for pattern in [value] if isinstance(value, str) else value:
            for name in wildcard_names(pattern):
                if name not in names:
                    names.append(name)
    folder = f"logs/{study.key}/{step.name}" + (f"/{label}" if label else "")
    return folder + "".join(f"/{{{n}}}" for n in names) + ".log"


def step_outputs(step, entries=None):
    def flagged(name, path):
        base = name.rsplit("__", 1)[0] if entries is not None else name
        if base in step.report:
            return reported(path, step.report[base])
        return directory(path) if base in step.directories else path
    return {name: flagged(name, path) for name, path in step_output_patterns(step, entries).items()}


def step_message(step, entries=None):
    if entries is None:
        return step.message or step.name
    runs = ", ".join("/".join(entry.values()) for entry in entries[:4])
    more = f", ... ({len(entries)} in all)" if len(entries) > 4 else ""
    return f"{step.name}, {len(entries)} runs in one job: {runs}{more}"


def step_rules(step):
    """(rule name, label, entries) of each rule a step becomes."""
    if not step.batch:
        return [(step.name, None, None)]
    return [(step.batch_rule(label), label, list(entries)) for label, entries in step.batch.items()]


for _study in STUDIES:
    for _step in _study.steps():
        for _name, _label, _entries in step_rules(_step):
            rule:
                name:
                    _name
                message:
                    step_message(_step, _entries)
                input:
                    unpack(step_inputs(_study, _step, _entries))
                output:
                    **step_outputs(_step, _entries)
                params:
                    spec=step_params(_step, _entries),
                    study=_study.key,
                wildcard_constraints:
                    **{k: v for k, v in _step.wildcard_constraints.items() if k not in _step.folds}
                # A step's runtime stays the limit of a batched job: batches
                # are for scales whose runs are short.
                resources:
                    **_step.resources
                log:
                    step_log(_study, _step, _label, _entries)
                localrule: _step.local
                group: _step.group
                script:
                    "../scripts/run_step.py"
