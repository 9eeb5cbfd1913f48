"""SQLite driver: one connection per thread, WAL, short `BEGIN IMMEDIATE` transactions.

The threads of one process take turns at writing through a lock: SQLite's busy handler would make
a waiting thread sleep in growing steps (up to 100 ms each) while another thread of the same
process writes again and again, so a worker's completer could starve behind its claim loop. WAL
checkpoints run on a thread of their own at most every half second while there are writes: run by
SQLite inside a commit, a checkpoint's fsync held up every other writer of the process with it.

Other processes' commits are noticed by polling `PRAGMA data_version` (a cheap read that changes
whenever another connection commits) every 5 ms while things change, easing to every 25 ms when
quiet, which wakes idle workers within a few milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ocrqueue.queue.drivers import sqlite_sql as sql
from ocrqueue.queue.drivers.rows import (
    checkpoint_from_row,
    counts_from_rows,
    dumps,
    event_from_row,
    fail_result,
    heartbeat_result,
    kind_counts_from_rows,
    list_statement,
    task_from_row,
    task_page,
    task_with_events,
    worker_from_row,
)
from ocrqueue.queue.errors import LeaseLost
from ocrqueue.queue.models import (
    JSON,
    Checkpoint,
    ClaimedTask,
    CompleteResult,
    Event,
    EventType,
    FailResult,
    HeartbeatResult,
    Lease,
    ReapResult,
    SubmitResult,
    Task,
    TaskPage,
    TaskSpec,
    TaskStatus,
    WorkerInfo,
    new_task_id,
)
from ocrqueue.queue.store import Store

log = logging.getLogger(__name__)
Params = dict[str, Any]
_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_WATCH_FASTEST_SECONDS = 0.005
_WATCH_SLOWEST_SECONDS = 0.025
_CHECKPOINT_EVERY_SECONDS = 0.5
_CLOCK_STEP_TOLERANCE_SECONDS = 1.0
"""How far back the clock must step before the reaper re-times pending tasks and leases (see REBASE_PENDING)."""


class SQLiteStore(Store):
    backend = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._path = path
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._closing = threading.Event()
        self._writer = threading.Lock()
        self._written = threading.Event()
        self._checkpointer: threading.Thread | None = None
        self._watcher: threading.Thread | None = None

    # -- plumbing ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, timeout=30.0, isolation_level=None, check_same_thread=False)
        for pragma in sql.PRAGMAS:
            conn.execute(pragma)
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    @property
    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _is_retryable_db_error(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.OperationalError) and exc.sqlite_errorcode in _BUSY_CODES

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction, taking the write lock up front so it never deadlocks."""
        conn = self._conn
        with self._writer:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self._written.set()
        if self._checkpointer is None:
            self._start_checkpointer()

    def _start_checkpointer(self) -> None:
        with self._connections_lock:
            if self._checkpointer is None and not self._closing.is_set():
                self._checkpointer = threading.Thread(
                    target=self._checkpoints, name="ocrqueue-sqlite-checkpoint", daemon=True
                )
                self._checkpointer.start()

    def _checkpoints(self) -> None:
        """Copy the WAL into the database after writes, outside every writer's transaction.

        A passive checkpoint never blocks writers or readers; it copies what no reader still needs.
        """
        conn = sqlite3.connect(self._path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            while True:
                self._written.wait()
                if self._closing.is_set():
                    return
                self._written.clear()
                try:
                    conn.execute(sql.CHECKPOINT_WAL).fetchall()
                except sqlite3.OperationalError as exc:
                    log.warning("WAL checkpoint failed (%s); retrying after the next write", exc)
                if self._closing.wait(_CHECKPOINT_EVERY_SECONDS):
                    return
        finally:
            conn.close()

    def _read(self, statement: str, params: Params | None = None) -> list[tuple[Any, ...]]:
        return self._retrying(lambda: self._conn.execute(statement, params or {}).fetchall(), "read")

    @staticmethod
    def _event(
        conn: sqlite3.Connection,
        task_id: str,
        type_: EventType,
        attempt: int,
        lease_token: int,
        worker_id: str | None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        conn.execute(
            sql.EVENT,
            {
                "task_id": task_id,
                "type": str(type_),
                "attempt": attempt,
                "lease_token": lease_token,
                "worker_id": worker_id,
                "detail": dumps(detail or {}),
            },
        )

    @staticmethod
    def _settle_parents(conn: sqlite3.Connection, child_ids: Sequence[str]) -> None:
        """Dead-letter the waiting ancestors of children that just ended without completing."""
        if not child_ids:
            return
        chain = [list(row) for row in conn.execute(sql.SETTLE_CHAIN, {"ids": json.dumps(list(child_ids))})]
        if not chain:
            return
        parents = [row[0] for row in conn.execute(sql.SETTLE_PARENTS, {"chain": json.dumps(chain)})]
        if parents:
            conn.execute(sql.SETTLED_PARENT_EVENTS, {"ids": json.dumps(parents)})

    def _lease_lost(self, lease: Lease, operation: str) -> LeaseLost:
        def record() -> None:
            with self._write() as conn:
                row = conn.execute(sql.LEASE_STATE, {"id": lease.task_id}).fetchone()
                if row is not None:
                    detail = {
                        "reason": "write rejected",
                        "operation": operation,
                        "current_token": row[1],
                        "current_status": row[0],
                    }
                    self._event(conn, lease.task_id, EventType.LEASE_LOST, row[2], lease.token, lease.worker_id, detail)

        self._retrying(record, "record rejected write")
        return LeaseLost(f"task {lease.task_id}: lease {lease.token} is no longer held ({operation} rejected)")

    def start_listening(self) -> None:
        if self._watcher is None:
            self._watcher = threading.Thread(target=self._watch, name="ocrqueue-sqlite-watch", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        conn = sqlite3.connect(self._path, timeout=30.0, isolation_level=None, check_same_thread=False)
        interval = _WATCH_FASTEST_SECONDS
        try:
            version = conn.execute(sql.DATA_VERSION).fetchone()[0]
            while not self._closing.wait(interval):
                current = conn.execute(sql.DATA_VERSION).fetchone()[0]
                if current != version:
                    version, interval = current, _WATCH_FASTEST_SECONDS
                    self._wake_local()
                    self._changed(None)
                else:
                    interval = min(interval * 1.5, _WATCH_SLOWEST_SECONDS)
        finally:
            conn.close()

    def follow(self, follower: str, task_ids: Sequence[str], seconds: float) -> None:
        """Nothing to register: every commit changes `data_version`, followed or not."""

    def unfollow(self, follower: str, task_ids: Sequence[str]) -> None:
        """Nothing was registered."""

    # -- submitting -------------------------------------------------------------------------
    def submit_many(self, specs: Sequence[TaskSpec]) -> list[SubmitResult]:
        if not specs:
            return []
        rows = [
            {
                "id": new_task_id(),
                "kind": s.kind,
                "priority": s.priority,
                "payload": dumps(s.payload),
                "tenant": s.tenant,
                "dedup_key": s.dedup_key,
                "max_attempts": self.max_attempts_for(s),
                "delay": float(max(0.0, s.delay_seconds)),
                "detail": dumps(dict(s.note or {})),
            }
            for s in specs
        ]

        def run() -> list[SubmitResult]:
            results: list[SubmitResult] = []
            with self._write() as conn:
                for params in rows:
                    inserted = conn.execute(sql.SUBMIT_ONE, params).fetchone()
                    if inserted is not None:
                        conn.execute(sql.SUBMITTED_EVENT, {"id": params["id"], "detail": params["detail"]})
                        results.append(SubmitResult(task_from_row(inserted), True))
                        continue
                    own = conn.execute(sql.GET_BY_ID, {"id": params["id"]}).fetchone()
                    if own is not None:  # a retried call whose first try committed
                        results.append(SubmitResult(task_from_row(own), True))
                        continue
                    existing = conn.execute(sql.GET_LIVE_BY_DEDUP, {"key": params["dedup_key"]}).fetchone()
                    assert existing is not None, "insert conflicted but no live task holds the key"
                    results.append(SubmitResult(task_from_row(existing), False))
            return results

        results = self._retrying(run, "submit")
        self._wake_local()
        return results

    # -- worker operations ------------------------------------------------------------------
    def claim(
        self, worker_id: str, limit: int, lease_seconds: float, kinds: Sequence[str] | None = None
    ) -> list[ClaimedTask]:
        params: Params = {"worker_id": worker_id, "limit": limit, "lease": lease_seconds}
        statement = sql.CLAIM
        if kinds is not None:
            statement, params["kinds"] = sql.CLAIM_KINDS, json.dumps(list(kinds))

        def run() -> list[Task]:
            with self._write() as conn:
                rows = conn.execute(statement, params).fetchall()
                if rows:
                    conn.execute(sql.CLAIMED_EVENTS, {"ids": json.dumps([row[0] for row in rows])})
            return [task_from_row(row) for row in rows]

        tasks = self._retrying(run, "claim")
        tasks.sort(key=lambda t: (-t.priority, t.run_at, t.id))
        return [ClaimedTask(t, Lease(t.id, t.lease_token, worker_id)) for t in tasks]

    def heartbeat(self, worker_id: str, leases: Iterable[Lease], lease_seconds: float) -> HeartbeatResult:
        leases = list(leases)
        keys = json.dumps([f"{lease.task_id}:{lease.token}" for lease in leases])

        def run() -> list[tuple[Any, ...]]:
            with self._write() as conn:
                conn.execute(sql.TOUCH_WORKER, {"worker_id": worker_id})
                params = {"worker_id": worker_id, "lease": lease_seconds, "leases": keys}
                return conn.execute(sql.HEARTBEAT, params).fetchall()

        rows = self._retrying(run, "heartbeat")
        return heartbeat_result(leases, rows)

    def _fenced_write(self, statement: str, params: Params, what: str) -> tuple[Any, ...] | None:
        def run() -> tuple[Any, ...] | None:
            with self._write() as conn:
                row: tuple[Any, ...] | None = conn.execute(statement, params).fetchone()
                return row

        return self._retrying(run, what)

    def progress(self, lease: Lease, done: int, total: int | None, step: str | None) -> bool:
        params = {"id": lease.task_id, "token": lease.token, "done": done, "total": total, "step": step}

        def run() -> tuple[Any, ...] | None:
            with self._write() as conn:
                conn.execute(sql.PARENT_PROGRESS, params)
                row: tuple[Any, ...] | None = conn.execute(sql.PROGRESS, params).fetchone()
                return row

        row = self._retrying(run, "progress")
        if row is None:
            raise self._lease_lost(lease, "progress")
        return bool(row[0])

    def is_cancel_requested(self, lease: Lease) -> bool:
        rows = self._read(sql.CANCEL_REQUESTED, {"id": lease.task_id, "token": lease.token})
        if not rows:
            raise self._lease_lost(lease, "cancel check")
        return bool(rows[0][0])

    def checkpoint(self, lease: Lease, seq: int, data: JSON) -> None:
        params = {"id": lease.task_id, "token": lease.token, "seq": seq, "data": dumps(data)}
        if self._fenced_write(sql.CHECKPOINT, params, "checkpoint") is None:
            raise self._lease_lost(lease, f"checkpoint {seq}")

    def warn(self, lease: Lease, detail: Mapping[str, JSON]) -> None:
        params = {"id": lease.task_id, "token": lease.token, "detail": dumps(dict(detail))}
        if self._fenced_write(sql.WARNED_EVENT, params, "warn") is None:
            raise self._lease_lost(lease, "warn")

    def complete_many(self, items: Sequence[tuple[Lease, JSON]]) -> dict[str, CompleteResult | None]:
        encoded = json.dumps([[lease.task_id, lease.token, dumps(result)] for lease, result in items])

        def run() -> dict[str, TaskStatus]:
            with self._write() as conn:
                rows = conn.execute(sql.COMPLETE_MANY, {"items": encoded}).fetchall()
                conn.execute(sql.FINISHED_EVENTS, {"ids": json.dumps([row[0] for row in rows])})
                self._settle_parents(conn, [row[0] for row in rows if row[1] != TaskStatus.COMPLETED])
            return {task_id: TaskStatus(status) for task_id, status in rows}

        done = self._retrying(run, "complete")
        outcomes: dict[str, CompleteResult | None] = {}
        for lease, _ in items:
            status = done.get(lease.task_id)
            outcomes[lease.task_id] = CompleteResult(status) if status is not None else None
            if status is None:
                self._lease_lost(lease, "complete")
        return outcomes

    def fail(self, lease: Lease, *, error_kind: str, message: str, retryable: bool, delay_seconds: float) -> FailResult:
        params = {
            "id": lease.task_id,
            "token": lease.token,
            "worker_id": lease.worker_id,
            "error_kind": error_kind,
            "message": message,
            "retryable": retryable,
            "delay": float(delay_seconds),
        }

        def run() -> TaskStatus | None:
            with self._write() as conn:
                row = conn.execute(sql.FAIL, params).fetchone()
                if row is None:
                    return None
                conn.execute(sql.FAILED_EVENT, params)
                self._settle_parents(conn, [lease.task_id])
                return TaskStatus(row[1])

        status = self._retrying(run, "fail")
        if status is None:
            raise self._lease_lost(lease, "fail")
        return fail_result(status, delay_seconds)

    def release(
        self, worker_id: str, leases: Iterable[Lease], *, delay_seconds: float = 0.0, reason: str = "worker stopping"
    ) -> list[str]:
        keys = json.dumps([f"{lease.task_id}:{lease.token}" for lease in leases])
        params = {"leases": keys, "delay": float(delay_seconds), "reason": reason, "worker_id": worker_id}

        def run() -> list[str]:
            with self._write() as conn:
                released = [row[0] for row in conn.execute(sql.RELEASE, params).fetchall()]
                if released:
                    conn.execute(sql.RELEASED_EVENTS, params | {"ids": json.dumps(released)})
                    self._settle_parents(conn, released)
            return released

        released = self._retrying(run, "release")
        if released:
            self._wake_local()
        return released

    # -- parents and children ---------------------------------------------------------------
    def fan_out(self, lease: Lease, children: Sequence[TaskSpec]) -> list[Task]:
        items = json.dumps(
            [[new_task_id(), spec.kind, dumps(spec.payload), self.max_attempts_for(spec)] for spec in children]
        )
        params: Params = {
            "id": lease.task_id,
            "token": lease.token,
            "count": len(children),
            "worker_id": lease.worker_id,
            "children": items,
        }

        def run() -> TaskStatus | None:
            with self._write() as conn:
                row = conn.execute(sql.FAN_OUT, params).fetchone()
                if row is None:
                    return None
                conn.execute(sql.FANNED_OUT_EVENT, params)
                if row[0] == TaskStatus.PENDING:
                    conn.execute(sql.SUBMIT_CHILDREN, params)
                    conn.execute(sql.SUBMITTED_EVENTS, {"ids": json.dumps([item[0] for item in json.loads(items)])})
                return TaskStatus(row[0])

        status = self._retrying(run, "fan out")
        if status is None:
            raise self._lease_lost(lease, "fan out")
        if status is not TaskStatus.PENDING:
            return []
        self._wake_local()
        return self.children(lease.task_id)

    def children(self, task_id: str) -> list[Task]:
        return [task_from_row(row) for row in self._read(sql.CHILDREN, {"id": task_id})]

    # -- operator operations ----------------------------------------------------------------
    def cancel(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        def run() -> Task | None:
            with self._write() as conn:
                row = conn.execute(sql.CANCEL, {"id": task_id}).fetchone()
                if row is None:
                    return None
                task = task_from_row(row)
                event_type = EventType.CANCELLED if task.status is TaskStatus.CANCELLED else EventType.CANCEL_REQUESTED
                self._event(
                    conn, task.id, event_type, task.attempts, task.lease_token, task.worker_id, dict(note or {})
                )
                for kid, status, attempt, token, worker in conn.execute(
                    sql.CANCEL_DESCENDANTS, {"ids": json.dumps([task.id])}
                ).fetchall():
                    kid_event = EventType.CANCELLED if status == TaskStatus.CANCELLED else EventType.CANCEL_REQUESTED
                    self._event(conn, kid, kid_event, attempt, token, worker)
                if task.status is TaskStatus.CANCELLED:
                    self._settle_parents(conn, [task.id])
                return task

        return self._retrying(run, "cancel") or self.get(task_id)

    def requeue(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        def run() -> Task | None:
            with self._write() as conn:
                row = conn.execute(sql.REQUEUE, {"id": task_id}).fetchone()
                if row is None:
                    return None
                task = task_from_row(row)
                self._event(conn, task.id, EventType.REQUEUED, 0, task.lease_token, None, dict(note or {}))
                for kid, token in conn.execute(sql.REQUEUE_DESCENDANTS, {"ids": json.dumps([task.id])}).fetchall():
                    self._event(conn, kid, EventType.REQUEUED, 0, token, None)
                return task

        task = self._retrying(run, "requeue")
        if task is not None:
            self._wake_local()
        return task

    def delete(self, task_id: str) -> bool:
        def run() -> bool:
            with self._write() as conn:
                deleted = conn.execute(sql.DELETE, {"id": task_id}).rowcount > 0
                if deleted:
                    ids = [task_id]
                    ids += [row[0] for row in conn.execute(sql.DELETE_DESCENDANTS, {"ids": json.dumps(ids)})]
                    conn.execute(sql.DELETE_EVENTS, {"ids": json.dumps(ids)})
                return deleted

        return self._retrying(run, "delete")

    def get(self, task_id: str) -> Task | None:
        rows = self._read(sql.GET_BY_ID, {"id": task_id})
        return task_from_row(rows[0]) if rows else None

    def held_by(self, worker_id: str) -> list[Task]:
        return [task_from_row(row) for row in self._read(sql.HELD_BY, {"worker": worker_id})]

    def get_many(self, task_ids: Sequence[str]) -> list[Task]:
        return [task_from_row(row) for row in self._read(sql.GET_BY_IDS, {"ids": json.dumps(list(task_ids))})]

    def list_tasks(
        self,
        *,
        statuses: Sequence[TaskStatus] | None = None,
        kinds: Sequence[str] | None = None,
        tenant: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        top_level: bool = False,
    ) -> TaskPage:
        params: Params = {
            "statuses": json.dumps([str(s) for s in statuses]) if statuses else None,
            "kinds": json.dumps(list(kinds)) if kinds else None,
            "tenant": tenant,
            "top_level": True if top_level else None,
            "cursor": cursor,
            "limit": limit + 1,
        }
        statement = list_statement(sql.LIST_BASE, sql.LIST_FILTERS, sql.LIST_ORDER, params)
        return task_page(self._read(statement, params), limit)

    def events(self, task_id: str) -> list[Event]:
        return [event_from_row(row) for row in self._read(sql.EVENTS, {"id": task_id})]

    def get_with_events(self, task_id: str, newest: int) -> tuple[Task, list[Event]] | None:
        return task_with_events(self._read(sql.GET_WITH_EVENTS, {"id": task_id, "limit": newest}))

    def checkpoints(self, task_id: str) -> list[Checkpoint]:
        return [checkpoint_from_row(row) for row in self._read(sql.CHECKPOINTS, {"id": task_id})]

    def checkpoint_seqs(self, task_id: str) -> list[int]:
        return [int(row[0]) for row in self._read(sql.CHECKPOINT_SEQS, {"id": task_id})]

    def checkpoints_after(self, task_id: str, after_seq: int, limit: int) -> list[Checkpoint]:
        params = {"id": task_id, "after": after_seq, "limit": limit}
        return [checkpoint_from_row(row) for row in self._read(sql.CHECKPOINTS_AFTER, params)]

    def counts_by_status(self) -> dict[TaskStatus, int]:
        return counts_from_rows(self._read(sql.COUNTS))

    def counts_by_kind_and_status(self) -> dict[tuple[str, TaskStatus], int]:
        return kind_counts_from_rows(self._read(sql.COUNTS_BY_KIND))

    # -- maintenance ------------------------------------------------------------------------
    def reap(self, limit: int = 1000) -> ReapResult:
        rebased = 0

        def run() -> ReapResult:
            nonlocal rebased
            result = ReapResult([], [], [])
            with self._write() as conn:
                clock = {"tolerance": _CLOCK_STEP_TOLERANCE_SECONDS}
                rebased = conn.execute(sql.REBASE_PENDING, clock).rowcount
                rebased += conn.execute(sql.REBASE_RUNNING, clock).rowcount
                for task_id, old_worker in conn.execute(sql.REAP_SELECT, {"limit": limit}).fetchall():
                    params = {"id": task_id, "old_worker": old_worker}
                    row = conn.execute(sql.REAP_ONE, params).fetchone()
                    if row is None:
                        continue
                    conn.execute(sql.REAPED_EVENTS, params)
                    self._settle_parents(conn, [task_id])
                    {
                        TaskStatus.PENDING: result.requeued,
                        TaskStatus.DEAD_LETTER: result.dead_lettered,
                    }.get(TaskStatus(row[1]), result.cancelled).append(task_id)
            return result

        result = self._retrying(run, "reap")
        if rebased:
            log.warning("the clock went back: %d task(s) had times in the future and were re-timed from now", rebased)
        if result.requeued or rebased:
            self._wake_local()
        return result

    def prune_tasks(self, older_than_seconds: float, limit: int = 10_000) -> list[Task]:
        def run() -> list[Task]:
            with self._write() as conn:
                rows = conn.execute(sql.PRUNABLE, {"age": older_than_seconds, "limit": limit}).fetchall()
                tasks = [task_from_row(row) for row in rows]
                roots = json.dumps([task.id for task in tasks])
                tasks += [task_from_row(row) for row in conn.execute(sql.DESCENDANTS_ROWS, {"ids": roots})]
                ids = json.dumps([task.id for task in tasks])
                conn.execute(sql.PRUNE, {"ids": ids})
                conn.execute(sql.DELETE_EVENTS, {"ids": ids})
                conn.execute(sql.PRUNE_WORKERS, {"age": older_than_seconds})
                return tasks

        return self._retrying(run, "prune")

    def register_worker(self, worker_id: str, host: str, pid: int, concurrency: int, kinds: Sequence[str]) -> None:
        params = {"id": worker_id, "host": host, "pid": pid, "concurrency": concurrency, "kinds": dumps(list(kinds))}
        self._retrying(lambda: self._conn.execute(sql.REGISTER_WORKER, params), "register worker")

    def stop_worker(self, worker_id: str) -> None:
        self._retrying(lambda: self._conn.execute(sql.STOP_WORKER, {"id": worker_id}), "stop worker")

    def workers(self, host: str | None = None, live_only: bool = False) -> list[WorkerInfo]:
        rows = self._read(sql.WORKERS, {"host": host, "live_only": live_only})
        return [worker_from_row(row) for row in rows]

    def expire_worker_leases(self, worker_ids: Sequence[str]) -> int:
        if not worker_ids:
            return 0
        ids = json.dumps(list(worker_ids))

        def run() -> int:
            with self._write() as conn:
                expired = conn.execute(sql.EXPIRE_WORKER_LEASES, {"ids": ids}).rowcount
                conn.execute(sql.MARK_WORKERS_STOPPED, {"ids": ids})
                return expired

        return self._retrying(run, "expire leases")

    def now(self) -> float:
        return float(self._read(sql.SELECT_NOW)[0][0])

    def close(self) -> None:
        self._closing.set()
        self._written.set()
        for thread in (self._watcher, self._checkpointer):
            if thread is not None:
                thread.join(timeout=3)
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
