"""The payload of each task kind, typed: what a task row's JSON payload means, read and written in
one place instead of dug out of dictionaries wherever a task is looked at."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ocrqueue.documents import DocumentError, PageSelection, ProcessOptions


class PayloadError(ValueError):
    """A task row's payload is not what its kind writes (a task submitted by hand with bad JSON)."""


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise PayloadError(f"the task's payload has no valid {name!r}")
    return value


def _mapping(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise PayloadError("the task's payload is not a JSON object")
    return data


@dataclass(frozen=True)
class OcrPayload:
    """An uploaded document to convert: `input` is its storage key, owned by this task."""

    input: str
    filename: str
    options: ProcessOptions
    sha256: str = ""
    size: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "sha256": self.sha256,
            "size": self.size,
            "filename": self.filename,
            "options": self.options.to_dict(),
        }

    def for_pages(self, indices: Sequence[int]) -> OcrPayload:
        """This document restricted to the pages `indices` (from 0, ascending): a child task's part."""
        pages = str(PageSelection.of_indices(indices))
        return dataclasses.replace(self, options=dataclasses.replace(self.options, pages=pages))

    @classmethod
    def from_json(cls, data: Any) -> OcrPayload:
        body = _mapping(data)
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise PayloadError("the task's options are not a JSON object")
        try:
            parsed = ProcessOptions.from_dict(options)
        except (DocumentError, TypeError, ValueError) as exc:
            raise PayloadError(f"the task's options are invalid: {exc}") from exc
        return cls(
            input=_field(body, "input", str),
            filename=str(body.get("filename") or ""),
            options=parsed,
            sha256=str(body.get("sha256") or ""),
            size=int(body.get("size") or 0),
        )


@dataclass(frozen=True)
class VisionPayload:
    """An image and a question for the model: `input` is the image's storage key, owned by this task."""

    input: str
    filename: str
    question: str
    max_tokens: int | None = None
    sha256: str = ""
    size: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "sha256": self.sha256,
            "size": self.size,
            "filename": self.filename,
            "question": self.question,
            "max_tokens": self.max_tokens,
        }

    @classmethod
    def from_json(cls, data: Any) -> VisionPayload:
        body = _mapping(data)
        max_tokens = body.get("max_tokens")
        if max_tokens is not None and not isinstance(max_tokens, int):
            raise PayloadError("the task's max_tokens is not a number")
        return cls(
            input=_field(body, "input", str),
            filename=str(body.get("filename") or ""),
            question=_field(body, "question", str),
            max_tokens=max_tokens,
            sha256=str(body.get("sha256") or ""),
            size=int(body.get("size") or 0),
        )


Payload = OcrPayload | VisionPayload
