"""Turning database rows into the queue's data classes, for either backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ocrqueue.queue.drivers.columns import TASK_COLUMN_NAMES
from ocrqueue.queue.models import (
    JSON,
    Checkpoint,
    Event,
    EventType,
    FailOutcome,
    FailResult,
    HeartbeatResult,
    Lease,
    Task,
    TaskPage,
    TaskStatus,
    WorkerInfo,
)

Row = Sequence[Any]


def to_datetime(value: Any) -> datetime | None:
    """PostgreSQL hands back aware datetimes, SQLite epoch seconds; both become aware UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromtimestamp(float(value), UTC)


def _required_datetime(value: Any) -> datetime:
    converted = to_datetime(value)
    assert converted is not None
    return converted


def decode_json(value: str | bytes) -> JSON:
    """Both drivers hand JSON columns over as text (the PostgreSQL driver registers a text loader)."""
    return json.loads(value)


def task_from_row(row: Row) -> Task:
    return Task(
        id=row[0],
        kind=row[1],
        status=TaskStatus(row[2]),
        priority=row[3],
        payload=decode_json(row[4]),
        tenant=row[5],
        dedup_key=row[6],
        attempts=row[7],
        max_attempts=row[8],
        lease_token=row[9],
        worker_id=row[10],
        lease_expires_at=to_datetime(row[11]),
        cancel_requested=bool(row[12]),
        progress_done=row[13],
        progress_total=row[14],
        progress_step=row[15],
        result=decode_json(row[16]) if row[16] is not None else None,
        error_kind=row[17],
        error_message=row[18],
        run_at=_required_datetime(row[19]),
        created_at=_required_datetime(row[20]),
        started_at=to_datetime(row[21]),
        finished_at=to_datetime(row[22]),
        updated_at=_required_datetime(row[23]),
        parent_id=row[24],
        children=row[25],
    )


def event_from_row(row: Row) -> Event:
    return Event(
        id=row[0],
        task_id=row[1],
        type=EventType(row[2]),
        at=_required_datetime(row[3]),
        attempt=row[4],
        lease_token=row[5],
        worker_id=row[6],
        detail={k: v for k, v in decode_json(row[7]).items() if v is not None},
    )


def task_with_events(rows: Sequence[Row]) -> tuple[Task, list[Event]] | None:
    """Rows of a task joined with its events: the task's columns, then an event's (NULL when none)."""
    if not rows:
        return None
    width = len(TASK_COLUMN_NAMES)
    return task_from_row(rows[0]), [event_from_row(row[width:]) for row in rows if row[width] is not None]


def checkpoint_from_row(row: Row) -> Checkpoint:
    return Checkpoint(task_id=row[0], seq=row[1], data=decode_json(row[2]), lease_token=row[3])


def worker_from_row(row: Row) -> WorkerInfo:
    return WorkerInfo(
        id=row[0],
        host=row[1],
        pid=row[2],
        concurrency=row[3],
        kinds=list(decode_json(row[4])),
        started_at=_required_datetime(row[5]),
        last_seen_at=_required_datetime(row[6]),
        stopped_at=to_datetime(row[7]),
    )


def dumps(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def counts_from_rows(rows: Sequence[Row]) -> dict[TaskStatus, int]:
    counts = {status: 0 for status in TaskStatus}
    for status, count in rows:
        counts[TaskStatus(status)] = int(count)
    return counts


def kind_counts_from_rows(rows: Sequence[Row]) -> dict[tuple[str, TaskStatus], int]:
    return {(str(kind), TaskStatus(status)): int(count) for kind, status, count in rows}


def heartbeat_result(leases: Sequence[Lease], rows: Sequence[Row]) -> HeartbeatResult:
    """Rows are (task id, cancel requested) for every lease the heartbeat renewed."""
    held = frozenset(row[0] for row in rows)
    return HeartbeatResult(
        held=held,
        lost=frozenset(lease.task_id for lease in leases) - held,
        cancel_requested=frozenset(row[0] for row in rows if row[1]),
    )


def fail_result(status: TaskStatus, delay_seconds: float) -> FailResult:
    if status is TaskStatus.PENDING:
        return FailResult(FailOutcome.RETRY, delay_seconds)
    if status is TaskStatus.DEAD_LETTER:
        return FailResult(FailOutcome.DEAD_LETTER)
    return FailResult(FailOutcome.CANCELLED)


def list_statement(base: str, filters: dict[str, str], order: str, params: dict[str, Any]) -> str:
    """`base` with the filter clauses whose parameter is set, then `order`."""
    where = [clause for name, clause in filters.items() if params[name] is not None]
    return " ".join([base, ("WHERE " + " AND ".join(where)) if where else "", order])


def task_page(rows: Sequence[Row], limit: int) -> TaskPage:
    """Rows fetched with limit + 1: one more than the page says whether another page follows."""
    tasks = [task_from_row(row) for row in rows]
    next_cursor = tasks[limit - 1].id if len(tasks) > limit else None
    return TaskPage(tasks[:limit], next_cursor)
