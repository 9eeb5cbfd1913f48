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
