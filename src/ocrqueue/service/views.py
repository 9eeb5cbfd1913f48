"""What the service hands out about tasks: plain, typed views of a task and its history, so the
adapters present them without knowing the queue's row types or any kind's payload layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ocrqueue.queue import Event, Task, TaskStatus
from ocrqueue.service.catalog import Answer, kind_info
from ocrqueue.service.payloads import Payload


@dataclass(frozen=True)
class EventView:
    type: str
    at: datetime
    attempt: int
    lease_token: int
    worker_id: str | None
    detail: Mapping[str, Any]

    @classmethod
    def of(cls, event: Event) -> EventView:
        return cls(str(event.type), event.at, event.attempt, event.lease_token, event.worker_id, dict(event.detail))


@dataclass(frozen=True)
class TaskView:
    id: str
    kind: str
    status: TaskStatus
    priority: int
    tenant: str | None
    filename: str | None
    attempts: int
    max_attempts: int
    cancel_requested: bool
    progress_done: int
    progress_total: int | None
    progress_step: str | None
    error_kind: str | None
    error_message: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime
    run_at: datetime
    worker_id: str | None
    lease_token: int
    payload: Payload | None
    """The kind's typed payload; None for kinds without one."""
    raw_payload: Any
    result: Any
    document_pages: int | None
    """Pages of the document result: set once a task of a kind with documents completed."""
    selected_pages: str | None
    """The pages the document result holds (e.g. "1-5,9") when only some were asked for."""
    answer: Answer | None
    """Set once a `vision` task completed."""

    @classmethod
    def of(cls, task: Task) -> TaskView:
        info = kind_info(task.kind)
        completed = task.status is TaskStatus.COMPLETED
        raw = task.payload if isinstance(task.payload, dict) else {}
        filename = raw.get("filename")
        pages = None
        selected = None
        if completed and info.has_document:
            found = task.result.get("pages", 0) if isinstance(task.result, dict) else 0
            pages = found if isinstance(found, int) else 0
            chosen = task.result.get("selected_pages") if isinstance(task.result, dict) else None
            selected = chosen if isinstance(chosen, str) else None
        return cls(
            id=task.id,
            kind=task.kind,
            status=task.status,
            priority=task.priority,
            tenant=task.tenant,
            filename=filename if isinstance(filename, str) else None,
            attempts=task.attempts,
            max_attempts=task.max_attempts,
            cancel_requested=task.cancel_requested,
            progress_done=task.progress_done,
            progress_total=task.progress_total,
            progress_step=task.progress_step,
            error_kind=task.error_kind,
            error_message=task.error_message,
            created_at=task.created_at,
            started_at=task.started_at,
            finished_at=task.finished_at,
            updated_at=task.updated_at,
            run_at=task.run_at,
            worker_id=task.worker_id,
            lease_token=task.lease_token,
            payload=info.payload(task.payload),
            raw_payload=task.payload,
            result=task.result,
            document_pages=pages,
            selected_pages=selected,
            answer=info.answer(task.result) if completed and info.answer is not None else None,
        )


@dataclass(frozen=True)
class TaskList:
    tasks: list[TaskView]
    next_cursor: str | None


@dataclass(frozen=True)
class Submitted:
    task: TaskView
    created: bool
    """False when the same submission (or Idempotency-Key) found an existing task, returned instead."""


@dataclass(frozen=True)
class WebhookView:
    """A callback a task has: its latest delivery is itself a task (kind `webhook`) with a history."""

    url: str
    delivery_task_id: str | None
    delivery_status: str | None
