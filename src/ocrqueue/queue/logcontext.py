"""What a log line is about: the worker that logs it and the task it is running.

The worker runtime binds these in context variables, so any log formatter can add the task id,
tenant and worker id to every line a handler (or the runtime) logs, without each call passing
them. A formatter reads them with `current_worker_id()` and `current_task()`; the queue itself
stays free of any logging format.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ocrqueue.queue.models import Task


@dataclass(frozen=True)
class TaskLogContext:
    task_id: str
    kind: str
    tenant: str | None
    attempt: int


_worker_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("ocrqueue_worker_id", default=None)
_task: contextvars.ContextVar[TaskLogContext | None] = contextvars.ContextVar("ocrqueue_task", default=None)


def current_worker_id() -> str | None:
    return _worker_id.get()


def current_task() -> TaskLogContext | None:
    return _task.get()


def bind_worker(worker_id: str) -> None:
    """This thread (and the threads it starts with `thread_in_context`) logs as `worker_id`."""
    _worker_id.set(worker_id)


@contextlib.contextmanager
def running_task(task: Task) -> Iterator[None]:
    """Lines logged inside are about `task`."""
    token = _task.set(TaskLogContext(task.id, task.kind, task.tenant, task.attempts))
    try:
        yield
    finally:
        _task.reset(token)


def thread_in_context(target: Callable[[], object], name: str) -> threading.Thread:
    """A daemon thread that starts with a copy of the caller's context (a new thread starts with
    an empty one), so it logs as the same worker."""
    context = contextvars.copy_context()
    return threading.Thread(target=context.run, args=(target,), name=name, daemon=True)
