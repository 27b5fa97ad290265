"""The one place a benchmark script writes its section of a results file.

Each script owns the text between its two markers (``<!-- name: begin -->``
and ``<!-- name: end -->``) in ``benchmarks/RESULTS.md`` (or the file it is
given): a run replaces that section and leaves the rest of the file as it
is; a file without the section gets it at its end.
"""
from __future__ import annotations

from pathlib import Path


def write_section(path: Path, section: str, begin: str, end: str) -> None:
    """Put ``section`` (its markers included) in place of ``path``'s section.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "R.md"
    >>> _ = p.write_text("# R\\n\\n<!-- b -->\\nold\\n<!-- e -->\\nkept\\n")
    >>> write_section(p, "<!-- b -->\\nnew\\n<!-- e -->", "<!-- b -->", "<!-- e -->")
    >>> p.read_text()
    '# R\\n\\n<!-- b -->\\nnew\\n<!-- e -->\\nkept\\n'
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")
