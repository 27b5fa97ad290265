"""Reading a saved figure back: the entries of its legends, from the SVG.

Matplotlib's SVG writer draws text as glyph paths (``svg.fonttype: path``)
but keeps each string as an XML comment, and writes each legend entry's
line before its label: enough to tell which colour a legend gives a label.
"""
from __future__ import annotations

import re
from pathlib import Path

from matplotlib.colors import to_hex

from simlib.figures.styles import USER_COLORS

_ENTRY = re.compile(r'stroke: (#[0-9a-f]{6})|<!-- (.*?) -->')


def legend_entries(svg: str | Path) -> list[tuple[str, str]]:
    """Every legend entry of an SVG figure: (label, colour as #rrggbb), legend by legend."""
    text = Path(svg).read_text(encoding="utf-8")
    out = []
    for start in [m.end() for m in re.finditer(r'<g id="legend_\d+">', text)]:
        # A legend's group ends where the next top-level group of the axes starts.
        end = min([i for i in (text.find('<g id="axes_', start), text.find('<g id="legend_', start))
                   if i > 0] or [len(text)])
        colour = None
        for stroke, label in _ENTRY.findall(text[start:end]):
            if stroke:
                colour = stroke
            elif colour is not None:
                out.append((label, colour))
                colour = None
    return out


def assert_user_styles(svg: str | Path, user: list[str], paper_labels=None) -> None:
    """Every ``user`` policy is named in the legends of ``svg`` in a reserved user colour,
    one colour per policy, and no other entry uses a user colour."""
    reserved = {to_hex(c) for c in USER_COLORS}
    entries = legend_entries(svg)
    named = {label: colour for label, colour in entries if label in user}
    assert set(named) == set(user), f"{svg}: legend names {sorted(named)}, not {sorted(user)}"
    assert all(c in reserved for c in named.values()), f"{svg}: {named}"
    assert len(set(named.values())) == len(user), f"{svg}: two user policies share a colour"
    others = [(label, c) for label, c in entries if label not in user and c in reserved]
    assert not others, f"{svg}: a paper entry in a user colour: {others}"


def drawn_colours(png: str | Path, colours, min_pixels: int = 20) -> list[bool]:
    """Whether each of ``colours`` fills at least ``min_pixels`` pixels of a PNG exactly
    (a line's core pixels keep its colour; anti-aliased edges do not)."""
    import numpy as np
    from matplotlib.colors import to_rgb
    from matplotlib.image import imread

    rgb = np.round(imread(str(png))[..., :3] * 255).astype(int)
    out = []
    for c in colours:
        want = np.round(np.array(to_rgb(c)) * 255).astype(int)
        out.append(int(np.all(rgb == want, axis=-1).sum()) >= min_pixels)
    return out
