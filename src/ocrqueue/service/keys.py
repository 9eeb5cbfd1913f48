"""Storage keys for a task's files, in one place so every layer agrees on them."""

from __future__ import annotations


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


def result_pdf_key(task_id: str) -> str:
    """The searchable PDF, written on first request and kept."""
    return f"{result_prefix(task_id)}/document.pdf"
