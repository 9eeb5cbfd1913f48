"""Server-sent events for one task: an event on every change, ending at a terminal state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.schemas import task_out
from ocrqueue.queue import Store, Task

POLL_SECONDS = 0.5
KEEPALIVE_SECONDS = 15.0


def _frame(event: str, task: Task) -> str:
    data = json.dumps(task_out(task).model_dump(mode="json", by_alias=True))
    return f"event: {event}\ndata: {data}\n\n"


async def task_event_stream(request: Request, store: Store, task: Task) -> AsyncIterator[str]:
    """Reads the task row twice a second; sends only when it changed, so a quiet task costs nothing."""
    yield "retry: 2000\n\n"
    yield _frame("task", task)
    last_seen = task.updated_at
    idle = 0.0
    while not task.status.terminal:
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_SECONDS)
        current = await run_in_threadpool(store.get, task.id)
        if current is None:
            yield "event: deleted\ndata: {}\n\n"
            return
        task = current
        if task.updated_at != last_seen:
            last_seen, idle = task.updated_at, 0.0
            yield _frame("task", task)
        else:
            idle += POLL_SECONDS
            if idle >= KEEPALIVE_SECONDS:
                idle = 0.0
                yield ": keep-alive\n\n"
    yield _frame("end", task)


LIST_POLL_SECONDS = 1.0
LIST_WINDOW = 100


async def tasks_event_stream(request: Request, store: Store, tenant: str | None) -> AsyncIterator[str]:
    """The caller's newest tasks: a `task` event whenever one appears or changes, `deleted` when one goes."""
    yield "retry: 2000\n\n"
    seen: dict[str, object] = {}
    idle = 0.0
    while not await request.is_disconnected():
        page = await run_in_threadpool(store.list_tasks, tenant=tenant, limit=LIST_WINDOW)
        current = {task.id: task for task in page.tasks}
        changed = [task for task in reversed(page.tasks) if seen.get(task.id) != task.updated_at]
        for task in changed:
            yield _frame("task", task)
        for gone in [task_id for task_id in seen if task_id not in current]:
            if await run_in_threadpool(store.get, gone) is None:
                yield f"event: deleted\ndata: {json.dumps({'id': gone})}\n\n"
        seen = {task_id: task.updated_at for task_id, task in current.items()}
        idle = 0.0 if changed else idle + LIST_POLL_SECONDS
        if idle >= KEEPALIVE_SECONDS:
            idle = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(LIST_POLL_SECONDS)
