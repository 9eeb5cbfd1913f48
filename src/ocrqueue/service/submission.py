"""Turning an uploaded file into an OCR task: stored for that task, deduplicated by content and options."""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO

from ocrqueue.documents import DocumentError, ProcessOptions, count_pages
from ocrqueue.queue import Store, SubmitResult, TaskSpec
from ocrqueue.queue.errors import out_of_space
from ocrqueue.service.ocr_task import OCR_KIND
from ocrqueue.service.payloads import OcrPayload
from ocrqueue.service.storage_keys import new_upload_key
from ocrqueue.storage import Storage, StorageFullError, TooLargeUploadError

_CHUNK = 1 << 20
_SPOOL_IN_MEMORY = 8 << 20


@dataclass(frozen=True)
class Submission:
    filename: str
    options: ProcessOptions
    priority: int = 0
    max_attempts: int | None = None
    tenant: str | None = None
    idempotency_key: str | None = None
    force: bool = False
    """A new run even when the same content and options were submitted before."""
    request_id: str | None = None
    """The HTTP request that submits it, recorded on the task's `submitted` event."""


def request_note(request_id: str | None) -> dict[str, str] | None:
    """The detail of a task event caused by an HTTP request: which one, for tying logs to tasks."""
    return None if request_id is None else {"request_id": request_id}


def dedup_key(sha256: str, options: ProcessOptions, tenant: str | None) -> str:
    canonical = json.dumps(options.to_dict(), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(f"{sha256}\n{canonical}".encode()).hexdigest()
    return f"doc:{tenant or ''}:{digest}"


@dataclass(frozen=True)
class Staged:
    """An upload stored for a task not yet submitted: `upload` is its storage key."""

    spec: TaskSpec
    upload: str


def submit_document(
    store: Store, storage: Storage, stream: BinaryIO, submission: Submission, max_bytes: int
) -> SubmitResult:
    """Hash while spooling (never the whole file in memory), store the file, then submit.

    Raises TooLargeUploadError past `max_bytes` before anything is stored.
    """
    return submit_staged(store, storage, stage_document(storage, stream, submission, max_bytes))


def stage_document(storage: Storage, stream: BinaryIO, submission: Submission, max_bytes: int) -> Staged:
    """Check, hash and store the file for a task, without submitting it yet (several files of one
    request are all staged before any is submitted). Raises TooLargeUploadError past `max_bytes`
    and PageRangeError for pages the file does not have, before anything is stored."""
    digest = hashlib.sha256()
    size = 0
    with _new_spool(named=submission.options.pages is not None) as spool:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > max_bytes:
                raise TooLargeUploadError(max_bytes)
            digest.update(chunk)
            spool.write(chunk)
        sha256 = digest.hexdigest()
        spool.flush()
        _check_page_selection(submission.options, spool)
        # Each task owns its upload (deleting a task deletes its file); a submit that finds an
        # existing task removes the copy it staged.
        key = new_upload_key()
        spool.seek(0)
        storage.put_stream(key, spool, max_bytes)  # type: ignore[arg-type]
    if submission.idempotency_key is not None:
        key_for_dedup: str | None = idempotency_dedup_key(submission.tenant, submission.idempotency_key)
    elif submission.force:
        key_for_dedup = None
    else:
        key_for_dedup = dedup_key(sha256, submission.options, submission.tenant)
    payload = OcrPayload(key, submission.filename, submission.options, sha256=sha256, size=size)
    spec = TaskSpec(
        OCR_KIND,
        payload.to_json(),
        priority=submission.priority,
        max_attempts=submission.max_attempts,
        dedup_key=key_for_dedup,
        tenant=submission.tenant,
        note=request_note(submission.request_id),
    )
    return Staged(spec, key)


def submit_staged(store: Store, storage: Storage, staged: Staged) -> SubmitResult:
    return submit_owning_upload(store, storage, staged.spec, staged.upload)


def _new_spool(named: bool) -> IO[bytes]:
    """A named file when the upload must be opened by path (a page selection is checked against the
    pages PDFium counts); otherwise memory for small uploads, a file past that."""
    if named:
        return tempfile.NamedTemporaryFile(prefix="ocrqueue-upload-")
    return tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)


def _check_page_selection(options: ProcessOptions, spool: IO[bytes]) -> None:
    """Refuse pages the file does not have (PageRangeError) before anything is stored. A file that
    cannot even be counted is left to the worker, which dead-letters it with the reason."""
    selection = options.page_selection
    if selection is None:
        return
    try:
        count = count_pages(Path(spool.name))
    except DocumentError:
        return
    selection.check(count)


def idempotency_dedup_key(tenant: str | None, idempotency_key: str) -> str:
    """A client-chosen key, kept apart per tenant and from content-derived keys."""
    return f"idem:{tenant or ''}:{idempotency_key}"


def submit_owning_upload(store: Store, storage: Storage, spec: TaskSpec, upload: str) -> SubmitResult:
    """Submit a task that owns the stored `upload`: a submit that fails, or finds an existing task
    by its dedup key, removes the copy it staged. A database with no space left raises
    `StorageFullError`, like a full storage, so the client hears "no space" instead of a bare 500."""
    try:
        result = store.submit(spec)
    except BaseException as exc:
        storage.delete_prefix(upload)
        if out_of_space(exc):
            raise StorageFullError("no space left in the database for a new task") from exc
        raise
    if not result.created:
        storage.delete_prefix(upload)
    return result
