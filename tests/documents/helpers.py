"""Run the whole pipeline on one sample; compare two readings of it."""

from __future__ import annotations

from typing import Any

from ocrqueue.documents import DocumentResult, PipelineResources, ProcessOptions, assemble, open_document, process_page


def run(data: bytes, resources: PipelineResources | None = None, **options: object) -> DocumentResult:
    opts = ProcessOptions(**options)  # type: ignore[arg-type]
    with open_document(data) as doc:
        return assemble(doc.meta, [process_page(page, opts, resources) for page in doc.pages()])


def unmeasured(result: DocumentResult) -> dict[str, Any]:
    """The result's JSON without what is measured (each page's stage timings): two readings of
    the same input must be equal in all of it."""
    document = result.to_dict()
    for page in document["pages"]:
        del page["timings"]
    return document
