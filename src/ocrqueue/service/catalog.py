"""What the service knows about each task kind, in one place: how its payload reads, whether it has
a document result (Markdown, JSON, page images, figure assets), what its answer is, and which stored
files belong to a task of it, so delete and prune clean up every kind the same way.

Kinds without an entry (`noop`, `sleep`, a library user's own) get the defaults: no typed payload,
no document, and only their `results/<id>/` prefix to clean up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ocrqueue.service.ocr_task import OCR_KIND
from ocrqueue.service.payloads import OcrPayload, Payload, PayloadError, VisionPayload
from ocrqueue.service.storage_keys import is_upload_key, result_prefix
from ocrqueue.service.vision_task import VISION_KIND


@dataclass(frozen=True)
class Answer:
    """A completed `vision` task's answer."""

    text: str
    model: str | None
    truncated: bool


def _vision_answer(result: Any) -> Answer | None:
    if not isinstance(result, dict):
        return None
    model = result.get("model")
    return Answer(
        text=str(result.get("answer", "")),
        model=model if isinstance(model, str) else None,
        truncated=bool(result.get("truncated", False)),
    )


@dataclass(frozen=True)
class KindInfo:
    name: str
    read_payload: Callable[[Any], Payload] | None = None
    has_document: bool = False
    """Completed tasks have a Markdown and JSON result, page images and figure assets."""
    answer: Callable[[Any], Answer | None] | None = None

    def payload(self, raw: Any) -> Payload | None:
        """The typed payload, or None for a kind without one or a payload that does not read."""
        if self.read_payload is None:
            return None
        try:
            return self.read_payload(raw)
        except PayloadError:
            return None

    def stored_prefixes(self, task_id: str, raw_payload: Any) -> list[str]:
        """Every storage prefix a task of this kind owns: its results, and its upload if it has one."""
        prefixes = [result_prefix(task_id)]
        upload = raw_payload.get("input") if isinstance(raw_payload, dict) else None
        if is_upload_key(upload):
            prefixes.append(upload)
        return prefixes


KINDS: dict[str, KindInfo] = {
    OCR_KIND: KindInfo(OCR_KIND, OcrPayload.from_json, has_document=True),
    VISION_KIND: KindInfo(VISION_KIND, VisionPayload.from_json, answer=_vision_answer),
}


def kind_info(kind: str) -> KindInfo:
    return KINDS.get(kind) or KindInfo(kind)
