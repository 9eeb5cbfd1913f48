"""The OCR task kind: streams a stored document's pages through the pipeline under the task's lease.

Each finished page is checkpointed (its JSON in the database, its figure crops in storage) before
progress is reported, so a retried or recovered attempt resumes at the first unfinished page. The
final result is assembled from the checkpoints alone, whichever attempts produced them.
"""

from __future__ import annotations

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    PageResult,
    assemble,
    open_document,
    process_page,
)
from ocrqueue.queue import PermanentError, TaskContext
from ocrqueue.queue.models import JSON
from ocrqueue.service.keys import asset_key, result_json_key, result_markdown_key
from ocrqueue.service.payloads import OcrPayload, PayloadError
from ocrqueue.storage import ObjectNotFoundError, Storage

OCR_KIND = "ocr"


class OcrTask:
    """Handler for tasks of kind `ocr` (payload: `OcrPayload`)."""

    def __init__(self, storage: Storage, limits: DocumentLimits) -> None:
        self.storage = storage
        self.limits = limits

    def __call__(self, ctx: TaskContext) -> JSON:
        try:
            payload = OcrPayload.from_json(ctx.payload)
            data = self.storage.get(payload.input)
        except PayloadError as exc:
            raise PermanentError(str(exc)) from exc
        except ObjectNotFoundError as exc:
            raise PermanentError(f"the uploaded file {payload.input} is missing from storage") from exc
        options = payload.options
        done = {seq: PageResult.from_dict(page) for seq, page in ctx.checkpoints.items()}
        try:
            with open_document(data, self.limits) as document:
                meta = document.meta
                total = meta.page_count
                ctx.report_progress(len(done), total, "resuming" if done else "starting")
                first_missing = next((i for i in range(total) if i not in done), total)
                for page in document.pages(start=first_missing):
                    if page.index in done:
                        continue
                    ctx.raise_if_cancelled()
                    result = process_page(page, options)
                    for name, image in result.images.items():
                        self.storage.put(asset_key(ctx.task.id, name), image)
                    ctx.save_checkpoint(page.index, result.to_dict())
                    done[page.index] = result
                    ctx.report_progress(len(done), total, f"page {page.index + 1} of {total}")
        except DocumentError as exc:
            raise PermanentError(str(exc)) from exc
        document_result = assemble(meta, done.values())
        self.storage.put(result_json_key(ctx.task.id), document_result.to_json().encode())
        self.storage.put(result_markdown_key(ctx.task.id), document_result.to_markdown().encode())
        return {
            "json": result_json_key(ctx.task.id),
            "markdown": result_markdown_key(ctx.task.id),
            "pages": total,
            "paths": sorted({p.source for p in document_result.pages}),
        }
