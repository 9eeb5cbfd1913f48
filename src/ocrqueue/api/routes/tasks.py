"""/api/v1/tasks: submit, list, inspect, follow, download, cancel, retry, delete."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Query, Request, Response, UploadFile
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.auth import Caller, current_caller
from ocrqueue.api.context import ApiContext
from ocrqueue.api.errors import ApiError
from ocrqueue.api.events import task_event_stream, tasks_event_stream
from ocrqueue.api.request_id import RequestIdDep
from ocrqueue.api.schemas import ErrorOut, TaskListOut, TaskOut, WebhookOut, task_out
from ocrqueue.service import TASK_ID_PATTERN, Submission, TaskStatus, WebhookRefused, check_url, ocr_options

router = APIRouter(prefix="/api/v1/tasks", tags=["tasks"])
EVENT_LIMIT = 100
"""Events a status read returns at most: every poll costs the same, however long the history grows."""
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 415, 422, 429)
}
FIGURES_RELATIVE = "assets/imgs/"
"""Where figures are from a result's URL (`/api/v1/tasks/{id}/result`): `/api/v1/tasks/{id}/assets/imgs/`."""

CallerDep = Annotated[Caller, Depends(current_caller)]


async def _context(request: Request) -> ApiContext:
    """Async on purpose: FastAPI runs a plain `def` dependency in the threadpool, one more hop per request."""
    context: ApiContext = request.app.state.context
    return context


ContextDep = Annotated[ApiContext, Depends(_context)]


def split_callback(raw: str | None) -> tuple[str | None, str | None]:
    """The JSON options without their `callback_url`, and that URL (the rest is checked by ocr_options)."""
    if not raw:
        return raw, None
    try:
        given = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return raw, None
    if not isinstance(given, dict) or "callback_url" not in given:
        return raw, None
    callback = given.pop("callback_url")
    if not isinstance(callback, str):
        raise ApiError(422, "invalid_callback_url", "callback_url must be a string", field="options")
    return json.dumps(given), callback


def checked_callback(url: str | None) -> str | None:
    """`callback_url` as given, or 422 for one that can never be called (its address is checked
    when the webhook is sent)."""
    if url is None or not url.strip():
        return None
    try:
        check_url(url.strip())
    except WebhookRefused as exc:
        raise ApiError(422, "invalid_callback_url", str(exc), field="callback_url") from exc
    return url.strip()


def watch_for(context: ApiContext, caller: Caller, task_id: str, callback: str | None) -> None:
    if callback is not None:
        context.tasks.watch_callback(task_id, callback, caller.rate_key)


def take_submit_token(context: ApiContext, caller: Caller) -> None:
    wait = context.submit_limiter.take(caller.rate_key)
    if wait is not None:
        raise ApiError(
            429, "rate_limited", f"too many submits; retry in {wait:.1f}s", headers={"Retry-After": str(int(wait) + 1)}
        )


@router.post("", status_code=202, response_model=TaskOut, responses=_ERRORS | {200: {"model": TaskOut}})
def submit_task(
    context: ContextDep,
    caller: CallerDep,
    response: Response,
    request_id: RequestIdDep,
    file: Annotated[UploadFile, File(description="A PDF, PNG, JPEG, TIFF, WebP or BMP file.")],
    options: Annotated[str | None, Form(description='JSON object, e.g. {"mode": "ocr", "languages": ["eng"]}')] = None,
    mode: Annotated[Literal["auto", "ocr", "text"] | None, Form()] = None,
    engine: Annotated[str | None, Form(max_length=64)] = None,
    languages: Annotated[str | None, Form(max_length=200, description="auto, or Tesseract codes: eng,chi_sim")] = None,
    dpi: Annotated[int | None, Form(ge=72, le=600)] = None,
    pages: Annotated[
        str | None, Form(max_length=1000, description="Only these pages, numbered from 1, e.g. 1-5,9 (default: all).")
    ] = None,
    priority: Annotated[int, Form(ge=-100, le=100)] = 0,
    max_attempts: Annotated[int | None, Form(ge=1, le=20)] = None,
    force: Annotated[bool, Form(description="Run again even if this file and options were submitted before.")] = False,
    callback_url: Annotated[
        str | None, Form(description="POSTed a signed JSON body when the task ends (Standard Webhooks).")
    ] = None,
    idempotency_key: Annotated[str | None, Header(max_length=200, pattern=r"^[\x21-\x7e]+$")] = None,
) -> TaskOut:
    """Upload one file for OCR: 202 with the new task, or 200 with the existing one (same file and options).
    With `callback_url` (a form field, or a key of `options`), the task's end is POSTed there, signed."""
    take_submit_token(context, caller)
    options, option_callback = split_callback(options)
    callback = checked_callback(callback_url or option_callback)
    split = [part.strip() for part in languages.split(",") if part.strip()] if languages is not None else None
    process_options = ocr_options(
        context.settings, options, mode=mode, engine=engine, languages=split, dpi=dpi, pages=pages
    )
    submission = Submission(
        filename=(file.filename or "upload")[:255],
        options=process_options,
        priority=priority,
        max_attempts=max_attempts,
        tenant=caller.tenant,
        idempotency_key=idempotency_key,
        force=force,
        request_id=request_id,
    )
    submitted = context.tasks.submit_document(file.file, submission)
    watch_for(context, caller, submitted.task.id, callback)
    if not submitted.created:
        response.status_code = 200
    return task_out(submitted.task)


@router.get("", response_model=TaskListOut, responses=_ERRORS)
def list_tasks(
    context: ContextDep,
    caller: CallerDep,
    status: Annotated[list[TaskStatus] | None, Query()] = None,
    kind: Annotated[list[str] | None, Query(max_length=20)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(pattern=TASK_ID_PATTERN)] = None,
) -> TaskListOut:
    """Newest first; pass `next_cursor` back as `cursor` for the next page."""
    page = context.tasks.list(statuses=status, kinds=kind, tenant=caller.tenant, limit=limit, cursor=cursor)
    return TaskListOut(tasks=[task_out(t) for t in page.tasks], next_cursor=page.next_cursor)


@router.get("/events", responses=_ERRORS | {200: {"content": {"text/event-stream": {}}}})
async def follow_tasks(request: Request, caller: CallerDep) -> StreamingResponse:
    """Server-sent events for the caller's newest 100 tasks: `task` on every change, `deleted`."""
    return StreamingResponse(
        tasks_event_stream(request, request.app.state.live, caller.tenant),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.get("/{task_id}", response_model=TaskOut, responses=_ERRORS)
def get_task(context: ContextDep, caller: CallerDep, task_id: str) -> Response:
    """Status, progress, attempts, error and the newest 100 events of its history, oldest first
    (`events_truncated` says whether older ones exist; `ocrqueue tasks show` lists them all)."""
    task, events, truncated = context.tasks.get_with_events(task_id, EVENT_LIMIT, caller.tenant)
    body = task_out(task, events, events_truncated=truncated)
    hooks = context.tasks.webhooks(task.id)
    body.webhooks = [WebhookOut(**vars(hook)) for hook in hooks] or None
    # Serialised here: a returned model is validated again by FastAPI, in one more threadpool trip
    # for a plain `def` route; clients poll this route several times a second.
    return Response(body.model_dump_json(by_alias=True), media_type="application/json")


@router.get(
    "/{task_id}/result",
    responses=_ERRORS | {200: {"content": {"text/markdown": {}, "application/json": {}, "application/pdf": {}}}},
)
def get_result(
    context: ContextDep,
    caller: CallerDep,
    request: Request,
    task_id: str,
    format: Literal["markdown", "json", "pdf"] = "markdown",
    links: Annotated[
        Literal["relative", "absolute"],
        Query(description="Markdown figure links: relative to this URL, or absolute URLs of this server."),
    ] = "relative",
) -> Response:
    """The document as Markdown, as JSON (schema: docs/schema/document.schema.json) or as a searchable
    PDF (the original pages with an invisible text layer; made on the first request, then kept). The
    Markdown's figure links lead to `/api/v1/tasks/{id}/assets/imgs/...`, so it opens with its figures."""
    # Streamed from storage a chunk at a time: a 5,000-page result never sits whole in the API process.
    if format == "pdf":
        return StreamingResponse(
            context.tasks.result_chunks(task_id, "pdf", caller.tenant),
            media_type="application/pdf",
            headers={"Content-Disposition": 'inline; filename="document.pdf"'},
        )
    if format == "json":
        return StreamingResponse(
            context.tasks.result_chunks(task_id, "json", caller.tenant), media_type="application/json"
        )
    base = FIGURES_RELATIVE if links == "relative" else f"{request.base_url}api/v1/tasks/{task_id}/{FIGURES_RELATIVE}"
    markdown = context.tasks.result_chunks(task_id, "markdown", caller.tenant, figure_base=base)
    return StreamingResponse(markdown, media_type="text/markdown")


@router.get("/{task_id}/assets/{name:path}", responses=_ERRORS | {200: {"content": {"image/png": {}}}})
def get_asset(context: ContextDep, caller: CallerDep, task_id: str, name: str) -> Response:
    """A figure cropped from the document: `imgs/` + the file name its block and the Markdown give."""
    data, media_type = context.tasks.asset(task_id, name, caller.tenant)
    return Response(data, media_type=media_type)


@router.get("/{task_id}/pages/{number}", responses=_ERRORS | {200: {"content": {"image/png": {}}}})
def get_page_image(context: ContextDep, caller: CallerDep, task_id: str, number: int) -> Response:
    """Page `number` (from 1) as a PNG for the viewer, rendered once and then kept."""
    return Response(context.tasks.page_image(task_id, number, caller.tenant), media_type="image/png")


@router.post("/{task_id}/cancel", response_model=TaskOut, responses=_ERRORS)
def cancel_task(context: ContextDep, caller: CallerDep, request_id: RequestIdDep, task_id: str) -> TaskOut:
    """Pending: cancelled at once. Running: stops at the worker's next check. Finished: 409."""
    return task_out(context.tasks.cancel(task_id, caller.tenant, request_id=request_id))


@router.post("/{task_id}/retry", response_model=TaskOut, responses=_ERRORS)
def retry_task(context: ContextDep, caller: CallerDep, request_id: RequestIdDep, task_id: str) -> TaskOut:
    """Run a dead-lettered task again with fresh attempts."""
    return task_out(context.tasks.retry(task_id, caller.tenant, request_id=request_id))


@router.delete("/{task_id}", status_code=204, responses=_ERRORS)
def delete_task(context: ContextDep, caller: CallerDep, task_id: str) -> Response:
    """Delete a task with its history, upload and results. A running task must be cancelled first."""
    context.tasks.delete(task_id, caller.tenant)
    return Response(status_code=204)


@router.get("/{task_id}/events", responses=_ERRORS | {200: {"content": {"text/event-stream": {}}}})
async def follow_task(request: Request, caller: CallerDep, task_id: str) -> StreamingResponse:
    """Server-sent events: `task` with the task on every change, `end` once it is finished."""
    stream = await run_in_threadpool(request.app.state.live.open, task_id, caller.tenant)
    return StreamingResponse(
        task_event_stream(request, stream),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
