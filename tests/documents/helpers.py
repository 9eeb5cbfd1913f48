"""Run the whole pipeline on one sample."""

from __future__ import annotations

from ocrqueue.documents import DocumentResult, ProcessOptions, assemble, open_document, process_page


def run(data: bytes, **options: object) -> DocumentResult:
    opts = ProcessOptions(**options)  # type: ignore[arg-type]
    with open_document(data) as doc:
        return assemble(doc.meta, [process_page(page, opts) for page in doc.pages()])
