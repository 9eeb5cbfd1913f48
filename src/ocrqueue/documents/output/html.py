"""A document result as one complete HTML5 document, page by page. Document text is data: every
character of it is escaped, so a page that says ``<script>`` shows those characters. Each page is a
`<section>`; titles are `<h1>`-`<h6>` by their level, tables `<table>` with their spans, figures
`<img>` whose `src` is `figure_base` + the crop's file name, as the Markdown's links are. A block
of right-to-left text carries `dir="rtl"`."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

from ocrqueue.documents.bidi import has_rtl, logical_is_rtl
from ocrqueue.documents.model import Block, PageResult, Table
from ocrqueue.documents.output.languages import first_tag
from ocrqueue.documents.output.paragraphs import joined_paragraphs

_STYLE = (
    "body{font-family:sans-serif;max-width:50em;margin:auto;padding:1em;line-height:1.5}"
    "section.page{border-bottom:1px solid #ccc;padding-bottom:1em}"
    "table{border-collapse:collapse}td{border:1px solid #999;padding:.2em .4em;vertical-align:top}"
    "img{max-width:100%}.caption{font-style:italic}"
)


_CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def escape(text: str) -> str:
    """Text as HTML that shows it: markup characters escaped, and the control characters HTML
    cannot carry at all (not even as character references) left out."""
    return html.escape(_CONTROLS.sub("", text))


def _dir(text: str) -> str:
    """` dir="rtl"` for text that starts right to left (Arabic, Hebrew): a browser then lays it
    out from the right, with its numbers and Latin words in place; nothing for other text."""
    return ' dir="rtl"' if has_rtl(text) and logical_is_rtl(text) else ""


def _lines(text: str) -> str:
    return "<br>\n".join(escape(line) for line in text.split("\n"))


def table_html(table: Table) -> str:
    rows = []
    for r in range(table.n_rows):
        cells = []
        for cell in sorted((c for c in table.cells if c.row == r), key=lambda c: c.col):
            spans = (f' rowspan="{cell.row_span}"' if cell.row_span > 1 else "") + (
                f' colspan="{cell.col_span}"' if cell.col_span > 1 else ""
            )
            cells.append(f"<td{spans}{_dir(cell.text)}>{_lines(cell.text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>\n" + "\n".join(rows) + "\n</table>"


def block_html(block: Block, figure_base: str) -> str:
    if block.type == "title":
        level = min(6, max(1, block.level or 1))
        return f"<h{level}{_dir(block.text)}>{escape(block.text.replace(chr(10), ' '))}</h{level}>"
    if block.type == "list":
        items = (f"<li{_dir(item)}>{escape(item)}</li>" for item in block.text.split("\n"))
        return f"<ul{_dir(block.text)}>\n" + "\n".join(items) + "\n</ul>"
    if block.type == "code":
        return f"<pre><code>{escape(block.text)}</code></pre>"
    if block.table is not None:
        return table_html(block.table)
    if block.type == "formula" and block.latex:
        return f'<pre class="formula">{escape(block.latex)}</pre>'
    if block.type == "figure" and block.image:
        alt = block.text.split("\n", 1)[0] or "figure"
        return f'<figure><img src="{escape(figure_base + block.image)}" alt="{escape(alt)}"></figure>'
    if block.type == "caption":
        return f'<p class="caption"{_dir(block.text)}>{_lines(block.text)}</p>'
    return f"<p{_dir(block.text)}>{_lines(block.text)}</p>"


def page_html(page: PageResult, figure_base: str = "") -> str:
    tag = first_tag(page.languages)
    lang = f' lang="{escape(tag)}"' if tag else ""
    blocks = joined_paragraphs(page.blocks)
    parts = [block_html(b, figure_base) for b in blocks if b.type not in ("header", "footer") and _shown(b)]
    body = "\n".join(parts)
    return f'<section class="page" id="page-{page.index + 1}"{lang}>\n{body}\n</section>\n'


def _shown(block: Block) -> bool:
    return bool(block.text.strip() or block.image or block.latex or block.table)


def html_chunks(pages: Iterable[PageResult], title: str, figure_base: str = "") -> Iterator[str]:
    """The head, then each page's `<section>` as it comes, then the end of the document."""
    yield (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
    )
    for page in pages:
        yield page_html(page, figure_base)
    yield "</body>\n</html>\n"
