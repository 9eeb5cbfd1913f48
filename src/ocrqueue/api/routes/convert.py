"""/api/v1/convert: one request in, the result out, for small documents.

It is the same durable task as POST /api/v1/tasks (same form, limits, auth, dedup and rate limit;
the task can be followed, downloaded again and deleted like any other); the request only waits for
it to end, on the service's live follower (a wake-up when the store says the task changed, not a
polling loop), for at most `wait` seconds."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.auth import Caller
from ocrqueue.api.context import ApiContext
from ocrqueue.api.errors import ApiError, error_response
from ocrqueue.api.ocr_form import OcrForm
from ocrqueue.api.request_id import RequestIdDep
from ocrqueue.api.routes.tasks import (
    RESULT_CONTENT,
    CallerDep,
    ContextDep,
    OcrFormDep,
    result_response,
    take_submit_token,
    watch_for,
)
from ocrqueue.api.schemas import ErrorOut, TaskOut, task_out
from ocrqueue.service import ResultFormat, TaskStatus, TaskView
from ocrqueue.service.live import Live, Signal

router = APIRouter(prefix="/api/v1", tags=["convert"])
_KEEPALIVE_SECONDS = 15.0
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 415, 422, 429, 500)
}
FAILED_DOCUMENT = "permanent"
"""The error kind of a task whose document itself could not be read (corrupt, encrypted, over a limit)."""


@router.post(
    "/convert",
    status_code=200,
    responses=_ERRORS | {200: {"content": RESULT_CONTENT}, 202: {"model": TaskOut}},
)
async def convert(
    request: Request,
    context: ContextDep,
    caller: CallerDep,
    request_id: RequestIdDep,
    file: Annotated[UploadFile, File(description="A PDF, PNG, JPEG, TIFF, WebP or BMP file.")],
    form: OcrFormDep,
    format: Annotated[ResultFormat, Query(description="The result's format.")] = "markdown",
    wait: Annotated[float | None, Query(ge=0, description="Seconds to wait for the result.")] = None,
    wait_field: Annotated[float | None, Form(alias="wait", ge=0, description="`wait` as a form field.")] = None,
) -> Response:
    """Upload a small document and get its result in the same request: 200 with the result in
    `format` once the task completed within `wait` seconds (default `convert_wait_seconds`, 60; at
    most `convert_max_wait_seconds`), else 202 with the task and `Location` to follow it. A task that
    dead-letters answers with its error: 422 when the document cannot be read (error kind
    `permanent`: damaged, encrypted, over a limit), 500 `task_failed` when the work failed for
    another reason (crashed, ran out of attempts); a cancelled task 409 `cancelled`. `Location`
    names the task in every case."""
    bound = _bound(context, wait if wait is not None else wait_field)
    submitted = await run_in_threadpool(_submit, context, caller, file, form, request_id)
    location = f"/api/v1/tasks/{submitted.id}"
    task = await _until_finished(request.app.state.live, submitted, caller.tenant, bound)
    if task is None:
        return error_response(404, "task_not_found", f"task {submitted.id} was deleted while it ran")
    if task.status is TaskStatus.COMPLETED:
        base = f"{request.base_url}api/v1/tasks/{task.id}/"
        response = await run_in_threadpool(result_response, context, caller, task.id, format, base)
        response.headers["Location"] = location
        return response
    if task.status is TaskStatus.DEAD_LETTER:
        status, code = (422, "unreadable_document") if task.error_kind == FAILED_DOCUMENT else (500, "task_failed")
        message = task.error_message or f"task {task.id} failed ({task.error_kind})"
        return error_response(status, code, message, headers={"Location": location})
    if task.status is TaskStatus.CANCELLED:
        return error_response(409, "cancelled", f"task {task.id} was cancelled", headers={"Location": location})
    body = task_out(task).model_dump(mode="json", by_alias=True)
    return JSONResponse(body, status_code=202, headers={"Location": location})


def _bound(context: ApiContext, wait: float | None) -> float:
    settings = context.settings
    if wait is None:
        return min(settings.convert_wait_seconds, settings.convert_max_wait_seconds)
    if wait > settings.convert_max_wait_seconds:
        message = f"wait is {wait:g}s; the most this server waits is {settings.convert_max_wait_seconds:g}s"
        raise ApiError(422, "invalid_wait", message, field="wait")
    return wait


def _submit(context: ApiContext, caller: Caller, file: UploadFile, form: OcrForm, request_id: str) -> TaskView:
    take_submit_token(context, caller)
    options, callback = form.process_options(context.settings)
    submitted = context.tasks.submit_document(
        file.file, form.submission(options, file.filename, caller.tenant, request_id=request_id)
    )
    watch_for(context, caller, submitted.task.id, callback)
    return submitted.task


async def _until_finished(live: Live, task: TaskView, tenant: str | None, bound: float) -> TaskView | None:
    """The task once it is finished, or as it is when `bound` seconds passed; None once deleted."""
    if task.status.terminal:
        return task
    stream = await run_in_threadpool(live.open, task.id, tenant)
    seen = [stream.task]

    async def finished() -> TaskView | None:
        async for update in stream.updates(_KEEPALIVE_SECONDS):
            if update is Signal.DELETED:
                return None
            if isinstance(update, TaskView):
                seen.append(update)
        return seen[-1]

    try:
        return await asyncio.wait_for(finished(), bound)
    except TimeoutError:
        return seen[-1]
