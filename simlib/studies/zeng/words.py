"""Paper Z's claims from their words: ``templates/claims.yaml`` (the table labels are
``labels.yaml``, read with :func:`simlib.render.template_data`).

Each text of ``claims.yaml`` is a Jinja2 expression template
(:func:`simlib.render.render_string`) filled with the numbers a verdict
computed; a step reading a file names it in ``Step.templates``, so editing
a sentence reruns only the steps writing it.
"""
from __future__ import annotations

from simlib.claims import Claim
from simlib.render import render_string, template_data

__all__ = ["claim"]


def claim(key: str, verdict, **values) -> Claim:
    """Claim ``key`` of ``claims.yaml``, each text rendered with ``values``."""
    texts = template_data(__package__, "claims.yaml")[key]
    return Claim("zeng", verdict=verdict, **{k: render_string(v, **values) for k, v in texts.items()})
