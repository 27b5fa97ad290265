"""Paper Z's words that are data: claim texts and table labels (YAML in ``templates/``).

Each text of ``claims.yaml`` is a Jinja2 expression template
(:func:`simlib.render.render_string`) filled with the numbers a verdict
computed; a step reading a file names it in ``Step.templates``, so editing
a sentence reruns only the steps writing it.
"""
from __future__ import annotations

import functools

import yaml

from simlib.claims import Claim
from simlib.render import render_string, template_dirs

__all__ = ["words", "claim"]


@functools.lru_cache(maxsize=None)
def words(name: str) -> dict:
    """``templates/<name>`` of this package, read once."""
    return yaml.safe_load((template_dirs(__package__)[0] / name).read_text(encoding="utf-8"))


def claim(key: str, verdict, **values) -> Claim:
    """Claim ``key`` of ``claims.yaml``, each text rendered with ``values``."""
    texts = words("claims.yaml")[key]
    return Claim("zeng", verdict=verdict, **{k: render_string(v, **values) for k, v in texts.items()})
