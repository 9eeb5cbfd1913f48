"""Render blocks as Markdown. Document text is always data: anything that Markdown or HTML would
interpret (tags, emphasis, headings, links, table pipes) is escaped, so an uploaded page that says
``<script>`` shows those characters and never injects markup into a viewer."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from ocrqueue.documents.model import Block, PageResult, Table

_INLINE = re.compile(r"([\\`*_\[\]{}()#+!|~])")
# Line starts that would open a block: list bullets and ordered-list numbers (only before a space
# or the line end), setext underlines and block quotes.
_BULLET = re.compile(r"^(\s*)([-+])(?=\s|$)")
_ORDERED = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")
_SETEXT = re.compile(r"^(\s*)(=+\s*)$")


def escape_inline(text: str) -> str:
    """HTML entities for <, > and &, backslashes before Markdown's inline punctuation."""
    return _INLINE.sub(r"\\\1", html.escape(text, quote=False))


def _escape_line(line: str) -> str:
    line = _BULLET.sub(r"\1\\\2", line)
    line = _ORDERED.sub(r"\1\\\2", line)
    return _SETEXT.sub(r"\1\\\2", line)


def escape(text: str) -> str:
    """Escape a paragraph of document text so Markdown shows it verbatim."""
    return "\n".join(_escape_line(line) for line in escape_inline(text).split("\n"))


def _cell(text: str) -> str:
    return escape_inline(text).replace("\n", " ")


def table_markdown(table: Table) -> str:
    """A pipe table when every cell is a plain single cell, otherwise an HTML table with spans."""
    if not table.has_spans and table.n_rows >= 1:
        rows = table.grid()
        lines = ["| " + " | ".join(_cell(c) for c in rows[0]) + " |", "|" + "---|" * table.n_cols]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[1:]]
        return "\n".join(lines)
    out = ["<table>"]
    for r in range(table.n_rows):
        out.append("<tr>")
        for cell in (c for c in table.cells if c.row == r):
            attrs = (f' rowspan="{cell.row_span}"' if cell.row_span > 1 else "") + (
                f' colspan="{cell.col_span}"' if cell.col_span > 1 else ""
            )
            out.append(f"<td{attrs}>{html.escape(cell.text)}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "\n".join(out)


def block_markdown(block: Block) -> str:
    if block.type == "title":
        return "#" * min(6, block.level or 1) + " " + escape(block.text).replace("\n", " ")
    if block.type == "list":
        return "\n".join(f"- {escape(item)}" for item in block.text.split("\n"))
    if block.type == "table" and block.table is not None:
        return table_markdown(block.table)
    if block.type == "formula" and block.latex:
        return f"$$\n{block.latex}\n$$"
    if block.type == "figure" and block.image:
        alt = escape(block.text).replace("\n", " ") or "figure"
        return f"![{alt}]({block.image})"
    if block.type == "caption":
        return f"*{escape(block.text)}*"
    return escape(block.text)


def page_markdown_parts(page: PageResult, include_headers: bool = False) -> list[str]:
    """A page's blocks as Markdown paragraphs (joined by blank lines); running headers and footers
    only when asked for."""
    parts: list[str] = []
    for block in page.blocks:
        if block.type in ("header", "footer") and not include_headers:
            continue
        text = block_markdown(block)
        if text.strip():
            parts.append(text)
    return parts


def render_markdown(pages: Iterable[PageResult], include_headers: bool = False) -> str:
    """Markdown of all pages in order (see `page_markdown_parts`)."""
    parts = [part for page in pages for part in page_markdown_parts(page, include_headers)]
    return "\n\n".join(parts) + "\n" if parts else ""
