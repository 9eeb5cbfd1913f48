"""Storage keys for a task's files, in one place so every layer agrees on them."""

from __future__ import annotations

import re
import uuid
from typing import TypeGuard


def upload_key(name: str) -> str:
    return f"uploads/{name}"


def result_prefix(task_id: str) -> str:
    return f"results/{task_id}"


def result_json_key(task_id: str) -> str:
    return f"{result_prefix(task_id)}/document.json"


def result_markdown_key(task_id: str) -> str:
    return f"{result_prefix(task_id)}/document.md"


def asset_key(task_id: str, name: str) -> str:
    """A figure crop; `name` is the pipeline's file name for it (e.g. `page1-figure2.png`)."""
    return f"{result_prefix(task_id)}/imgs/{name}"


def page_image_key(task_id: str, number: int) -> str:
    """The viewer's rendering of page `number` (from 1)."""
    return f"{result_prefix(task_id)}/pages/{number}.png"


_UPLOAD = re.compile(r"^uploads/[0-9a-f]{32}$")


def new_upload_key() -> str:
    return upload_key(uuid.uuid4().hex)


def is_upload_key(key: object) -> TypeGuard[str]:
    """Whether `key` names one upload as the service makes them: clean-up deletes by prefix, so a
    payload written by hand (`uploads`, say) must never be taken for one task's file."""
    return isinstance(key, str) and _UPLOAD.match(key) is not None


def result_pdf_key(task_id: str) -> str:
    """The searchable PDF, written on first request and kept."""
    return f"{result_prefix(task_id)}/document.pdf"
