"""/api/v1/tasks: submit, list, inspect, follow, download, cancel, retry, delete."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Query, Request, Response, UploadFile
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.auth import Caller, current_caller
from ocrqueue.api.context import ApiContext
from ocrqueue.api.errors import ApiError
from ocrqueue.api.events import task_event_stream, tasks_event_stream
from ocrqueue.api.ocr_form import OcrForm, ocr_form
from ocrqueue.api.request_id import RequestIdDep
from ocrqueue.api.schemas import BatchOut, ErrorOut, SubmittedOut, TaskListOut, TaskOut, WebhookOut, task_out
from ocrqueue.service import FORMATS, TASK_ID_PATTERN, ResultFormat, TaskStatus

router = APIRouter(prefix="/api/v1/tasks", tags=["tasks"])
EVENT_LIMIT = 100
"""Events a status read returns at most: every poll costs the same, however long the history grows."""
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 415, 422, 429)
}
FIGURES_RELATIVE = "assets/imgs/"
"""Where figures are from a result's URL (`/api/v1/tasks/{id}/result`): `/api/v1/tasks/{id}/assets/imgs/`."""
RESULT_CONTENT: dict[str, dict[str, Any]] = {info.media_type.split(";")[0]: {} for info in FORMATS.values()}
"""The media types a result comes in, for the OpenAPI document."""
PAGES_RELATIVE = "pages/"
"""Where page images are from a result's URL: `/api/v1/tasks/{id}/pages/{n}`."""

CallerDep = Annotated[Caller, Depends(current_caller)]


async def _context(request: Request) -> ApiContext:
    """Async on purpose: FastAPI runs a plain `def` dependency in the threadpool, one more hop per request."""
    context: ApiContext = request.app.state.context
    return context


ContextDep = Annotated[ApiContext, Depends(_context)]
OcrFormDep = Annotated[OcrForm, Depends(ocr_form)]


def watch_for(context: ApiContext, caller: Caller, task_id: str, callback: str | None) -> None:
    if callback is not None:
        context.tasks.watch_callback(task_id, callback, caller.rate_key)


def take_submit_token(context: ApiContext, caller: Caller) -> None:
    wait = context.submit_limiter.take(caller.rate_key)
    if wait is not None:
        raise ApiError(
            429, "rate_limited", f"too many submits; retry in {wait:.1f}s", headers={"Retry-After": str(int(wait) + 1)}
        )


@router.post(
    "",
    status_code=202,
    response_model=TaskOut | BatchOut,
    responses=_ERRORS | {200: {"model": TaskOut | BatchOut}},
)
def submit_task(
    context: ContextDep,
    caller: CallerDep,
    response: Response,
    request_id: RequestIdDep,
    file: Annotated[
        list[UploadFile],
        File(description="A PDF, PNG, JPEG, TIFF, WebP or BMP file; several `file` parts make one task each."),
    ],
    form: OcrFormDep,
) -> TaskOut | BatchOut:
    """Upload a file for OCR: 202 with the new task, or 200 with the existing one (same file and options).
    With `callback_url` (a form field, or a key of `options`), the task's end is POSTed there, signed.

    Several `file` parts (up to `max_files_per_request`) make one task each, with the same options,
    each deduplicated on its own: the answer is then `{"tasks": [...]}`, one entry per part in
    order, with `created` and `same_as` (the earlier part of this request with the same task). All
    or nothing: the options are checked once, and every file is checked and stored before any task
    is submitted; one refused file refuses the request (its message names the file). An
    `Idempotency-Key` then keys each part as `<key>#<n>` (n from 1). 202 when any task is new."""
    limit = context.settings.max_files_per_request
    if len(file) > limit:
        raise ApiError(422, "too_many_files", f"{len(file)} files in one request; the limit is {limit}", field="file")
    for _ in file:
        take_submit_token(context, caller)
    options, callback = form.process_options(context.settings)
    if len(file) == 1:
        only = file[0]
        submitted = context.tasks.submit_document(
            only.file, form.submission(options, only.filename, caller.tenant, request_id=request_id)
        )
        watch_for(context, caller, submitted.task.id, callback)
        if not submitted.created:
            response.status_code = 200
        return task_out(submitted.task)
    submissions = [
        form.submission(options, part.filename, caller.tenant, part=n, request_id=request_id)
        for n, part in enumerate(file, 1)
    ]
    results = context.tasks.submit_documents([(p.file, s) for p, s in zip(file, submissions, strict=True)])
    first_part: dict[str, int] = {}
    entries = []
    for index, (submission, submitted) in enumerate(zip(submissions, results, strict=True)):
        same_as = first_part.setdefault(submitted.task.id, index)
        if same_as == index:
            watch_for(context, caller, submitted.task.id, callback)
        entries.append(
            SubmittedOut(
                filename=submission.filename,
                created=submitted.created,
                same_as=same_as if same_as != index else None,
                task=task_out(submitted.task),
            )
        )
    if not any(entry.created for entry in entries):
        response.status_code = 200
    return BatchOut(tasks=entries)


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
    responses=_ERRORS | {200: {"content": RESULT_CONTENT}},
)
def get_result(
    context: ContextDep,
    caller: CallerDep,
    request: Request,
    task_id: str,
    format: ResultFormat = "markdown",
    links: Annotated[
        Literal["relative", "absolute"],
        Query(description="Figure links (Markdown, HTML) and page images (hOCR): relative to this URL, or absolute."),
    ] = "relative",
) -> Response:
    """The document as Markdown, as JSON (schema: docs/schema/document.schema.json), as a searchable
    PDF (the original pages with an invisible text layer; made on the first request, then kept), as
    plain text, as an HTML page, as hOCR or as ALTO 4 XML (word boxes and confidences; pixels of the
    page images at /api/v1/tasks/{id}/pages/{n}, 100 dpi). The Markdown's and HTML's figure links
    lead to `/api/v1/tasks/{id}/assets/imgs/...`, so they open with their figures."""
    base = "" if links == "relative" else f"{request.base_url}api/v1/tasks/{task_id}/"
    return result_response(context, caller, task_id, format, base)


def result_response(context: ApiContext, caller: Caller, task_id: str, format: ResultFormat, base: str) -> Response:
    """The result streamed from storage a chunk at a time: a 5,000-page result never sits whole in
    the API process. `base` is where the task's routes are from the reader (empty: relative)."""
    chunks = context.tasks.result_chunks(
        task_id, format, caller.tenant, figure_base=base + FIGURES_RELATIVE, page_base=base + PAGES_RELATIVE
    )
    headers = {"Content-Disposition": 'inline; filename="document.pdf"'} if format == "pdf" else None
    return StreamingResponse(chunks, media_type=FORMATS[format].media_type, headers=headers)


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
