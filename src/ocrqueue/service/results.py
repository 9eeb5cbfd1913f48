"""An OCR task's result in each format: Markdown and JSON as the task wrote them, the searchable PDF
made from the JSON and the upload on first request and then kept next to them."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from typing import Any, Literal

from ocrqueue.documents import DocumentLimits, PageResult
from ocrqueue.documents.searchable_pdf import write_searchable_pdf
from ocrqueue.service.keys import result_json_key, result_markdown_key, result_pdf_key
from ocrqueue.storage import ObjectNotFoundError, Storage

ResultFormat = Literal["markdown", "json", "pdf"]
MEDIA_TYPES: dict[str, str] = {"markdown": "text/markdown", "json": "application/json", "pdf": "application/pdf"}
FILE_SUFFIXES: dict[str, str] = {"markdown": ".md", "json": ".json", "pdf": ".pdf"}
_PDF_MAX_BYTES = 1 << 40


class ResultMissingError(Exception):
    """The task's stored result or upload is gone (deleted, or storage lost it)."""


def result_bytes(storage: Storage, task_id: str, payload: Any, fmt: ResultFormat, limits: DocumentLimits) -> bytes:
    """The completed OCR task's result in `fmt`; `payload` is the task's (it names the upload)."""
    try:
        if fmt == "markdown":
            return storage.get(result_markdown_key(task_id))
        if fmt == "json":
            return storage.get(result_json_key(task_id))
        return _searchable_pdf(storage, task_id, payload, limits)
    except ObjectNotFoundError as exc:
        raise ResultMissingError(f"the {fmt} result of task {task_id} is no longer stored") from exc


def _searchable_pdf(storage: Storage, task_id: str, payload: Any, limits: DocumentLimits) -> bytes:
    key = result_pdf_key(task_id)
    try:
        return storage.get(key)
    except ObjectNotFoundError:
        pass
    source = storage.get(payload["input"])
    document = json.loads(storage.get(result_json_key(task_id)))
    with tempfile.TemporaryFile() as spool:
        write_searchable_pdf(source, _pages(document), spool, limits)
        spool.seek(0)
        storage.put_stream(key, spool, _PDF_MAX_BYTES)
    return storage.get(key)


def _pages(document: dict[str, Any]) -> Iterator[PageResult]:
    for page in document["pages"]:
        yield PageResult.from_dict(page)
