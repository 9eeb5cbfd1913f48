"""The application service: everything a client can do with tasks, for the API and the CLI alike.

`Tasks` owns submit (OCR documents and vision questions), reads (one task, its history, lists),
results in each format, page images and figure assets, cancel, retry, delete and prune. Visibility
is by tenant: a call given a tenant sees only that tenant's tasks and gets NotFound for others
(so ids reveal nothing); a call without one (the local operator, the CLI) sees every task.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any, BinaryIO

from ocrqueue.documents import DocumentError, InputFormat, PageRangeError, sniff_format
from ocrqueue.documents.input.images import open_image
from ocrqueue.queue import Store, Task, TaskSpec, TaskStatus
from ocrqueue.service import results
from ocrqueue.service.breaker_reports import BreakerReports, BreakerSummary
from ocrqueue.service.catalog import kind_info
from ocrqueue.service.engines import model_server_breakers, model_server_check
from ocrqueue.service.errors import Conflict, InvalidInput, NotConfigured, NotFound, TooLarge, UnsupportedInput
from ocrqueue.service.result_formats import DERIVED_FORMATS, Rendering, ResultFormat, derived_from_json
from ocrqueue.service.storage_keys import is_upload_key, result_json_key, result_markdown_key
from ocrqueue.service.submission import Staged, Submission, request_note, stage_document, submit_staged
from ocrqueue.service.views import EventView, Submitted, TaskList, TaskView, WebhookView
from ocrqueue.service.vision_task import MAX_QUESTION_CHARS, VisionSubmission, submit_vision
from ocrqueue.service.webhooks import WebhookStore, watch_callback
from ocrqueue.settings import Settings
from ocrqueue.storage import ObjectNotFoundError, Storage, TooLargeUploadError

TASK_ID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
_TASK_ID = re.compile(TASK_ID_PATTERN)
_PRUNE_BATCH = 1000
ANY_TENANT: str | None = None
"""The tenant argument that sees every task (local mode, the operator's CLI)."""


def _status(task: Task | None) -> str | None:
    return None if task is None else str(task.status)


def _visible(task: Task | None, task_id: str, tenant: str | None) -> Task:
    if task is None or (tenant is not None and task.tenant != tenant):
        raise NotFound("task_not_found", f"no task {task_id}")
    return task


class Tasks:
    def __init__(self, store: Store, storage: Storage, settings: Settings) -> None:
        self.store = store
        self.storage = storage
        self.settings = settings

    @property
    def backend(self) -> str:
        return self.store.backend

    # -- submit ---------------------------------------------------------------------------------
    def submit_document(self, stream: BinaryIO, submission: Submission) -> Submitted:
        """Store the file for a new OCR task (or find the same one submitted before).

        Raises InvalidInput for an empty file or a page selection past the document's pages (field
        `pages`), UnsupportedInput for a type the pipeline does not read and TooLarge past
        max_upload_bytes; nothing is kept then."""
        result = submit_staged(self.store, self.storage, self._stage(stream, submission, ""))
        return Submitted(TaskView.of(result.task), result.created)

    def submit_documents(self, files: Sequence[tuple[BinaryIO, Submission]]) -> list[Submitted]:
        """Several files at once, one task each (each with its own dedup key: two identical files
        with the same options make one task). All or nothing: every file is checked and stored
        before any task is submitted, and the first one refused (as `submit_document` would) removes
        the others' stored copies and raises, its message naming the file."""
        staged: list[Staged] = []
        try:
            for number, (stream, submission) in enumerate(files, 1):
                staged.append(self._stage(stream, submission, f"file {number} ({submission.filename}): "))
        except BaseException:
            for done in staged:
                self.storage.delete_prefix(done.upload)
            raise
        results = [submit_staged(self.store, self.storage, s) for s in staged]
        return [Submitted(TaskView.of(r.task), r.created) for r in results]

    def _stage(self, stream: BinaryIO, submission: Submission, prefix: str) -> Staged:
        head = stream.read(1024)
        if not head:
            raise InvalidInput("empty_file", f"{prefix}the uploaded file is empty", field="file")
        if sniff_format(head) is None:
            message = f"{prefix}the file is not a PDF, PNG, JPEG, TIFF, WebP or BMP image"
            raise UnsupportedInput("unsupported_type", message, field="file")
        stream.seek(0)
        try:
            return stage_document(self.storage, stream, submission, self.settings.max_upload_bytes)
        except TooLargeUploadError as exc:
            raise TooLarge("too_large", f"{prefix}{exc}", field="file") from exc
        except PageRangeError as exc:
            raise InvalidInput(exc.code, f"{prefix}{exc}", field="pages") from exc

    def submit_vision(self, stream: BinaryIO, submission: VisionSubmission) -> Submitted:
        """Store the image for a new `vision` task: the same image, question and max_tokens make one task."""
        settings = self.settings
        if settings.vlm_config() is None:
            raise NotConfigured("model_not_configured", "no model server is configured (OCRQUEUE_VLM_BASE_URL)")
        question = submission.question.strip()
        if not question:
            raise InvalidInput("invalid_question", "the question is empty", field="question")
        if len(question) > MAX_QUESTION_CHARS:
            raise InvalidInput(
                "invalid_question",
                f"the question has {len(question)} characters, over the limit of {MAX_QUESTION_CHARS}",
                field="question",
            )
        max_tokens = submission.max_tokens
        if max_tokens is not None and not 1 <= max_tokens <= settings.vlm_max_tokens:
            raise InvalidInput(
                "invalid_max_tokens", f"max_tokens must be between 1 and {settings.vlm_max_tokens}", field="max_tokens"
            )
        limit = settings.vision_max_image_bytes
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise TooLarge("too_large", f"the image is over the limit of {limit:,} bytes", field="file")
        if not data:
            raise InvalidInput("empty_file", "the uploaded file is empty", field="file")
        fmt = sniff_format(data[:1024])
        if fmt is None or fmt is InputFormat.PDF:
            raise UnsupportedInput(
                "unsupported_type", "the file is not a PNG, JPEG, TIFF, WebP or BMP image", field="file"
            )
        try:
            open_image(data, fmt, settings.document_limits()).close()
        except DocumentError as exc:
            raise InvalidInput(exc.code, str(exc), field="file") from exc
        checked = VisionSubmission(
            filename=submission.filename,
            question=question,
            max_tokens=max_tokens,
            priority=submission.priority,
            max_attempts=submission.max_attempts,
            tenant=submission.tenant,
            idempotency_key=submission.idempotency_key,
            force=submission.force,
            request_id=submission.request_id,
        )
        result = submit_vision(self.store, self.storage, data, checked)
        return Submitted(TaskView.of(result.task), result.created)

    def enqueue(
        self, kind: str, payload: Any, *, count: int = 1, priority: int = 0, dedup_key: str | None = None
    ) -> list[Submitted]:
        """Tasks of any kind with a payload as given (the operator's `tasks enqueue`)."""
        specs = [TaskSpec(kind, payload, priority=priority, dedup_key=dedup_key) for _ in range(count)]
        return [Submitted(TaskView.of(r.task), r.created) for r in self.store.submit_many(specs)]

    # -- read -----------------------------------------------------------------------------------
    def row(self, task_id: str, tenant: str | None = ANY_TENANT) -> Task:
        """The queue's row of a visible task, for the service's own modules (adapters get views)."""
        return _visible(self.store.get(task_id) if _TASK_ID.match(task_id) else None, task_id, tenant)

    def get(self, task_id: str, tenant: str | None = ANY_TENANT) -> TaskView:
        """The task; NotFound when there is none (or it is another tenant's)."""
        return TaskView.of(self.row(task_id, tenant))

    def find(self, task_id: str) -> TaskView | None:
        """The task, or None once it is gone (deleted or pruned); no tenant check."""
        task = self.store.get(task_id) if _TASK_ID.match(task_id) else None
        return TaskView.of(task) if task is not None else None

    def get_many(self, task_ids: Sequence[str]) -> list[TaskView]:
        """Those of the tasks that still exist, in one read; no tenant check."""
        return [TaskView.of(task) for task in self.store.get_many(task_ids)]

    def get_with_events(
        self, task_id: str, newest: int, tenant: str | None = ANY_TENANT
    ) -> tuple[TaskView, list[EventView], bool]:
        """The task, its newest `newest` events oldest first, and whether older ones exist (one read)."""
        found = self.store.get_with_events(task_id, newest + 1) if _TASK_ID.match(task_id) else None
        task = _visible(found[0] if found else None, task_id, tenant)
        events = found[1] if found else []
        return TaskView.of(task), [EventView.of(e) for e in events[-newest:]], len(events) > newest

    def events(self, task_id: str, tenant: str | None = ANY_TENANT) -> list[EventView]:
        """The task's whole history, oldest first."""
        task = self.row(task_id, tenant)
        return [EventView.of(e) for e in self.store.events(task.id)]

    def list(
        self,
        *,
        statuses: Sequence[TaskStatus] | None = None,
        kinds: Sequence[str] | None = None,
        tenant: str | None = ANY_TENANT,
        limit: int = 50,
        cursor: str | None = None,
    ) -> TaskList:
        """Newest first; pass `next_cursor` back as `cursor` for the next page. A big document's
        page-range children are the service's own business: only what clients submitted is listed."""
        page = self.store.list_tasks(
            statuses=list(statuses) if statuses else None,
            kinds=list(kinds) if kinds else None,
            tenant=tenant,
            limit=limit,
            cursor=cursor,
            top_level=True,
        )
        return TaskList([TaskView.of(t) for t in page.tasks], page.next_cursor)

    # -- results --------------------------------------------------------------------------------
    def _document_task(self, task_id: str, tenant: str | None) -> Task:
        task = self.row(task_id, tenant)
        if task.status is not TaskStatus.COMPLETED or not kind_info(task.kind).has_document:
            raise Conflict("not_completed", f"task {task_id} is {task.status}, not completed")
        return task

    def result(
        self, task_id: str, format: ResultFormat, tenant: str | None = ANY_TENANT, *, figure_base: str = ""
    ) -> bytes:
        """A completed document task's result in `format`, whole (see `result_chunks`)."""
        return b"".join(self.result_chunks(task_id, format, tenant, figure_base=figure_base))

    def result_chunks(
        self,
        task_id: str,
        format: ResultFormat,
        tenant: str | None = ANY_TENANT,
        *,
        figure_base: str = "",
        page_base: str | None = None,
    ) -> Iterator[bytes]:
        """A completed document task's JSON, Markdown, searchable PDF, text, HTML, hOCR or ALTO, read
        from storage a chunk at a time (a 5,000-page result never sits whole in memory; the last
        four are written from the JSON a page at a time); in the Markdown and HTML, each figure's
        link is `figure_base` + its file name (empty: the names as stored, beside the figures' files).
        hOCR names each page's image `page_base` + its number (None: the upload's file name, with
        `ppageno`); its and ALTO's boxes are pixels at PAGE_IMAGE_DPI, as the page images are.
        Every error (NotFound, Conflict, a result gone from storage) is raised here, before the
        first chunk."""
        task = self._document_task(task_id, tenant)
        if format in DERIVED_FORMATS:
            chunks = self._stored(task_id, result_json_key(task.id))
            payload = kind_info(task.kind).payload(task.payload)
            file_name = payload.filename if payload is not None else task.id
            rendering = Rendering(
                file_name=file_name,
                dpi=results.PAGE_IMAGE_DPI,
                page_image=(lambda n: file_name) if page_base is None else (lambda n: f"{page_base}{n}"),
                figure_base=figure_base,
                page_count=task.result.get("pages") if isinstance(task.result, dict) else None,
            )
            return derived_from_json(format, chunks, rendering)
        if format == "pdf":
            upload = task.payload.get("input") if isinstance(task.payload, dict) else None
            if not is_upload_key(upload):
                raise NotFound("result_gone", f"task {task_id} has no stored upload")
            selected = task.result.get("selected_pages") if isinstance(task.result, dict) else None
            key = results.searchable_pdf(
                self.storage, task.id, upload, self.settings.document_limits(), selected_pages=selected
            )
        else:
            key = result_json_key(task.id) if format == "json" else result_markdown_key(task.id)
        chunks = self._stored(task_id, key)
        return results.linked_markdown(chunks, figure_base) if format == "markdown" and figure_base else chunks

    def _stored(self, task_id: str, key: str) -> Iterator[bytes]:
        try:
            return self.storage.iter_chunks(key)
        except ObjectNotFoundError as exc:
            raise NotFound("result_gone", f"the result of task {task_id} is no longer stored") from exc

    def asset(self, task_id: str, name: str, tenant: str | None = ANY_TENANT) -> tuple[bytes, str]:
        """A figure crop and its media type; `name` is `imgs/` + the file name the Markdown gives."""
        task = self.row(task_id, tenant)
        return results.asset(self.storage, task.id, name)

    def page_image(self, task_id: str, number: int, tenant: str | None = ANY_TENANT) -> bytes:
        """Page `number` (from 1) of a document task's upload as a PNG."""
        task = self.row(task_id, tenant)
        payload = kind_info(task.kind).payload(task.payload)
        if not kind_info(task.kind).has_document or payload is None:
            raise NotFound("page_not_found", "this task has no pages")
        return results.page_image(self.storage, task.id, payload.input, number, self.settings.document_limits())

    # -- steer ----------------------------------------------------------------------------------
    def cancel(self, task_id: str, tenant: str | None = ANY_TENANT, *, request_id: str | None = None) -> TaskView:
        """Pending: cancelled at once. Running: stops at the worker's next check. Finished: Conflict.
        `request_id` (the HTTP request asking) is recorded on the task's cancel event."""
        task = self.row(task_id, tenant)
        if task.status.terminal:
            raise Conflict("already_finished", f"task {task_id} is already {task.status}")
        return TaskView.of(self.store.cancel(task.id, request_note(request_id)) or task)

    def retry(self, task_id: str, tenant: str | None = ANY_TENANT, *, request_id: str | None = None) -> TaskView:
        """Run a dead-lettered task again with fresh attempts (`request_id` as for `cancel`)."""
        task = self.row(task_id, tenant)
        requeued = self.store.requeue(task.id, request_note(request_id))
        if requeued is None:
            raise Conflict("not_dead_lettered", f"only dead-lettered tasks can be retried; task is {task.status}")
        return TaskView.of(requeued)

    def delete(self, task_id: str, tenant: str | None = ANY_TENANT) -> None:
        """Delete a task with its history and every file it owns. A running task must be cancelled first."""
        task = self.row(task_id, tenant)
        if task.status is TaskStatus.PENDING:
            self.store.cancel(task.id)
        if not self.store.delete(task.id):
            raise Conflict("task_running", f"task {task_id} is running; cancel it and delete it once it stopped")
        self._delete_files(task)

    def prune(self, older_than_days: float) -> int:
        """Delete finished tasks that finished more than `older_than_days` ago (0: every finished
        task), with their history and files; returns how many."""
        total = 0
        while pruned := self.store.prune_tasks(older_than_days * 86400, limit=_PRUNE_BATCH):
            for task in pruned:
                self._delete_files(task)
            total += len(pruned)
        return total

    def _delete_files(self, task: Task) -> None:
        for prefix in kind_info(task.kind).stored_prefixes(task.id, task.payload):
            self.storage.delete_prefix(prefix)

    # -- the installation -----------------------------------------------------------------------
    # -- webhooks -------------------------------------------------------------------------------
    @cached_property
    def _webhooks(self) -> WebhookStore:
        return WebhookStore(self.settings.resolved_database_url)

    def watch_callback(self, task_id: str, url: str, owner: str) -> None:
        """POST to `url` when the task ends (see service/webhooks.py); `owner` names the signing secret
        (`key_owner` of the caller's API key, or LOCAL_OWNER)."""
        watch_callback(self.store, self._webhooks, task_id, url, owner)

    def webhooks(self, task_id: str) -> Sequence[WebhookView]:
        """The task's callbacks, each with its latest delivery task and that task's status."""
        watches = self._webhooks.for_task(task_id)
        if not watches:
            return []
        found = {t.id: t for t in self.store.get_many([w.last_delivery for w in watches if w.last_delivery])}
        return [
            WebhookView(
                w.url, w.last_delivery, str(found[w.last_delivery].status) if w.last_delivery in found else None
            )
            for w in watches
        ]

    def local_webhook_secret(self) -> str:
        return self._webhooks.local_secret()

    def ping(self) -> None:
        """Raises when the database does not answer."""
        self.store.now()

    # -- model server ---------------------------------------------------------------------------
    @cached_property
    def _breaker_reports(self) -> BreakerReports:
        return BreakerReports(self.settings.resolved_database_url)

    def model_server(self) -> str:
        """The model server's circuit breaker as /readyz shows it: the worst of this process's and
        the worker processes' fresh reports (see service/engines.py, model_server_check)."""
        return model_server_check(self.settings.vlm_config(), self._breaker_reports, self.store.now)

    def model_server_breakers(self) -> BreakerSummary | None:
        """The same, for metrics (None: no model server configured)."""
        return model_server_breakers(self.settings.vlm_config(), self._breaker_reports, self.store.now)

    def close(self) -> None:
        if "_breaker_reports" in self.__dict__:
            self._breaker_reports.close()
        self.store.close()

    def __enter__(self) -> Tasks:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
