"""The `vision` task kind: one image and a question in, the model's answer out.

Submitted by `POST /api/v1/vision`; runs through the same model-server client, in-flight bound,
circuit breaker and retry rules as the `vlm` OCR engine (the handler is wrapped in `ModelGate`).
The result is JSON in the task row: {"answer", "model", "finish_reason", "truncated", "usage"}.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass

from ocrqueue.documents import DocumentError, DocumentLimits, InputFormat, sniff_format
from ocrqueue.documents.input.images import open_image
from ocrqueue.documents.vlm import VlmClient
from ocrqueue.queue import PermanentError, Store, SubmitResult, TaskContext, TaskSpec
from ocrqueue.queue.models import JSON
from ocrqueue.service.payloads import PayloadError, VisionPayload
from ocrqueue.service.storage_keys import new_upload_key
from ocrqueue.service.submission import idempotency_dedup_key, request_note, submit_owning_upload
from ocrqueue.storage import ObjectNotFoundError, Storage

VISION_KIND = "vision"
MAX_QUESTION_CHARS = 4000
_SENT_AS_IS = {InputFormat.PNG, InputFormat.JPEG}


@dataclass(frozen=True)
class VisionSubmission:
    filename: str
    question: str
    max_tokens: int | None = None
    priority: int = 0
    max_attempts: int | None = None
    tenant: str | None = None
    idempotency_key: str | None = None
    force: bool = False
    request_id: str | None = None


def submit_vision(store: Store, storage: Storage, data: bytes, submission: VisionSubmission) -> SubmitResult:
    """Store the image for its task and submit it; the same image, question and max_tokens make one task."""
    sha256 = hashlib.sha256(data).hexdigest()
    key = new_upload_key()
    storage.put(key, data)
    if submission.idempotency_key is not None:
        dedup: str | None = idempotency_dedup_key(submission.tenant, submission.idempotency_key)
    elif submission.force:
        dedup = None
    else:
        canonical = json.dumps([sha256, submission.question, submission.max_tokens], separators=(",", ":"))
        dedup = f"vision:{submission.tenant or ''}:{hashlib.sha256(canonical.encode()).hexdigest()}"
    payload = VisionPayload(
        input=key,
        filename=submission.filename,
        question=submission.question,
        max_tokens=submission.max_tokens,
        sha256=sha256,
        size=len(data),
    )
    spec = TaskSpec(
        VISION_KIND,
        payload.to_json(),
        priority=submission.priority,
        max_attempts=submission.max_attempts,
        dedup_key=dedup,
        tenant=submission.tenant,
        note=request_note(submission.request_id),
    )
    return submit_owning_upload(store, storage, spec, key)


class VisionTask:
    """Handler for tasks of kind `vision` (payload: `VisionPayload`)."""

    def __init__(self, storage: Storage, client: VlmClient, limits: DocumentLimits) -> None:
        self.storage = storage
        self.client = client
        self.limits = limits

    def _image(self, key: str) -> tuple[bytes, str]:
        try:
            data = self.storage.get(key)
        except ObjectNotFoundError as exc:
            raise PermanentError(f"the uploaded image {key} is missing from storage") from exc
        fmt = sniff_format(data[:1024])
        if fmt is None or fmt is InputFormat.PDF:
            raise PermanentError("the uploaded file is not a PNG, JPEG, TIFF, WebP or BMP image")
        try:
            image = open_image(data, fmt, self.limits)
            image.load()
        except DocumentError as exc:
            raise PermanentError(str(exc)) from exc
        except OSError as exc:
            raise PermanentError(f"{fmt.value.upper()} image is damaged and could not be read") from exc
        if fmt in _SENT_AS_IS:
            return data, fmt.media_type
        buffer = io.BytesIO()
        image.convert("RGBA" if "A" in image.getbands() else "RGB").save(buffer, format="PNG")
        return buffer.getvalue(), "image/png"

    def __call__(self, ctx: TaskContext) -> JSON:
        try:
            payload = VisionPayload.from_json(ctx.payload)
        except PayloadError as exc:
            raise PermanentError(str(exc)) from exc
        image = self._image(payload.input)
        ctx.report_progress(0, 1, "asking the model")
        try:
            answer = self.client.complete(image, payload.question, max_tokens=payload.max_tokens)
        except DocumentError as exc:  # ModelRequestRejected: this request can never succeed
            raise PermanentError(str(exc)) from exc
        ctx.report_progress(1, 1, "answered")
        return {
            "answer": answer.text,
            "model": answer.model,
            "finish_reason": answer.finish_reason,
            "truncated": answer.truncated,
            "usage": {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens},
        }
