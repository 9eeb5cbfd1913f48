"""Wait for a condition instead of sleeping for a guessed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from ocrqueue.queue import Store, TaskStatus

T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout: float = 30.0, interval: float = 0.02, what: str = "") -> T:
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
        time.sleep(interval)


def wait_terminal(store: Store, task_id: str, timeout: float = 60.0) -> TaskStatus:
    """The task's status once it is completed, cancelled or dead-lettered."""

    def status() -> TaskStatus | None:
        task = store.get(task_id)
        return task.status if task is not None and task.status.terminal else None

    return wait_for(status, timeout=timeout, what=f"task {task_id} to finish")
