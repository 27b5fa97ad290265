"""HTML pages and captions of the artifacts for ``snakemake --report``.

Snakemake's report shows images and HTML inline and offers every other file
as a download only. So each Markdown table, CSV table, README, cleaning log
and result cube of ``paper_figures/`` gets an HTML rendering under
``results/report/`` (the artifacts themselves stay as they are), and every
artifact gets a caption of its own (title, producing rule, scale, the
paper's verdicts checked on it) written there too.

The Markdown converter knows only what our templates write: headings,
paragraphs, lists, pipe tables, fenced and indented code, inline code,
emphasis, links and images. A relative link names a file of the repository,
which the report cannot open: it becomes its text and repository path. An
image of a README is embedded, so the page stands alone.

Examples
--------
>>> print(markdown_html("# T\\n\\n| a | b |\\n|---|--:|\\n| 1 | `x` |\\n", base="paper_figures/u").rstrip())
<h1>T</h1>
<table>
<thead><tr><th>a</th><th style="text-align:right">b</th></tr></thead>
<tbody>
<tr><td>1</td><td style="text-align:right"><code>x</code></td></tr>
</tbody>
</table>
"""
from __future__ import annotations

import base64
import csv
import html
import io
import mimetypes
import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["artifact_claims", "csv_html", "cube_html", "markdown_html", "page_body", "rendered_path",
           "rst_text", "source_link", "verdict_counts", "caption_rst", "page_html"]

#: Suffixes shown through an HTML rendering; images are reported as they are.
RENDERED = (".md", ".csv", ".txt", ".nc", ".json", ".xml")
#: Sources up to this size are embedded in their page as a download link.
EMBED_LIMIT = 4_000_000

_TABLE_SEP = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_LIST = re.compile(r"^(\s*)([-*]|\d+\.)\s+(.*)$")
_INLINE = re.compile(r"`([^`]+)`|!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)"
                     r"|\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


def rendered_path(path: str) -> str:
    """Where the report's HTML rendering of an artifact lives."""
    return f"results/report/{path}.html"


def _data_uri(path: Path) -> str:
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode()}"


def _target(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(base, href.split("#")[0])) if href else base


def _inline(text: str, base: str, root: Path | None) -> str:
    """One line's Markdown inline markup as HTML, everything else escaped."""
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[pos:m.start()], quote=False))
        pos = m.end()
        code, alt, src, label, href, strong, em = m.groups()
        if code is not None:
            out.append(f"<code>{html.escape(code, quote=False)}</code>")
        elif src is not None:
            out.append(_image(alt, _target(base, src), root))
        elif href is not None:
            out.append(_link(label, href, base, root))
        elif strong is not None:
            out.append(f"<strong>{_inline(strong, base, root)}</strong>")
        else:
            out.append(f"<em>{_inline(em, base, root)}</em>")
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def _link(label: str, href: str, base: str, root: Path | None) -> str:
    if re.match(r"^[a-z]+:", href) or href.startswith("#"):
        return f'<a href="{html.escape(href)}" target="_blank">{_inline(label, base, root)}</a>'
    # A file of the repository: its path, which the reader finds in the
    # report (same name) or in the repository; no link that would break.
    path = _target(base, href)
    text = _inline(label, base, root)
    if f"<code>{html.escape(path)}</code>" == text:
        return text
    return f'{text} <span class="path">(<code>{html.escape(path)}</code>)</span>'


def _image(alt: str, path: str, root: Path | None) -> str:
    file = root / path if root is not None else None
    if file is None or not file.is_file() or file.stat().st_size > EMBED_LIMIT:
        return f'<span class="path">[image <code>{html.escape(path)}</code>]</span>'
    return f'<img src="{_data_uri(file)}" alt="{html.escape(alt)}">'


def _cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def _table(lines: Sequence[str], base: str, root: Path | None) -> list[str]:
    aligns = []
    for spec in _cells(lines[1]):
        right, left = spec.endswith(":"), spec.startswith(":")
        aligns.append(' style="text-align:center"' if right and left
                      else ' style="text-align:right"' if right else "")

    def row(line, tag):
        cells = _cells(line)
        return "<tr>" + "".join(
            f"<{tag}{aligns[i] if i < len(aligns) else ''}>{_inline(c, base, root)}</{tag}>"
            for i, c in enumerate(cells)) + "</tr>"
    return ["<table>", f"<thead>{row(lines[0], 'th')}</thead>", "<tbody>",
            *(row(line, "td") for line in lines[2:]), "</tbody>", "</table>"]


def _list(lines: Sequence[str], base: str, root: Path | None) -> list[str]:
    """A list, nested by indentation; a continuation line joins its item."""
    out, stack = [], []   # stack: (indent, tag)
    for line in lines:
        m = _LIST.match(line)
        if not m:
            out[-1] = out[-1][:-len("</li>")] + " " + _inline(line.strip(), base, root) + "</li>"
            continue
        indent, tag = len(m.group(1)), "ol" if m.group(2)[0].isdigit() else "ul"
        while stack and indent < stack[-1][0]:
            out.append(f"</{stack.pop()[1]}>")
        if not stack or indent > stack[-1][0]:
            stack.append((indent, tag))
            out.append(f"<{tag}>")
        out.append(f"<li>{_inline(m.group(3), base, root)}</li>")
    out += [f"</{tag}>" for _, tag in reversed(stack)]
    return out


def _block_end(lines: Sequence[str], i: int, keep) -> int:
    while i < len(lines) and keep(lines[i]):
        i += 1
    return i


def markdown_html(text: str, *, base: str = ".", root: Path | None = None) -> str:
    """HTML of our Markdown (see the module's description).

    Parameters
    ----------
    text : str
    base : str
        Folder of the file, relative to the repository (resolves its links).
    root : path-like, optional
        The working directory holding the linked images; None: images are named.
    """
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            end = _block_end(lines, i + 1, lambda s: not s.startswith("```"))
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:end])) + "</code></pre>")
            i = end + 1
        elif line.startswith("    "):
            end = _block_end(lines, i, lambda s: s.startswith("    ") or not s.strip())
            out.append("<pre><code>" + html.escape("\n".join(s[4:] for s in lines[i:end]).strip("\n"))
                       + "</code></pre>")
            i = end
        elif m := re.match(r"^(#{1,6})\s+(.*)$", line):
            level = len(m.group(1))
            out.append(f"<h{level}>{_inline(m.group(2), base, root)}</h{level}>")
            i += 1
        elif line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]):
            end = _block_end(lines, i + 2, lambda s: s.lstrip().startswith("|"))
            out += _table(lines[i:end], base, root)
            i = end
        elif _LIST.match(line):
            end = _block_end(lines, i + 1, lambda s: s.strip() and (_LIST.match(s) or s[:1] == " "))
            out += _list(lines[i:end], base, root)
            i = end
        else:
            end = _block_end(lines, i + 1, lambda s: s.strip() and not _starts_block(s))
            out.append("<p>" + " ".join(_inline(s.strip(), base, root) for s in lines[i:end]) + "</p>")
            i = end
    return "\n".join(out) + "\n"


def _starts_block(line: str) -> bool:
    return bool(line.startswith(("#", "```", "|")) or _LIST.match(line))


def csv_html(text: str) -> str:
    """An HTML table of CSV text (header row first), cells escaped, numbers right-aligned."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return "<p>(empty table)</p>\n"

    def cell(value, tag):
        number = re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|nan|inf", value.strip())
        style = ' style="text-align:right"' if number and tag == "td" else ""
        return f"<{tag}{style}>{html.escape(value, quote=False)}</{tag}>"
    head = "<tr>" + "".join(cell(v, "th") for v in rows[0]) + "</tr>"
    body = ["<tr>" + "".join(cell(v, "td") for v in r) + "</tr>" for r in rows[1:]]
    return "\n".join(["<table>", f"<thead>{head}</thead>", "<tbody>", *body, "</tbody>",
                      "</table>"]) + "\n"


def cube_html(path: Path) -> str:
    """A result cube's dimensions, variables (with units) and attributes, as xarray prints them."""
    import xarray as xr
    with xr.open_dataset(path) as ds:
        text = repr(ds)
    return f"<pre><code>{html.escape(text)}</code></pre>\n"


def page_body(path: str, root: Path) -> str:
    """The HTML body showing artifact ``path`` (relative to ``root``, the working directory)."""
    file = root / path
    suffix = file.suffix
    if suffix == ".md":
        return markdown_html(file.read_text(encoding="utf-8"), base=posixpath.dirname(path), root=root)
    if suffix == ".csv":
        return csv_html(file.read_text(encoding="utf-8"))
    if suffix == ".nc":
        return cube_html(file)
    return f"<pre><code>{html.escape(file.read_text(encoding='utf-8'))}</code></pre>\n"


def source_link(path: str, root: Path) -> str | None:
    """A data URI of the artifact for the page's download link, or None when too large."""
    file = root / path
    return _data_uri(file) if file.stat().st_size <= EMBED_LIMIT else None


def artifact_claims(path: str, claims: Sequence[Mapping[str, str]]) -> list[Mapping[str, str]]:
    """The claims checked on one artifact: those whose ``figure`` column names it.

    The column holds a file name, a stem, or the stem's prefix up to an
    underscore (``fig1`` for ``fig1_easy_vs_los_sdsc.png``) when no claim names
    the stem itself; a README or claims file carries every claim of its paper.

    Examples
    --------
    >>> rows = [{"figure": "fig1"}, {"figure": "fig1_sensitivity"}, {"figure": "fig3.png"}]
    >>> [len(artifact_claims(p, rows)) for p in
    ...  ("k/fig1_easy.png", "k/fig1_sensitivity.md", "k/fig3.svg", "k/README.md", "k/t.md")]
    [1, 1, 1, 3, 0]
    """
    name = Path(path).name
    if name in ("README.md", "claims.csv"):
        return list(claims)
    stem = name.split(".")[0]
    keys = [Path(c.get("figure") or "").name.split(".")[0] for c in claims]
    exact = [c for c, k in zip(claims, keys) if k == stem]
    if exact:
        return exact
    return [c for c, k in zip(claims, keys) if k and stem.startswith(k + "_")]


def verdict_counts(claims: Sequence[Mapping[str, str]]) -> list[tuple[str, int]]:
    """(verdict, count) in order of first appearance."""
    return list(Counter(c["verdict"] for c in claims).items())


def rst_text(text: str) -> str:
    """Text set in reStructuredText as it is: markup characters escaped."""
    return re.sub(r"([\\`*_|<>\[\]])", r"\\\1", text)


def caption_rst(entry: Mapping[str, str], *, rule: str, scale: str, scale_description: str,
                family: str, study: str, claims: Sequence[Mapping[str, str]]) -> str:
    """The report caption of one artifact (``simlib/templates/report_caption.rst.j2``).

    Snakemake reads a caption as a Jinja template before docutils: the raw
    block keeps our text (titles, descriptions) from being read as Jinja.
    """
    from .render import render
    text = render("simlib", "report_caption.rst.j2", title=rst_text(entry["title"]),
                  path=entry["path"], rule=rule, scale=scale,
                  scale_description=rst_text(scale_description), family=family,
                  study=rst_text(study), verdicts=verdict_counts(artifact_claims(entry["path"], claims)),
                  rendered=Path(entry["path"]).suffix in RENDERED)
    return "{% raw %}\n" + text + "{% endraw %}\n"


def page_html(entry: Mapping[str, str], root: Path, scale: str) -> str:
    """The HTML rendering of one artifact (``simlib/templates/report_page.html.j2``)."""
    from .render import render
    return render("simlib", "report_page.html.j2", title=entry["title"], path=entry["path"],
                  scale=scale, body=page_body(entry["path"], root),
                  source=source_link(entry["path"], root))
