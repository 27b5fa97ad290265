"""Words of the studies' READMEs, tables and reports: Jinja2 templates.

Python computes the numbers and the verdicts; the sentences around them
live in templates, one folder per study package (``<package>/templates/``)
plus the shared ``simlib/studies/templates/`` (macros every study may
import). A step that renders templates names them (``Step.templates``):
they, and the templates they include or import, are the step's inputs, so
editing a sentence reruns only the step writing it.

The environment is strict (an undefined name is an error, never an empty
string), keeps a template's final newline, and drops the newline after a
block tag, so that a template's text is the text written.

Filters
-------
``md_table``
    :func:`simlib.markdown.markdown_table` (a DataFrame as a Markdown table).
``cell``
    :func:`simlib.markdown.format_cell` (one number or text as a table cell).
``fmt``
    ``format(value, spec)``: ``{{ x | fmt(".1f") }}``.

Examples
--------
>>> render_string("{{ n | fmt(',d') }} jobs, {{ share | fmt('.1%') }}", n=10490, share=0.417)
'10,490 jobs, 41.7%'
"""
from __future__ import annotations

import functools
from pathlib import Path

import jinja2
from jinja2 import meta

from .markdown import format_cell, markdown_table

__all__ = ["render", "render_string", "template_files", "template_dirs"]

#: The shared templates (macros), searched after a package's own.
SHARED = Path(__file__).resolve().parent / "studies" / "templates"


def template_dirs(package: str) -> list[Path]:
    """Where a package's templates are looked up: its ``templates/``, then the shared ones.

    ``package`` is a dotted name under ``simlib`` or any importable package.
    """
    import importlib.util
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{package!r} is not a package")
    return [Path(next(iter(spec.submodule_search_locations))) / "templates", SHARED]


def _fmt(value, spec: str = "") -> str:
    return format(value, spec)


def _setup(env: jinja2.Environment) -> jinja2.Environment:
    env.filters.update(md_table=markdown_table, cell=format_cell, fmt=_fmt)
    return env


def _options() -> dict:
    return dict(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True,
                lstrip_blocks=True, autoescape=False)


@functools.lru_cache(maxsize=None)
def _environment(package: str) -> jinja2.Environment:
    loader = jinja2.FileSystemLoader([str(d) for d in template_dirs(package)])
    return _setup(jinja2.Environment(loader=loader, **_options()))


def render(package: str, name: str, **context) -> str:
    """Render template ``name`` of ``package`` with ``context``.

    Parameters
    ----------
    package : str
        Dotted name of the study package owning the template (e.g.
        ``"simlib.studies.kumar"``; a step module passes ``__package__``).
    name : str
        File name in the package's ``templates/`` (or the shared folder).
    **context
        The names the template uses; one it uses and is not given is an error.
    """
    return _environment(package).get_template(name).render(**context)


def render_string(text: str, **context) -> str:
    """Render a template given as text (no includes), with the same filters."""
    return _string_template(text).render(**context)


@functools.lru_cache(maxsize=None)
def _string_template(text: str) -> jinja2.Template:
    # Compiled once per text: a study renders the same messages for every step.
    return _setup(jinja2.Environment(**_options())).from_string(text)


def template_files(package: str, names) -> list[str]:
    """Absolute paths of templates ``names`` and of every template they include or import.

    What a step that renders them depends on (``Step.templates``).
    """
    env = _environment(package)
    found: dict[str, str] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        source, path, _ = env.loader.get_source(env, name)
        found[name] = str(Path(path).resolve())
        todo += [n for n in meta.find_referenced_templates(env.parse(source)) if n]
    return sorted(found.values())


@functools.lru_cache(maxsize=None)
def template_data(package: str, name: str):
    """A YAML file of a package's ``templates/`` (words as data: labels, titles, claim
    texts), read once. A step reading it names it in ``Step.templates``, as a template,
    so that editing a word reruns only the steps writing it."""
    from .io import read_yaml
    return read_yaml(template_dirs(package)[0] / name)
