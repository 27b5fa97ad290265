"""Line styles of policies: each paper policy keeps its own, a user's policies get reserved ones.

A study's figure module fixes the style of each of its paper's policies
(colour, marker) by name, so adding a policy never moves another's; any
other policy in a cube is a user's (config ``extra_policies``) and draws
from colours, markers and a line style that no paper policy uses in any
figure of the repository (:data:`USER_COLORS`, :data:`USER_MARKERS`,
:data:`USER_LINESTYLE`), in the order the cube lists them.

Examples
--------
>>> paper = {"easy": {"color": "tab:blue", "marker": "s"}}
>>> styles = policy_styles(["easy", "sjf_easy"], paper)
>>> styles["easy"]["color"], styles["sjf_easy"]["color"], styles["sjf_easy"]["marker"]
('tab:blue', 'tab:purple', 'P')
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["USER_COLORS", "USER_MARKERS", "USER_LINESTYLE", "user_style", "policy_styles",
           "is_user_style"]

#: Colours of no paper policy's line or bar (the papers' figures use blue,
#: orange, green, red, olive, gray and black).
USER_COLORS = ("tab:purple", "tab:brown", "tab:pink", "tab:cyan", "indigo", "darkgoldenrod")
#: Markers of no paper policy (theirs: o, s, D, ^, x).
USER_MARKERS = ("P", "X", "*", "h", "p", "<")
#: Dash-dot: the papers' policies are drawn solid, dashed or dotted.
USER_LINESTYLE = "-."


def user_style(k: int) -> dict:
    """Style of the ``k``-th user policy (0-based): a colour and marker pair no other k shares
    below 36.

    Examples
    --------
    >>> user_style(0), user_style(7)["marker"]
    ({'color': 'tab:purple', 'marker': 'P', 'linestyle': '-.'}, '*')
    """
    n = len(USER_COLORS)
    return {"color": USER_COLORS[k % n], "marker": USER_MARKERS[(k + k // n) % len(USER_MARKERS)],
            "linestyle": USER_LINESTYLE}


def policy_styles(policies: Iterable[str], paper: Mapping[str, Mapping]) -> dict[str, dict]:
    """Style of each of ``policies``: ``paper[name]`` for a paper policy, else the next user style.

    Returns copies (the caller may add keys such as a label).
    """
    out: dict[str, dict] = {}
    k = 0
    for name in policies:
        if name in paper:
            out[name] = dict(paper[name])
        else:
            out[name] = user_style(k)
            k += 1
    return out


def is_user_style(color, marker) -> bool:
    """Whether a (colour, marker) pair is one of the user styles (for tests of legends).

    Colours are compared as RGBA, so ``"tab:purple"`` and its hex are the same.

    Examples
    --------
    >>> is_user_style("#9467bd", "P"), is_user_style("tab:blue", "P")
    (True, False)
    """
    from matplotlib.colors import to_rgba
    return (to_rgba(color) in {to_rgba(c) for c in USER_COLORS}
            and marker in USER_MARKERS)
