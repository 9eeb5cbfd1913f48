"""A document result as plain text, page by page: the blocks' text in reading order, a blank line
between blocks (a paragraph's parts in two columns are one) and a form feed between pages (as
pdftotext writes them), tables as tab-separated rows. Running headers and footers are left out,
as in the Markdown."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ocrqueue.documents.model import Block, PageResult
from ocrqueue.documents.output.paragraphs import joined_paragraphs

PAGE_BREAK = "\f"


def block_text(block: Block) -> str:
    if block.table is not None:
        return "\n".join("\t".join(cell.replace("\n", " ") for cell in row) for row in block.table.grid())
    if block.type == "formula" and not block.text.strip() and block.latex:
        return block.latex
    return block.text


def page_text(page: PageResult) -> str:
    parts = (block_text(b) for b in joined_paragraphs(page.blocks) if b.type not in ("header", "footer"))
    return "\n\n".join(part for part in parts if part.strip())


def text_chunks(pages: Iterable[PageResult]) -> Iterator[str]:
    """The text of each page as it comes, pages separated by a form feed; ends with a newline."""
    first = True
    for page in pages:
        yield ("" if first else "\n" + PAGE_BREAK) + page_text(page)
        first = False
    if not first:
        yield "\n"
