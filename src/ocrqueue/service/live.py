"""Following tasks live in the service's views: the API's event streams and the CLI's waits, over
the process's one watcher (service/follow.py), which reads a task only when the store says it changed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

from ocrqueue.queue import Task
from ocrqueue.service.follow import Signal, TaskFollower, list_changes, task_updates, wait_for_tasks
from ocrqueue.service.tasks import ANY_TENANT, Tasks
from ocrqueue.service.views import TaskView

__all__ = ["Live", "Signal", "TaskListChange", "TaskStream"]


@dataclass(frozen=True)
class TaskListChange:
    """A task appeared or changed in a followed list (`task`), or left it (`deleted_id`)."""

    task: TaskView | None = None
    deleted_id: str | None = None


class TaskStream:
    """One visible task, followed from the row it was opened with."""

    def __init__(self, follower: TaskFollower, row: Task) -> None:
        self._follower = follower
        self._row = row
        self.task = TaskView.of(row)

    async def updates(self, keepalive_seconds: float) -> AsyncIterator[TaskView | Signal]:
        """Each change until the task is finished or deleted; QUIET after each quiet keep-alive interval."""
        async for update in task_updates(self._follower, self._row, keepalive_seconds):
            yield update if isinstance(update, Signal) else TaskView.of(update)


class Live:
    """The process's live view of tasks; close it when the process stops serving."""

    def __init__(self, tasks: Tasks) -> None:
        self._tasks = tasks
        self.follower = TaskFollower(tasks.store)

    def open(self, task_id: str, tenant: str | None = ANY_TENANT) -> TaskStream:
        """Blocking (one read): the task to follow; NotFound as for `Tasks.get`."""
        return TaskStream(self.follower, self._tasks.row(task_id, tenant))

    async def list_changes(
        self, tenant: str | None, window: int, keepalive_seconds: float
    ) -> AsyncIterator[list[TaskListChange] | None]:
        """The tenant's newest `window` tasks as they change; None after each quiet keep-alive interval."""
        async for changes in list_changes(self.follower, self._tasks.store, tenant, window, keepalive_seconds):
            if changes is None:
                yield None
                continue
            yield [
                TaskListChange(TaskView.of(c.task)) if c.task is not None else TaskListChange(deleted_id=c.deleted_id)
                for c in changes
            ]

    def wait(
        self,
        task_ids: Iterable[str],
        timeout: float | None,
        on_update: Callable[[str, TaskView | None], None] = lambda _id, _task: None,
    ) -> dict[str, TaskView | None]:
        """Block until every task is finished or deleted, or `timeout` passes; each task's last view
        (None: deleted or missing). `on_update` runs on the caller's thread with each change."""
        last = wait_for_tasks(self.follower, task_ids, timeout, lambda task_id, task: on_update(task_id, _view(task)))
        return {task_id: _view(task) for task_id, task in last.items()}

    def close(self) -> None:
        self.follower.close()


def _view(task: Task | None) -> TaskView | None:
    return TaskView.of(task) if task is not None else None
