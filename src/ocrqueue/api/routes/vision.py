"""/api/v1/vision: ask a vision model about one image; the answer arrives on the task."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Header, Response, UploadFile

from ocrqueue.api.errors import ApiError
from ocrqueue.api.routes.tasks import CallerDep, ContextDep, checked_callback, watch_for
from ocrqueue.api.schemas import ErrorOut, TaskOut, task_out
from ocrqueue.documents import DocumentError, InputFormat, sniff_format
from ocrqueue.documents.images import open_image
from ocrqueue.service.vision_task import MAX_QUESTION_CHARS, VisionSubmission, submit_vision

router = APIRouter(prefix="/api/v1/vision", tags=["vision"])
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 413, 415, 422, 429, 503)}


@router.post("", status_code=202, response_model=TaskOut, responses=_ERRORS | {200: {"model": TaskOut}})
def submit_vision_task(
    context: ContextDep,
    caller: CallerDep,
    response: Response,
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
    settings = context.settings
    if settings.vlm_config() is None:
        raise ApiError(503, "model_not_configured", "no model server is configured (OCRQUEUE_VLM_BASE_URL)")
    wait = context.submit_limiter.take(caller.rate_key)
    if wait is not None:
        raise ApiError(
            429, "rate_limited", f"too many submits; retry in {wait:.1f}s", headers={"Retry-After": str(int(wait) + 1)}
        )
    callback = checked_callback(callback_url)
    question = question.strip()
    if not question:
        raise ApiError(422, "invalid_question", "the question is empty", field="question")
    if len(question) > MAX_QUESTION_CHARS:
        raise ApiError(
            422,
            "invalid_question",
            f"the question has {len(question)} characters, over the limit of {MAX_QUESTION_CHARS}",
            field="question",
        )
    if max_tokens is not None and not 1 <= max_tokens <= settings.vlm_max_tokens:
        raise ApiError(
            422, "invalid_max_tokens", f"max_tokens must be between 1 and {settings.vlm_max_tokens}", field="max_tokens"
        )
    limit = settings.vision_max_image_bytes
    data = file.file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "too_large", f"the image is over the limit of {limit:,} bytes", field="file")
    if not data:
        raise ApiError(422, "empty_file", "the uploaded file is empty", field="file")
    fmt = sniff_format(data[:1024])
    if fmt is None or fmt is InputFormat.PDF:
        raise ApiError(415, "unsupported_type", "the file is not a PNG, JPEG, TIFF, WebP or BMP image", field="file")
    try:
        open_image(data, fmt, settings.document_limits()).close()
    except DocumentError as exc:
        raise ApiError(422, exc.code, str(exc), field="file") from exc
    submission = VisionSubmission(
        filename=(file.filename or "image")[:255],
        question=question,
        max_tokens=max_tokens,
        priority=priority,
        max_attempts=max_attempts,
        tenant=caller.tenant,
        idempotency_key=idempotency_key,
        force=force,
    )
    result = submit_vision(context.store, context.storage, data, submission)
    watch_for(context, caller, result.task, callback)
    if not result.created:
        response.status_code = 200
    return task_out(result.task)
