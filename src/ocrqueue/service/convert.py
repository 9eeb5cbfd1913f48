"""Converting a file on this machine, without a queue: `ocrqueue convert`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    PageResult,
    ProcessOptions,
    assemble,
    open_document,
    process_page,
)
from ocrqueue.documents.searchable_pdf import write_searchable_pdf
from ocrqueue.service.errors import InvalidInput


@dataclass(frozen=True)
class Converted:
    markdown: str
    """Figure links are the figures' file names: write `images` beside it and it opens with them."""
    json: str
    images: dict[str, bytes]
    source: bytes
    pages: tuple[PageResult, ...]
    limits: DocumentLimits

    def write_searchable_pdf(self, out: BinaryIO) -> None:
        """The original pages with an invisible text layer (see documents/searchable_pdf.py)."""
        try:
            write_searchable_pdf(self.source, self.pages, out, self.limits)
        except DocumentError as exc:
            raise InvalidInput(exc.code, str(exc)) from exc


def convert_document(
    data: bytes,
    options: ProcessOptions,
    limits: DocumentLimits,
    *,
    on_opened: Callable[[int], None] = lambda pages: None,
    on_page: Callable[[], None] = lambda: None,
) -> Converted:
    """The document's result; `on_opened(page_count)` and `on_page()` follow the work.
    Raises InvalidInput when the file cannot be read (damaged, encrypted, over a limit...)."""
    try:
        with open_document(data, limits) as document:
            on_opened(document.meta.page_count)
            pages = []
            for page in document.pages():
                pages.append(process_page(page, options))
                on_page()
            result = assemble(document.meta, pages)
    except DocumentError as exc:
        raise InvalidInput(exc.code, str(exc)) from exc
    return Converted(result.to_markdown(), result.to_json(indent=2), result.images, data, result.pages, limits)
