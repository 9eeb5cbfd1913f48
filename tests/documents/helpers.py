"""Run the whole pipeline on one sample; compare two readings of it."""

from __future__ import annotations

from typing import Any

from support.results import without_timings

from ocrqueue.documents import DocumentResult, PipelineResources, ProcessOptions, assemble, open_document, process_page


def run(data: bytes, resources: PipelineResources | None = None, **options: object) -> DocumentResult:
    opts = ProcessOptions(**options)  # type: ignore[arg-type]
    with open_document(data) as doc:
        return assemble(doc.meta, [process_page(page, opts, resources) for page in doc.pages()])


def unmeasured(result: DocumentResult) -> dict[str, Any]:
    """The result's JSON without what is measured (stage timings): two readings must equal in it."""
    return without_timings(result.to_dict())
