"""Reading back what worker processes did: task histories, lease intervals and handler records."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ocrqueue.queue import Event, EventType, Store, Task, TaskStatus

# Events that end the lease whose token they carry. A `lease_lost` "write rejected" event is not
# one of them: it is a zombie's trace, written after its lease had already ended.
_LEASE_ENDS = {
    EventType.COMPLETED,
    EventType.CANCELLED,
    EventType.RETRIED,
    EventType.DEAD_LETTERED,
    EventType.RELEASED,
}


@dataclass(frozen=True)
class Run:
    """One line the `sleep` handler appended to its record file."""

    task_id: str
    attempt: int
    pid: int
    what: str  # "start" or "done"


def read_record(path: Path) -> list[Run]:
    runs = []
    for line in path.read_text().splitlines():
        task_id, attempt, pid, what = line.split()
        runs.append(Run(task_id, int(attempt), int(pid), what))
    return runs


def all_tasks(store: Store) -> list[Task]:
    tasks: list[Task] = []
    cursor = None
    while True:
        page = store.list_tasks(limit=1000, cursor=cursor)
        tasks += page.tasks
        if page.next_cursor is None:
            return tasks
        cursor = page.next_cursor


def counts(store: Store) -> dict[TaskStatus, int]:
    return {status: n for status, n in store.counts_by_status().items() if n}


def lease_problems(events: list[Event]) -> list[str]:
    """Everything wrong with one task's lease history (an empty list when it is sound).

    Checked: every claim takes the next lease token; no claim happens while an earlier lease is
    still held (by event order and by the database clock); a lease ends in the name of the worker
    that claimed it; at most one `completed` event.
    """
    problems: list[str] = []
    held: Event | None = None
    last_end: Event | None = None
    last_token = 0
    completed = 0
    for event in events:
        if event.type is EventType.CLAIMED:
            if held is not None:
                problems.append(f"claim with token {event.lease_token} while token {held.lease_token} was held")
            if event.lease_token != last_token + 1:
                problems.append(f"claim with token {event.lease_token} after token {last_token}")
            if last_end is not None and event.at < last_end.at:
                problems.append(f"claim {event.lease_token} at {event.at} before lease end {last_end.at}")
            held, last_token = event, event.lease_token
        elif event.type in _LEASE_ENDS or (
            event.type is EventType.LEASE_LOST and event.detail.get("reason") == "lease expired"
        ):
            if held is not None and event.lease_token == held.lease_token:
                if event.worker_id != held.worker_id:
                    problems.append(f"{event.type} of token {event.lease_token} by {event.worker_id}, not its holder")
                held, last_end = None, event
            elif held is None and event.type is EventType.CANCELLED:
                pass  # a pending task cancelled: no lease involved
            elif last_end is None or event.lease_token != last_end.lease_token:
                problems.append(f"{event.type} for token {event.lease_token}, which was not held")
        if event.type is EventType.COMPLETED:
            completed += 1
    if completed > 1:
        problems.append(f"{completed} completed events")
    return problems


def history_problems(store: Store, task_ids: list[str]) -> dict[str, list[str]]:
    """`lease_problems` of every task that has any."""
    found: dict[str, list[str]] = {}
    for task_id in task_ids:
        problems = lease_problems(store.events(task_id))
        if problems:
            found[task_id] = problems
    return found


def claims(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.CLAIMED]


def runs_by_task(runs: list[Run]) -> dict[str, list[Run]]:
    grouped: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        grouped[run.task_id].append(run)
    return grouped
