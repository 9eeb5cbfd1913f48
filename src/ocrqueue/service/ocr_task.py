"""The OCR task kind: streams a stored document's pages through the pipeline under the task's lease.

Each finished page is checkpointed (its JSON in the database, its figure crops in storage) before
progress is reported, so a retried or recovered attempt resumes at the first unfinished page. The
final result is assembled from the checkpoints alone, whichever attempts produced them.

Memory does not grow with the page count: the upload is copied to a local spool file that PDFium
reads as it needs, a resumed attempt asks only which pages are done, and the result is written
page by page from the checkpoints into spool files that are then streamed to storage.

A document of more than `split_pages` pages is read by child tasks of that many pages each, which
any worker claims (docs/queue.md, "Parents and children"): the task hands them its page ranges
and, once they have all completed, writes the result from their checkpoints, in page order. A
child reads its range and checkpoints it; its figure crops go under the parent's results.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    DocumentMeta,
    PageResult,
    PipelineResources,
    ProcessOptions,
    ResultWriter,
)
from ocrqueue.queue import PermanentError, Task, TaskContext, TaskSpec
from ocrqueue.queue.models import JSON, Checkpoint
from ocrqueue.service.page_reading import open_selected
from ocrqueue.service.payloads import OcrPayload, PayloadError
from ocrqueue.service.storage_keys import asset_key, result_json_key, result_markdown_key
from ocrqueue.service.work_metrics import page_read
from ocrqueue.storage import ObjectNotFoundError, Storage

OCR_KIND = "ocr"


class OcrTask:
    """Handler for tasks of kind `ocr` (payload: `OcrPayload`)."""

    def __init__(
        self,
        storage: Storage,
        limits: DocumentLimits,
        spool_dir: Path | None = None,
        split_pages: int = 0,
        resources: PipelineResources | None = None,
    ) -> None:
        self.storage = storage
        self.limits = limits
        self.spool_dir = spool_dir
        """Where uploads and results are spooled while a task runs (None: the system's temp directory)."""
        self.split_pages = split_pages
        """Documents of more pages are read by child tasks of this many pages each (0: never)."""
        self.resources = resources
        """The layout model and threads pages share (None: the process's default)."""

    def __call__(self, ctx: TaskContext) -> JSON:
        try:
            payload = OcrPayload.from_json(ctx.payload)
        except PayloadError as exc:
            raise PermanentError(str(exc)) from exc
        options = payload.options
        with tempfile.TemporaryDirectory(prefix="ocrqueue-task-", dir=self.spool_dir) as spool:
            try:
                source = self.storage.download(payload.input, Path(spool))
            except ObjectNotFoundError as exc:
                raise PermanentError(f"the uploaded file {payload.input} is missing from storage") from exc
            try:
                if ctx.is_parent:
                    meta, wanted = self._wanted(source, options)
                    pages = self._children_pages(ctx)
                else:
                    self._split_if_big(ctx, payload, source)
                    meta, wanted = self._read_pages(ctx, source, options)
                    if ctx.task.parent_id is not None:
                        return {"pages": len(wanted)}
                    pages = ctx.iter_checkpoints()
            except DocumentError as exc:
                raise PermanentError(str(exc)) from exc
            paths = self._write_result(ctx, meta, wanted, pages, Path(spool))
        result: dict[str, Any] = {
            "json": result_json_key(ctx.task.id),
            "markdown": result_markdown_key(ctx.task.id),
            "pages": len(wanted),
            "paths": sorted(paths),
        }
        if options.pages is not None:
            result["selected_pages"] = options.pages
        return result

    def _wanted(self, source: Path, options: ProcessOptions) -> tuple[DocumentMeta, list[int]]:
        with open_selected(source, options, self.limits) as selected:
            return selected.meta, selected.wanted

    def _split_if_big(self, ctx: TaskContext, payload: OcrPayload, source: Path) -> None:
        """Hand a big document's page ranges to child tasks (never returns when it does). A task
        that already saved pages (an attempt before splitting was configured) reads on alone."""
        if not self.split_pages or ctx.task.parent_id is not None or ctx.checkpointed():
            return
        _, wanted = self._wanted(source, payload.options)
        if len(wanted) <= self.split_pages:
            return
        ctx.report_progress(0, len(wanted), "splitting")
        parts = [wanted[i : i + self.split_pages] for i in range(0, len(wanted), self.split_pages)]
        ctx.fan_out([TaskSpec(OCR_KIND, payload.for_pages(part).to_json()) for part in parts])

    def _children_pages(self, ctx: TaskContext) -> Iterator[Checkpoint]:
        """Every child's checkpoints, children in order (each child's range follows the last)."""
        for child in ctx.children():
            yield from ctx.iter_checkpoints_of(child.id)

    def _read_pages(self, ctx: TaskContext, source: Path, options: ProcessOptions) -> tuple[DocumentMeta, list[int]]:
        """Read and checkpoint every wanted page not checkpointed yet; returns the meta and the pages."""
        done = ctx.checkpointed()
        owner = ctx.task.parent_id or ctx.task.id

        def store_image(name: str, image: bytes) -> None:
            self.storage.put(asset_key(owner, name), image)

        with open_selected(source, options, self.limits, self.resources) as selected:
            meta, wanted = selected.meta, selected.wanted
            finished = len(done.intersection(wanted))
            ctx.report_progress(finished, len(wanted), "resuming" if finished else "starting")
            for result in selected.read(store_image, done, ctx.raise_if_cancelled):
                ctx.save_checkpoint(result.index, result.to_dict())
                if result.doubts:
                    ctx.warn({"page": result.index + 1, "warnings": list(result.doubts)})
                page_read(result)
                finished += 1
                ctx.report_progress(finished, len(wanted), f"page {result.index + 1} of {meta.page_count}")
        return meta, wanted

    def _write_result(
        self, ctx: TaskContext, meta: DocumentMeta, wanted: list[int], pages: Iterator[Checkpoint], spool: Path
    ) -> set[str]:
        """Stream the checkpoints, in page order, into the JSON and Markdown results; returns the
        paths (text layer, OCR engines) the pages were read by."""
        json_path, markdown_path = spool / "document.json", spool / "document.md"
        selected = set(wanted)
        paths: set[str] = set()
        with (
            json_path.open("wb") as json_out,
            markdown_path.open("wb") as markdown_out,
            ResultWriter(meta, json_out, markdown_out, expected=wanted) as writer,
        ):
            for checkpoint in pages:
                if checkpoint.seq in selected:
                    page = PageResult.from_dict(checkpoint.data)
                    writer.add(page)
                    paths.add(page.source)
        self.storage.put_file(result_json_key(ctx.task.id), json_path)
        self.storage.put_file(result_markdown_key(ctx.task.id), markdown_path)
        return paths


def ocr_crash_message(task: Task, how: str) -> str:
    """What a supervisor records when the process reading `task` died: pages are read in order and
    each is counted in the progress once saved, so the page being read is the one after them."""
    try:
        selection = OcrPayload.from_json(task.payload).options.page_selection
    except PayloadError:
        selection = None
    done = task.progress_done
    page = done + 1 if selection is None else selection.number_at(done)
    return f"the OCR engine crashed on page {page} ({how})"
