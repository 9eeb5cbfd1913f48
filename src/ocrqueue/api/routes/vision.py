"""/api/v1/vision: ask a vision model about one image; the answer arrives on the task."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Header, Response, UploadFile

from ocrqueue.api.ocr_form import checked_callback
from ocrqueue.api.request_id import RequestIdDep
from ocrqueue.api.routes.tasks import CallerDep, ContextDep, take_submit_token, watch_for
from ocrqueue.api.schemas import ErrorOut, TaskOut, task_out
from ocrqueue.service import MAX_QUESTION_CHARS, NotConfigured, VisionSubmission

router = APIRouter(prefix="/api/v1/vision", tags=["vision"])
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 413, 415, 422, 429, 503)}


@router.post("", status_code=202, response_model=TaskOut, responses=_ERRORS | {200: {"model": TaskOut}})
def submit_vision_task(
    context: ContextDep,
    caller: CallerDep,
    response: Response,
    request_id: RequestIdDep,
    file: Annotated[UploadFile, File(description="A PNG, JPEG, TIFF, WebP or BMP image.")],
    question: Annotated[
        str, Form(description=f"What to ask about the image (at most {MAX_QUESTION_CHARS} characters).")
    ],
    max_tokens: Annotated[int | None, Form(description="Longest answer in tokens [default: vlm_max_tokens].")] = None,
    priority: Annotated[int, Form(ge=-100, le=100)] = 0,
    max_attempts: Annotated[int | None, Form(ge=1, le=20)] = None,
    force: Annotated[
        bool, Form(description="Ask again even if this image and question were submitted before.")
    ] = False,
    callback_url: Annotated[
        str | None, Form(description="POSTed a signed JSON body when the task ends (Standard Webhooks).")
    ] = None,
    idempotency_key: Annotated[str | None, Header(max_length=200, pattern=r"^[\x21-\x7e]+$")] = None,
) -> TaskOut:
    """Submit an image and a question: 202 with the new `vision` task (200 with the existing one for the
    same image, question and max_tokens). `GET /api/v1/tasks/{id}` shows `answer` once it is completed."""
    if context.settings.vlm_config() is None:
        raise NotConfigured("model_not_configured", "no model server is configured (OCRQUEUE_VLM_BASE_URL)")
    take_submit_token(context, caller)
    submission = VisionSubmission(
        filename=(file.filename or "image")[:255],
        question=question,
        max_tokens=max_tokens,
        priority=priority,
        max_attempts=max_attempts,
        tenant=caller.tenant,
        idempotency_key=idempotency_key,
        force=force,
        request_id=request_id,
    )
    callback = checked_callback(callback_url)
    submitted = context.tasks.submit_vision(file.file, submission)
    watch_for(context, caller, submitted.task.id, callback)
    if not submitted.created:
        response.status_code = 200
    return task_out(submitted.task)
