"""Response bodies, as published in the OpenAPI document."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ocrqueue.service import EventView, TaskView, VisionPayload


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
    pdf: str = Field(description="The searchable PDF: the original pages with an invisible text layer.")
    text: str = Field(description="Plain text: blocks apart by a blank line, pages by a form feed.")
    html: str = Field(description="A complete HTML page.")
    hocr: str = Field(description="hOCR 1.2: word boxes (pixels of the 100 dpi page images) and confidences.")
    alto: str = Field(description="ALTO 4.4 XML: word boxes (pixels of the 100 dpi page images) and confidences.")
    pages: int
    selected_pages: str | None = Field(
        default=None, description="The page numbers the result holds when only some were asked for, e.g. 1-5,9."
    )


class WebhookOut(BaseModel):
    """A callback the task has: its latest delivery is itself a task (kind `webhook`) with a history."""

    url: str
    delivery_task_id: str | None
    delivery_status: str | None


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
    webhooks: list[WebhookOut] | None = None
    """Set by GET /api/v1/tasks/{id} for a task submitted with `callback_url`."""


class SubmittedOut(BaseModel):
    """One `file` part of a submit with several: its task, new or found."""

    filename: str
    created: bool = Field(description="True: a new task; false: the same file and options had one already.")
    same_as: int | None = Field(
        default=None, description="The earlier part of this request (index from 0) with this task: an identical file."
    )
    task: TaskOut


class BatchOut(BaseModel):
    """The answer to a submit with several `file` parts: one entry per part, in order."""

    tasks: list[SubmittedOut]


class TaskListOut(BaseModel):
    tasks: list[TaskOut]
    next_cursor: str | None


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorOut(BaseModel):
    error: ErrorDetail


def task_out(task: TaskView, events: list[EventView] | None = None, *, events_truncated: bool = False) -> TaskOut:
    result = None
    if task.document_pages is not None:
        base = f"/api/v1/tasks/{task.id}/result"
        result = ResultLinks(
            markdown=f"{base}?format=markdown",
            json=f"{base}?format=json",
            pdf=f"{base}?format=pdf",
            text=f"{base}?format=text",
            html=f"{base}?format=html",
            hocr=f"{base}?format=hocr",
            alto=f"{base}?format=alto",
            pages=task.document_pages,
            selected_pages=task.selected_pages,
        )
    answer = None
    if task.answer is not None:
        answer = AnswerOut(text=task.answer.text, model=task.answer.model, truncated=task.answer.truncated)
    return TaskOut(
        id=task.id,
        kind=task.kind,
        status=str(task.status),
        filename=task.filename,
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
            EventOut(type=e.type, at=e.at, attempt=e.attempt, worker_id=e.worker_id, detail=dict(e.detail))
            for e in events
        ]
        if events is not None
        else None,
        events_truncated=events_truncated if events is not None else None,
        answer=answer,
        question=task.payload.question if isinstance(task.payload, VisionPayload) else None,
    )
