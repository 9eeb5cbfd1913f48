"""Converting a file on this machine, without a queue: `ocrqueue convert`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ocrqueue.documents import DocumentError, DocumentLimits, ProcessOptions, assemble, open_document, process_page
from ocrqueue.service.errors import InvalidInput


@dataclass(frozen=True)
class Converted:
    markdown: str
    """Figure links are the figures' file names: write `images` beside it and it opens with them."""
    json: str
    images: dict[str, bytes]


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
    return Converted(result.to_markdown(), result.to_json(indent=2), result.images)
