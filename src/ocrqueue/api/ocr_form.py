"""The form fields of an OCR upload, shared by POST /api/v1/tasks and POST /api/v1/convert so both
check the same options the same way before anything is stored."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Form, Header

from ocrqueue.api.errors import ApiError
from ocrqueue.service import ProcessOptions, Submission, WebhookRefused, check_url, ocr_options
from ocrqueue.settings import Settings


@dataclass(frozen=True)
class OcrForm:
    options: str | None
    mode: Literal["auto", "ocr", "text"] | None
    engine: str | None
    languages: str | None
    dpi: int | None
    pages: str | None
    priority: int
    max_attempts: int | None
    force: bool
    callback_url: str | None
    idempotency_key: str | None

    def process_options(self, settings: Settings) -> tuple[ProcessOptions, str | None]:
        """The checked options (422 `invalid_options` otherwise) and the callback URL, if any."""
        options, option_callback = split_callback(self.options)
        callback = checked_callback(self.callback_url or option_callback)
        split = [p.strip() for p in self.languages.split(",") if p.strip()] if self.languages is not None else None
        checked = ocr_options(
            settings, options, mode=self.mode, engine=self.engine, languages=split, dpi=self.dpi, pages=self.pages
        )
        return checked, callback

    def submission(
        self,
        options: ProcessOptions,
        filename: str | None,
        tenant: str | None,
        part: int | None = None,
        request_id: str | None = None,
    ) -> Submission:
        """`part`: the file's number (from 1) among several in one request, which keys it apart
        under an Idempotency-Key (`<key>#<part>`); `request_id` goes on the task's submitted event."""
        key = self.idempotency_key
        return Submission(
            filename=(filename or "upload")[:255],
            options=options,
            priority=self.priority,
            max_attempts=self.max_attempts,
            tenant=tenant,
            idempotency_key=f"{key}#{part}" if key is not None and part is not None else key,
            force=self.force,
            request_id=request_id,
        )


def ocr_form(
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
) -> OcrForm:
    return OcrForm(
        options, mode, engine, languages, dpi, pages, priority, max_attempts, force, callback_url, idempotency_key
    )


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
