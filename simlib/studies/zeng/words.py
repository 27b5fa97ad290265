"""Paper Z's claims from their words: ``templates/claims.yaml`` (the table labels are
``labels.yaml``, read with :func:`simlib.render.template_data`).

Each text of ``claims.yaml`` is a Jinja2 expression template
(:func:`simlib.render.render_string`) filled with the numbers a verdict
computed; a step reading a file names it in ``Step.templates``, so editing
a sentence reruns only the steps writing it. The shared phrases of the
criteria (the majority rule, the within-the-CI rule) are ``claims.yaml``'s
``rules``, passed to every text as ``rules``.
"""
from __future__ import annotations

from simlib.claims import CLAIM, MIN_UNITS, Claim
from simlib.render import render_string, template_data

__all__ = ["claim", "SEED_UNIT"]

#: The unit of replication of every statistic over runs: one seed is one
#: random Lublin workload, on which every scheduler and variant runs (paired).
SEED_UNIT = "seed (workload)"


def claim(template: str, verdict, *, unit: str, n, key: str | None = None, kind: str = CLAIM,
          **values) -> Claim:
    """Claim ``template`` of ``claims.yaml``, each text rendered with ``values``.

    ``key`` (the claim's stable name, :attr:`simlib.claims.Claim.key`)
    defaults to ``template``; ``unit`` and ``n`` are the unit of replication
    and how many there are ("-" for a deterministic check).
    """
    data = template_data(__package__, "claims.yaml")
    texts = data[template]
    values = {"min_units": MIN_UNITS, **values}
    values["rules"] = {k: render_string(v, **values) for k, v in data["rules"].items()}
    rendered = {k: render_string(v, **values) for k, v in texts.items()}
    return Claim("zeng", verdict=verdict, unit=unit, n=str(n), kind=kind, key=key or template,
                 **rendered)
