"""/api/v1/tasks: submit, list, inspect, follow, download, cancel, retry, delete."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Query, Request, Response, UploadFile
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.auth import Caller, current_caller
from ocrqueue.api.context import ApiContext
from ocrqueue.api.errors import ApiError
from ocrqueue.api.events import task_event_stream, tasks_event_stream
from ocrqueue.api.schemas import ErrorOut, TaskListOut, TaskOut, task_out
from ocrqueue.documents import (
    DocumentError,
    PageRangeError,
    ProcessOptions,
    available_engines,
    sniff_format,
)
from ocrqueue.queue import Task, TaskStatus
from ocrqueue.service.keys import asset_key, result_json_key, result_markdown_key, result_prefix
from ocrqueue.service.page_images import PageImageNotFoundError, page_image
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.storage import ObjectNotFoundError, TooLargeUploadError

router = APIRouter(prefix="/api/v1/tasks", tags=["tasks"])
_TASK_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_ASSET = re.compile(r"^imgs/([A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,200})$")
EVENT_LIMIT = 100
"""Events a status read returns at most: every poll costs the same, however long the history grows."""
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 415, 422, 429)
}

CallerDep = Annotated[Caller, Depends(current_caller)]


async def _context(request: Request) -> ApiContext:
    """Async on purpose: FastAPI runs a plain `def` dependency in the threadpool, one more hop per request."""
    context: ApiContext = request.app.state.context
    return context


ContextDep = Annotated[ApiContext, Depends(_context)]


def _visible(caller: Caller, task_id: str, task: Task | None) -> Task:
    """The task, or 404 — also for another tenant's task, so ids reveal nothing."""
    if task is None or not caller.can_see(task.tenant):
        raise ApiError(404, "task_not_found", f"no task {task_id}")
    return task


def _visible_task(context: ApiContext, caller: Caller, task_id: str) -> Task:
    return _visible(caller, task_id, context.store.get(task_id) if _TASK_ID.match(task_id) else None)


def _options(
    context: ApiContext,
    raw: str | None,
    mode: str | None,
    engine: str | None,
    languages: str | None,
    dpi: int | None,
    pages: str | None = None,
) -> ProcessOptions:
    settings = context.settings
    fields: dict[str, Any] = {
        "mode": "auto",
        "engine": settings.default_engine,
        "languages": settings.default_languages,
        "dpi": settings.render_dpi,
    }
    if raw:
        try:
            given = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ApiError(422, "invalid_options", f"options is not valid JSON: {exc.msg}", field="options") from exc
        except RecursionError as exc:
            raise ApiError(422, "invalid_options", "options is nested too deeply", field="options") from exc
        if not isinstance(given, dict):
            raise ApiError(422, "invalid_options", "options must be a JSON object", field="options")
        unknown = sorted(set(given) - {"mode", "engine", "languages", "dpi", "tables", "layout_model", "pages"})
        if unknown:
            raise ApiError(422, "invalid_options", f"unknown options: {', '.join(unknown)}", field="options")
        fields.update(given)
    for name, value in (("mode", mode), ("engine", engine), ("dpi", dpi), ("pages", pages)):
        if value is not None:
            fields[name] = value
    if languages is not None:
        fields["languages"] = [part.strip() for part in languages.split(",") if part.strip()]
    if fields["engine"] not in available_engines():
        raise ApiError(
            422,
            "invalid_options",
            f"unknown engine {fields['engine']!r}; available: {', '.join(available_engines())}",
            field="engine",
        )
    try:
        return ProcessOptions.from_dict(fields)
    except PageRangeError as exc:
        raise ApiError(422, "invalid_pages", str(exc), field="pages") from exc
    except (DocumentError, TypeError, ValueError, OverflowError) as exc:
        raise ApiError(422, "invalid_options", str(exc), field="options") from exc


@router.post("", status_code=202, response_model=TaskOut, responses=_ERRORS | {200: {"model": TaskOut}})
def submit_task(
    context: ContextDep,
    caller: CallerDep,
    response: Response,
    file: Annotated[UploadFile, File(description="A PDF, PNG, JPEG, TIFF, WebP or BMP file.")],
    options: Annotated[str | None, Form(description='JSON object, e.g. {"mode": "ocr", "languages": ["eng"]}')] = None,
    mode: Annotated[Literal["auto", "ocr", "text"] | None, Form()] = None,
    engine: Annotated[str | None, Form(max_length=64)] = None,
    languages: Annotated[str | None, Form(max_length=200, description="Comma-separated, e.g. eng,chi_sim")] = None,
    dpi: Annotated[int | None, Form(ge=72, le=600)] = None,
    pages: Annotated[
        str | None, Form(max_length=1000, description="Only these pages, numbered from 1, e.g. 1-5,9 (default: all).")
    ] = None,
    priority: Annotated[int, Form(ge=-100, le=100)] = 0,
    max_attempts: Annotated[int | None, Form(ge=1, le=20)] = None,
    force: Annotated[bool, Form(description="Run again even if this file and options were submitted before.")] = False,
    idempotency_key: Annotated[str | None, Header(max_length=200, pattern=r"^[\x21-\x7e]+$")] = None,
) -> TaskOut:
    """Upload one file for OCR: 202 with the new task, or 200 with the existing one (same file and options)."""
    wait = context.submit_limiter.take(caller.rate_key)
    if wait is not None:
        raise ApiError(
            429, "rate_limited", f"too many submits; retry in {wait:.1f}s", headers={"Retry-After": str(int(wait) + 1)}
        )
    process_options = _options(context, options, mode, engine, languages, dpi, pages)
    head = file.file.read(1024)
    if not head:
        raise ApiError(422, "empty_file", "the uploaded file is empty", field="file")
    if sniff_format(head) is None:
        raise ApiError(
            415, "unsupported_type", "the file is not a PDF, PNG, JPEG, TIFF, WebP or BMP image", field="file"
        )
    file.file.seek(0)
    submission = Submission(
        filename=(file.filename or "upload")[:255],
        options=process_options,
        priority=priority,
        max_attempts=max_attempts,
        tenant=caller.tenant,
        idempotency_key=idempotency_key,
        force=force,
    )
    try:
        result = submit_document(
            context.store, context.storage, file.file, submission, context.settings.max_upload_bytes
        )
    except TooLargeUploadError as exc:
        raise ApiError(413, "too_large", str(exc), field="file") from exc
    except PageRangeError as exc:
        raise ApiError(422, "invalid_pages", str(exc), field="pages") from exc
    if not result.created:
        response.status_code = 200
    return task_out(result.task)


@router.get("", response_model=TaskListOut, responses=_ERRORS)
def list_tasks(
    context: ContextDep,
    caller: CallerDep,
    status: Annotated[list[TaskStatus] | None, Query()] = None,
    kind: Annotated[list[str] | None, Query(max_length=20)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(pattern=_TASK_ID.pattern)] = None,
) -> TaskListOut:
    """Newest first; pass `next_cursor` back as `cursor` for the next page."""
    page = context.store.list_tasks(statuses=status, kinds=kind, tenant=caller.tenant, limit=limit, cursor=cursor)
    return TaskListOut(tasks=[task_out(t) for t in page.tasks], next_cursor=page.next_cursor)


@router.get("/events", responses=_ERRORS | {200: {"content": {"text/event-stream": {}}}})
async def follow_tasks(request: Request, caller: CallerDep) -> StreamingResponse:
    """Server-sent events for the caller's newest 100 tasks: `task` on every change, `deleted`."""
    context: ApiContext = request.app.state.context
    return StreamingResponse(
        tasks_event_stream(request, request.app.state.task_follower, context.store, caller.tenant),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.get("/{task_id}", response_model=TaskOut, responses=_ERRORS)
def get_task(context: ContextDep, caller: CallerDep, task_id: str) -> Response:
    """Status, progress, attempts, error and the newest 100 events of its history, oldest first
    (`events_truncated` says whether older ones exist; `ocrqueue tasks show` lists them all)."""
    found = context.store.get_with_events(task_id, EVENT_LIMIT + 1) if _TASK_ID.match(task_id) else None
    task = _visible(caller, task_id, found[0] if found else None)
    events = found[1] if found else []
    body = task_out(task, events[-EVENT_LIMIT:], events_truncated=len(events) > EVENT_LIMIT)
    # Serialised here: a returned model is validated again by FastAPI, in one more threadpool trip
    # for a plain `def` route; clients poll this route several times a second.
    return Response(body.model_dump_json(by_alias=True), media_type="application/json")


@router.get("/{task_id}/result", responses=_ERRORS | {200: {"content": {"text/markdown": {}, "application/json": {}}}})
def get_result(
    context: ContextDep, caller: CallerDep, task_id: str, format: Literal["markdown", "json"] = "markdown"
) -> Response:
    """The document as Markdown or as JSON (schema: docs/schema/document.schema.json)."""
    task = _visible_task(context, caller, task_id)
    if task.status is not TaskStatus.COMPLETED or task.kind != "ocr":
        raise ApiError(409, "not_completed", f"task {task_id} is {task.status}, not completed")
    key = result_json_key(task.id) if format == "json" else result_markdown_key(task.id)
    media_type = "application/json" if format == "json" else "text/markdown"
    # Streamed from storage a chunk at a time: a 5,000-page result never sits whole in the API process.
    return StreamingResponse(context.storage.iter_chunks(key), media_type=media_type)


@router.get("/{task_id}/assets/{name:path}", responses=_ERRORS | {200: {"content": {"image/png": {}}}})
def get_asset(context: ContextDep, caller: CallerDep, task_id: str, name: str) -> Response:
    """A figure cropped from the document: `imgs/` + the file name its block and the Markdown give."""
    task = _visible_task(context, caller, task_id)
    matched = _ASSET.match(name)
    if matched is None or ".." in name:
        raise ApiError(404, "asset_not_found", f"no asset {name!r}")
    try:
        data = context.storage.get(asset_key(task.id, matched.group(1)))
    except ObjectNotFoundError as exc:
        raise ApiError(404, "asset_not_found", f"no asset {name!r}") from exc
    return Response(data, media_type="image/png" if name.endswith(".png") else "image/jpeg")


@router.get("/{task_id}/pages/{number}", responses=_ERRORS | {200: {"content": {"image/png": {}}}})
def get_page_image(context: ContextDep, caller: CallerDep, task_id: str, number: int) -> Response:
    """Page `number` (from 1) as a PNG for the viewer, rendered once and then kept."""
    task = _visible_task(context, caller, task_id)
    if task.kind != "ocr":
        raise ApiError(404, "page_not_found", "this task has no pages")
    try:
        data = page_image(context.storage, task, number, context.settings.document_limits())
    except PageImageNotFoundError as exc:
        raise ApiError(404, "page_not_found", str(exc)) from exc
    except DocumentError as exc:
        raise ApiError(422, "unreadable_document", str(exc)) from exc
    return Response(data, media_type="image/png")


@router.post("/{task_id}/cancel", response_model=TaskOut, responses=_ERRORS)
def cancel_task(context: ContextDep, caller: CallerDep, task_id: str) -> TaskOut:
    """Pending: cancelled at once. Running: stops at the worker's next check. Finished: 409."""
    task = _visible_task(context, caller, task_id)
    if task.status.terminal:
        raise ApiError(409, "already_finished", f"task {task_id} is already {task.status}")
    updated = context.store.cancel(task.id) or task
    return task_out(updated)


@router.post("/{task_id}/retry", response_model=TaskOut, responses=_ERRORS)
def retry_task(context: ContextDep, caller: CallerDep, task_id: str) -> TaskOut:
    """Run a dead-lettered task again with fresh attempts."""
    task = _visible_task(context, caller, task_id)
    requeued = context.store.requeue(task.id)
    if requeued is None:
        raise ApiError(409, "not_dead_lettered", f"only dead-lettered tasks can be retried; task is {task.status}")
    return task_out(requeued)


@router.delete("/{task_id}", status_code=204, responses=_ERRORS)
def delete_task(context: ContextDep, caller: CallerDep, task_id: str) -> Response:
    """Delete a task with its history, upload and results. A running task must be cancelled first."""
    task = _visible_task(context, caller, task_id)
    if task.status is TaskStatus.PENDING:
        context.store.cancel(task.id)
    if not context.store.delete(task.id):
        raise ApiError(409, "task_running", f"task {task_id} is running; cancel it and delete it once it stopped")
    context.storage.delete_prefix(result_prefix(task.id))
    if isinstance(task.payload, dict) and isinstance(task.payload.get("input"), str):
        context.storage.delete_prefix(task.payload["input"])
    return Response(status_code=204)


@router.get("/{task_id}/events", responses=_ERRORS | {200: {"content": {"text/event-stream": {}}}})
async def follow_task(request: Request, caller: CallerDep, task_id: str) -> StreamingResponse:
    """Server-sent events: `task` with the task on every change, `end` once it is finished."""
    context: ApiContext = request.app.state.context
    task = await run_in_threadpool(_visible_task, context, caller, task_id)
    return StreamingResponse(
        task_event_stream(request, request.app.state.task_follower, task),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
