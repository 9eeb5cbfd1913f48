"""A handler that hangs must not hold its task forever (invariants 4 and 9).

The built-in `sleep` kind's `error: "hang"` blocks the handler thread for an hour ("stop heartbeating
work"). A stuck OCR engine looks the same. The task should come back like any stalled attempt and,
after `max_attempts`, end in dead_letter saying why, instead of staying `running` for good.
"""

from __future__ import annotations

import pytest
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance


def test_hung_handler_does_not_hold_its_task_forever(store: Store, workers: Processes) -> None:
    # Two workers, one slot each: each attempt can strand one slot.
    quick_to_give_up = {"OCRQUEUE_TASK_STALL_SECONDS": "3"}
    hung_on = {registered_worker_id(store, workers.start_worker(1, env=quick_to_give_up)) for _ in range(2)}
    spec = TaskSpec("sleep", {"pages": 2, "fail_attempts": 99, "error": "hang"}, max_attempts=2)
    task_id = store.submit(spec).task.id

    def holder() -> str | None:
        task = store.get(task_id)
        return task.worker_id if task is not None and task.status is TaskStatus.RUNNING else None

    first = wait_for(holder, 30, 0.05, "a worker to run the task")
    assert first in hung_on
    # Given up after 3 s of silence, each attempt fails as stalled: two attempts well within 25 s.
    task = wait_for(
        lambda: (t := store.get(task_id)) is not None and t.status.terminal and t,
        25,
        0.1,
        "the hung task to settle",
    )
    assert (task.status, task.attempts) == (TaskStatus.DEAD_LETTER, 2)
    assert task.error_kind == "stalled" and "given up as hung" in (task.error_message or "")
    assert [e.detail.get("error_kind") for e in store.events(task_id) if e.type is EventType.RETRIED] == ["stalled"]
