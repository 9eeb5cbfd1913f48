"""Server-sent events for one task and for a caller's task list: frames over service.follow."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import Request

from ocrqueue.api.schemas import task_out
from ocrqueue.service import TaskView
from ocrqueue.service.live import Live, Signal, TaskStream

KEEPALIVE_SECONDS = 15.0
LIST_WINDOW = 100


def _frame(event: str, task: TaskView) -> str:
    data = json.dumps(task_out(task).model_dump(mode="json", by_alias=True))
    return f"event: {event}\ndata: {data}\n\n"


async def task_event_stream(request: Request, stream: TaskStream) -> AsyncIterator[str]:
    """Sends the task, then again each time it changed, and `end` once it is finished."""
    yield "retry: 2000\n\n"
    task = stream.task
    yield _frame("task", task)
    async for update in stream.updates(KEEPALIVE_SECONDS):
        if await request.is_disconnected():
            return
        if update is Signal.DELETED:
            yield "event: deleted\ndata: {}\n\n"
            return
        if update is Signal.QUIET:
            yield ": keep-alive\n\n"
            continue
        task = update
        yield _frame("task", task)
    yield _frame("end", task)


async def tasks_event_stream(request: Request, live: Live, tenant: str | None) -> AsyncIterator[str]:
    """The caller's newest tasks: a `task` event whenever one appears or changes, `deleted` when one goes."""
    yield "retry: 2000\n\n"
    async for changes in live.list_changes(tenant, LIST_WINDOW, KEEPALIVE_SECONDS):
        if await request.is_disconnected():
            return
        if changes is None:
            yield ": keep-alive\n\n"
            continue
        for change in changes:
            if change.task is not None:
                yield _frame("task", change.task)
            else:
                yield f"event: deleted\ndata: {json.dumps({'id': change.deleted_id})}\n\n"
