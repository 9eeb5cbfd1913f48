"""Response bodies, as published in the OpenAPI document."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ocrqueue.queue import Event, Task


class Progress(BaseModel):
    done: int
    total: int | None
    step: str | None


class TaskError(BaseModel):
    kind: str
    message: str | None


class EventOut(BaseModel):
    type: str
    at: datetime
    attempt: int
    worker_id: str | None
    detail: dict[str, Any]


class ResultLinks(BaseModel):
    markdown: str
    json_: str = Field(alias="json")
    pages: int
    selected_pages: str | None = Field(
        default=None, description="The page numbers the result holds when only some were asked for, e.g. 1-5,9."
    )


class AnswerOut(BaseModel):
    """A completed `vision` task's answer."""

    text: str
    model: str | None
    truncated: bool


class TaskOut(BaseModel):
    id: str
    kind: str
    status: str
    filename: str | None
    priority: int
    attempts: int
    max_attempts: int
    cancel_requested: bool
    progress: Progress
    error: TaskError | None
    result: ResultLinks | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime
    events: list[EventOut] | None = None
    """Set by GET /api/v1/tasks/{id} only: the newest events, oldest first."""
    events_truncated: bool | None = None
    """Set with `events`: whether older events exist than those listed."""
    answer: AnswerOut | None = None
    """Set for completed tasks of kind `vision`."""
    question: str | None = None
    """Set for tasks of kind `vision`: the question asked about the image."""


class TaskListOut(BaseModel):
    tasks: list[TaskOut]
    next_cursor: str | None


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorOut(BaseModel):
    error: ErrorDetail


def task_out(task: Task, events: list[Event] | None = None, *, events_truncated: bool = False) -> TaskOut:
    payload = task.payload if isinstance(task.payload, dict) else {}
    result = None
    if task.status == "completed" and task.kind == "ocr":
        base = f"/api/v1/tasks/{task.id}/result"
        pages = task.result.get("pages", 0) if isinstance(task.result, dict) else 0
        selected = task.result.get("selected_pages") if isinstance(task.result, dict) else None
        result = ResultLinks(
            markdown=f"{base}?format=markdown", json=f"{base}?format=json", pages=pages, selected_pages=selected
        )
    answer = None
    if task.status == "completed" and task.kind == "vision" and isinstance(task.result, dict):
        answer = AnswerOut(
            text=str(task.result.get("answer", "")),
            model=task.result.get("model"),
            truncated=bool(task.result.get("truncated", False)),
        )
    return TaskOut(
        id=task.id,
        kind=task.kind,
        status=str(task.status),
        filename=payload.get("filename"),
        priority=task.priority,
        attempts=task.attempts,
        max_attempts=task.max_attempts,
        cancel_requested=task.cancel_requested,
        progress=Progress(done=task.progress_done, total=task.progress_total, step=task.progress_step),
        error=TaskError(kind=task.error_kind, message=task.error_message) if task.error_kind else None,
        result=result,
        created_at=task.created_at,
        started_at=task.started_at,
        finished_at=task.finished_at,
        updated_at=task.updated_at,
        events=[
            EventOut(type=str(e.type), at=e.at, attempt=e.attempt, worker_id=e.worker_id, detail=dict(e.detail))
            for e in events
        ]
        if events is not None
        else None,
        events_truncated=events_truncated if events is not None else None,
        answer=answer,
        question=payload.get("question") if task.kind == "vision" else None,
    )
