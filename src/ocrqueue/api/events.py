"""Server-sent events for one task: an event on every change, ending at a terminal state."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.schemas import task_out
from ocrqueue.service import Tasks, TaskView

POLL_SECONDS = 0.5
KEEPALIVE_SECONDS = 15.0

Update = TaskView | None | Exception
"""What a follower is handed each poll: its task, None once deleted, or the error the read raised."""


class TaskWatch:
    """Reads every task that has an open event stream in one statement, twice a second, and hands
    each stream its row: fifty streams cost one query and one threadpool trip per poll, not fifty,
    which keeps the API's event loop and database pool free for status reads."""

    def __init__(self, tasks: Tasks, interval: float = POLL_SECONDS) -> None:
        self._tasks = tasks
        self._interval = interval
        self._followers: dict[str, set[asyncio.Queue[Update]]] = {}
        self._poller: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def follow(self, task_id: str) -> AsyncIterator[asyncio.Queue[Update]]:
        """A queue that receives the task's latest row after every poll, while the block runs."""
        updates: asyncio.Queue[Update] = asyncio.Queue(maxsize=1)
        self._followers.setdefault(task_id, set()).add(updates)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll())
        try:
            yield updates
        finally:
            followers = self._followers[task_id]
            followers.discard(updates)
            if not followers:
                del self._followers[task_id]

    async def _poll(self) -> None:
        while self._followers:
            await asyncio.sleep(self._interval)
            ids = list(self._followers)
            found: dict[str, Update]
            try:
                found = {task.id: task for task in await run_in_threadpool(self._tasks.get_many, ids)}
            except Exception as exc:  # each stream fails as its own read would have
                found = dict.fromkeys(ids, exc)
            for task_id in ids:
                for updates in self._followers.get(task_id, ()):
                    if updates.full():  # a stream that fell behind only needs the newest row
                        updates.get_nowait()
                    updates.put_nowait(found.get(task_id))


def _frame(event: str, task: TaskView) -> str:
    data = json.dumps(task_out(task).model_dump(mode="json", by_alias=True))
    return f"event: {event}\ndata: {data}\n\n"


async def task_event_stream(request: Request, watch: TaskWatch, task: TaskView) -> AsyncIterator[str]:
    """Sends the task, then again only when it changed, so a quiet task costs nothing."""
    yield "retry: 2000\n\n"
    yield _frame("task", task)
    last_seen = task.updated_at
    idle = 0.0
    async with watch.follow(task.id) as updates:
        while not task.status.terminal:
            if await request.is_disconnected():
                return
            current = await updates.get()
            if isinstance(current, Exception):
                raise current
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


async def tasks_event_stream(request: Request, tasks: Tasks, tenant: str | None) -> AsyncIterator[str]:
    """The caller's newest tasks: a `task` event whenever one appears or changes, `deleted` when one goes."""
    yield "retry: 2000\n\n"
    seen: dict[str, object] = {}
    idle = 0.0
    while not await request.is_disconnected():
        page = await run_in_threadpool(lambda: tasks.list(tenant=tenant, limit=LIST_WINDOW))
        current = {task.id: task for task in page.tasks}
        changed = [task for task in reversed(page.tasks) if seen.get(task.id) != task.updated_at]
        for task in changed:
            yield _frame("task", task)
        for gone in [task_id for task_id in seen if task_id not in current]:
            if await run_in_threadpool(tasks.find, gone) is None:
                yield f"event: deleted\ndata: {json.dumps({'id': gone})}\n\n"
        seen = {task_id: task.updated_at for task_id, task in current.items()}
        idle = 0.0 if changed else idle + LIST_POLL_SECONDS
        if idle >= KEEPALIVE_SECONDS:
            idle = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(LIST_POLL_SECONDS)
