"""PostgreSQL driver: psycopg 3 with a connection pool, autocommit single statements, LISTEN/NOTIFY."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import psycopg
import psycopg_pool
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from ocrqueue.queue.drivers import postgres_sql as sql
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


NETWORK_TIMEOUTS: dict[str, int] = {
    "connect_timeout": 5,
    "tcp_user_timeout": 10_000,  # ms that sent data may go unacknowledged before the connection is dropped
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
"""libpq parameters every connection gets unless the database URL sets them itself.

Without them a connection into a network partition is left to TCP's own timers: a statement
whose packets vanish waits for retransmissions that back off to minutes apart (about 15 minutes
in all), a connection attempt for about 2 minutes of SYN retries (holding the pool's one growing
slot), and a connection waiting for a lost reply or a NOTIFY never finds out. A worker cut off
for 30 s then stayed stuck for 24 s more after the network was back (tests/chaos/test_partition.py).
Bounded, a dead connection fails, `_retrying` asks again on a fresh one, and recovery takes
seconds whatever the partition's length. Unix-socket connections ignore the TCP settings.
"""


def with_network_timeouts(conninfo: str) -> str:
    """`conninfo` with each of NETWORK_TIMEOUTS that it does not set itself."""
    given = conninfo_to_dict(conninfo)
    return make_conninfo(conninfo, **{k: v for k, v in NETWORK_TIMEOUTS.items() if k not in given})


def _configure_connection(conn: psycopg.Connection[Any]) -> None:
    """Hand jsonb back as text, so both backends decode JSON in one place (rows.decode_json)."""
    conn.adapters.register_loader("jsonb", psycopg.types.string.TextLoader)


class PostgresStore(Store):
    backend = "postgresql"

    def __init__(self, conninfo: str, *, pool_size: int = 8) -> None:
        super().__init__()
        self._conninfo = with_network_timeouts(conninfo)
        self._pool = psycopg_pool.ConnectionPool(
            self._conninfo,
            min_size=1,
            max_size=max(2, pool_size),
            kwargs={"autocommit": True},
            configure=_configure_connection,
            # With reconnect_timeout=0 the pool gives up a failed reconnection at once, and only a
            # new getconn starts another: a caller that began waiting while the server was down
            # waits out this whole timeout even after the server is back. Keep it short; `_retrying`
            # treats PoolTimeout as retryable and asks again (tests/chaos/test_postgres_reconnect.py).
            timeout=2.0,
            reconnect_timeout=0,
            open=True,
            name="ocrqueue",
        )
        self._listener: threading.Thread | None = None
        self._closing = threading.Event()

    # -- plumbing ---------------------------------------------------------------------------
    def _is_retryable_db_error(self, exc: BaseException) -> bool:
        return isinstance(
            exc,
            psycopg.OperationalError
            | psycopg_pool.PoolTimeout
            | psycopg.errors.SerializationFailure
            | psycopg.errors.DeadlockDetected,
        )

    def _fetch(
        self, statement: str, params: Params | None = None, what: str = "query", tries: list[int] | None = None
    ) -> list[tuple[Any, ...]]:
        """Run one statement, retrying lost connections; `tries` counts the attempts made."""

        def run() -> list[tuple[Any, ...]]:
            if tries is not None:
                tries.append(1)
            with self._pool.connection() as conn, conn.cursor() as cur:
                cur.execute(statement, params)
                return cur.fetchall() if cur.description is not None else []

        return self._retrying(run, what)

    def _execute(self, statement: str, params: Params | None = None, what: str = "statement") -> int:
        def run() -> int:
            with self._pool.connection() as conn, conn.cursor() as cur:
                cur.execute(statement, params)
                return cur.rowcount

        return self._retrying(run, what)

    def _lease_lost(self, lease: Lease, operation: str) -> LeaseLost:
        self._execute(
            sql.RECORD_REJECTED_WRITE,
            {"id": lease.task_id, "token": lease.token, "worker_id": lease.worker_id, "operation": operation},
            "record rejected write",
        )
        return LeaseLost(f"task {lease.task_id}: lease {lease.token} is no longer held ({operation} rejected)")

    def start_listening(self) -> None:
        if self._listener is None:
            self._listener = threading.Thread(target=self._listen, name="ocrqueue-listen", daemon=True)
            self._listener.start()

    def _listen(self) -> None:
        delay = 0.1
        while not self._closing.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {sql.NOTIFY_CHANNEL}")
                    conn.execute(f"LISTEN {sql.CHANGES_CHANNEL}")
                    delay = 0.1
                    self._wake_local()  # notifications may have been missed while disconnected
                    self._changed(None)
                    while not self._closing.is_set():
                        for note in conn.notifies(timeout=1.0, stop_after=64):
                            if note.channel == sql.CHANGES_CHANNEL:
                                self._changed(sql.changed_task_ids(note.payload))
                            else:
                                self._wake_local()
            except psycopg.OperationalError as exc:
                log.warning("LISTEN connection lost (%s); reconnecting in %.1fs", exc, delay)
                self._closing.wait(delay)
                delay = min(delay * 2, 5.0)

    def follow(self, follower: str, task_ids: Sequence[str], seconds: float) -> None:
        rows = self._fetch(sql.FOLLOW, {"follower": follower, "ids": list(task_ids), "seconds": seconds}, "follow")
        new = [task_id for task_id, inserted in rows if inserted]
        if not new:
            return

        def wait_for_writers() -> None:
            with self._pool.connection() as conn, conn.cursor() as cur:
                for task_id in new:
                    cur.execute(sql.WAIT_FOR_WRITERS, {"id": task_id})

        self._retrying(wait_for_writers, "follow")

    def unfollow(self, follower: str, task_ids: Sequence[str]) -> None:
        self._execute(sql.UNFOLLOW, {"follower": follower, "ids": list(task_ids)}, "unfollow")

    # -- submitting -------------------------------------------------------------------------
    def submit_many(self, specs: Sequence[TaskSpec]) -> list[SubmitResult]:
        if not specs:
            return []
        ids = [new_task_id() for _ in specs]
        params: Params = {
            "ids": ids,
            "kinds": [s.kind for s in specs],
            "priorities": [s.priority for s in specs],
            "payloads": [dumps(s.payload) for s in specs],
            "tenants": [s.tenant for s in specs],
            "dedup_keys": [s.dedup_key for s in specs],
            "max_attempts": [self.max_attempts_for(s) for s in specs],
            "delays": [float(max(0.0, s.delay_seconds)) for s in specs],
            "details": [dumps(dict(s.note or {})) for s in specs],
        }
        for _ in range(5):
            created = {row[0]: task_from_row(row) for row in self._fetch(sql.SUBMIT_MANY, params, "submit")}
            # A retry after a lost reply finds its own rows by id: those were created by us.
            missing = [i for i in ids if i not in created]
            if missing:
                for row in self._fetch(sql.GET_BY_IDS, {"ids": missing}, "submit lookup"):
                    created[row[0]] = task_from_row(row)
            keys = [s.dedup_key for i, s in zip(ids, specs, strict=True) if i not in created and s.dedup_key]
            existing: dict[str, Task] = {}
            if keys:
                for row in self._fetch(sql.GET_LIVE_BY_DEDUP, {"keys": keys}, "dedup lookup"):
                    task = task_from_row(row)
                    assert task.dedup_key is not None
                    existing[task.dedup_key] = task
            results: list[SubmitResult] = []
            for task_id, spec in zip(ids, specs, strict=True):
                if task_id in created:
                    results.append(SubmitResult(created[task_id], True))
                elif spec.dedup_key in existing:
                    results.append(SubmitResult(existing[spec.dedup_key], False))
                else:
                    break  # the holder of the key was cancelled in between: insert again
            else:
                self._wake_local()
                return results
        raise RuntimeError("submit could not settle a dedup key after 5 tries")

    # -- worker operations ------------------------------------------------------------------
    def claim(
        self, worker_id: str, limit: int, lease_seconds: float, kinds: Sequence[str] | None = None
    ) -> list[ClaimedTask]:
        params: Params = {"worker_id": worker_id, "limit": limit, "lease": lease_seconds}
        statement = sql.CLAIM
        if kinds is not None:
            statement, params["kinds"] = sql.CLAIM_KINDS, list(kinds)
        tasks = [task_from_row(row) for row in self._fetch(statement, params, "claim")]
        return [ClaimedTask(t, Lease(t.id, t.lease_token, worker_id)) for t in tasks]

    def heartbeat(self, worker_id: str, leases: Iterable[Lease], lease_seconds: float) -> HeartbeatResult:
        leases = list(leases)
        rows = self._fetch(
            sql.HEARTBEAT,
            {
                "worker_id": worker_id,
                "lease": lease_seconds,
                "ids": [lease.task_id for lease in leases],
                "tokens": [lease.token for lease in leases],
            },
            "heartbeat",
        )
        return heartbeat_result(leases, rows)

    def _fenced_params(self, lease: Lease) -> Params:
        return {"id": lease.task_id, "token": lease.token}

    def progress(self, lease: Lease, done: int, total: int | None, step: str | None) -> bool:
        params = self._fenced_params(lease) | {"done": done, "total": total, "step": step}
        rows = self._fetch(sql.PROGRESS, params, "progress")
        if not rows:
            raise self._lease_lost(lease, "progress")
        return bool(rows[0][0])

    def is_cancel_requested(self, lease: Lease) -> bool:
        rows = self._fetch(sql.CANCEL_REQUESTED, self._fenced_params(lease), "cancel check")
        if not rows:
            raise self._lease_lost(lease, "cancel check")
        return bool(rows[0][0])

    def checkpoint(self, lease: Lease, seq: int, data: JSON) -> None:
        params = self._fenced_params(lease) | {"seq": seq, "data": dumps(data)}
        if not self._fetch(sql.CHECKPOINT, params, "checkpoint"):
            raise self._lease_lost(lease, f"checkpoint {seq}")

    def warn(self, lease: Lease, detail: Mapping[str, JSON]) -> None:
        params = self._fenced_params(lease) | {"detail": dumps(dict(detail))}
        if not self._fetch(sql.WARNED_EVENT, params, "warn"):
            raise self._lease_lost(lease, "warn")

    def complete_many(self, items: Sequence[tuple[Lease, JSON]]) -> dict[str, CompleteResult | None]:
        params: Params = {
            "ids": [lease.task_id for lease, _ in items],
            "tokens": [lease.token for lease, _ in items],
            "results": [dumps(result) for _, result in items],
        }
        tries: list[int] = []
        rows = self._fetch(sql.COMPLETE_MANY, params, "complete", tries)
        done = {row[0]: CompleteResult(TaskStatus(row[1])) for row in rows}
        outcomes: dict[str, CompleteResult | None] = {}
        for lease, _ in items:
            if lease.task_id in done:
                outcomes[lease.task_id] = done[lease.task_id]
                continue
            outcomes[lease.task_id] = self._own_earlier_finish(lease) if len(tries) > 1 else None
            if outcomes[lease.task_id] is None:
                self._lease_lost(lease, "complete")
        return outcomes

    def _own_earlier_finish(self, lease: Lease) -> CompleteResult | None:
        """After a retried call our first try may have committed with its reply lost: same token, finished."""
        rows = self._fetch(sql.LEASE_STATE, {"id": lease.task_id}, "lease state")
        if rows and rows[0][1] == lease.token and rows[0][0] in ("completed", "cancelled"):
            return CompleteResult(TaskStatus(rows[0][0]))
        return None

    def fail(self, lease: Lease, *, error_kind: str, message: str, retryable: bool, delay_seconds: float) -> FailResult:
        params = self._fenced_params(lease) | {
            "worker_id": lease.worker_id,
            "error_kind": error_kind,
            "message": message,
            "retryable": retryable,
            "delay": float(delay_seconds),
        }
        tries: list[int] = []
        rows = self._fetch(sql.FAIL, params, "fail", tries)
        if not rows:
            state = self._fetch(sql.LEASE_STATE, {"id": lease.task_id}, "lease state") if len(tries) > 1 else []
            if not (state and state[0][1] == lease.token and state[0][0] != "running"):
                raise self._lease_lost(lease, "fail")
            rows = [(state[0][0],)]
        status = TaskStatus(rows[0][0])
        return fail_result(status, delay_seconds)

    def release(
        self, worker_id: str, leases: Iterable[Lease], *, delay_seconds: float = 0.0, reason: str = "worker stopping"
    ) -> list[str]:
        leases = list(leases)
        if not leases:
            return []
        rows = self._fetch(
            sql.RELEASE,
            {
                "worker_id": worker_id,
                "ids": [lease.task_id for lease in leases],
                "tokens": [lease.token for lease in leases],
                "delay": float(delay_seconds),
                "reason": reason,
            },
            "release",
        )
        return [row[0] for row in rows]

    # -- parents and children ---------------------------------------------------------------
    def fan_out(self, lease: Lease, children: Sequence[TaskSpec]) -> list[Task]:
        params = self._fenced_params(lease) | {
            "worker_id": lease.worker_id,
            "count": len(children),
            "ids": [new_task_id() for _ in children],
            "kinds": [spec.kind for spec in children],
            "payloads": [dumps(spec.payload) for spec in children],
            "max_attempts": [self.max_attempts_for(spec) for spec in children],
        }
        tries: list[int] = []
        rows = self._fetch(sql.FAN_OUT, params, "fan out", tries)
        if rows:
            status = TaskStatus(rows[0][0])
        else:
            # A retried call whose first try committed, its reply lost: same token, handed over.
            state = []
            if len(tries) > 1:
                state = self._fetch(sql.LEASE_STATE_CHILDREN, {"id": lease.task_id}, "lease state")
            handed_over = state and state[0][1] == lease.token and state[0][0] != "running"
            if not (handed_over and state[0][2] == len(children)):
                raise self._lease_lost(lease, "fan out")
            status = TaskStatus(state[0][0])
        if status is not TaskStatus.PENDING:
            return []
        self._wake_local()
        return self.children(lease.task_id)

    def children(self, task_id: str) -> list[Task]:
        return [task_from_row(row) for row in self._fetch(sql.CHILDREN, {"id": task_id}, "children")]

    # -- operator operations ----------------------------------------------------------------
    def cancel(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        rows = self._fetch(sql.CANCEL, {"id": task_id, "note": dumps(dict(note or {}))}, "cancel")
        return task_from_row(rows[0]) if rows else self.get(task_id)

    def requeue(self, task_id: str, note: Mapping[str, JSON] | None = None) -> Task | None:
        rows = self._fetch(sql.REQUEUE, {"id": task_id, "note": dumps(dict(note or {}))}, "requeue")
        if not rows:
            return None
        self._wake_local()
        return task_from_row(rows[0])

    def delete(self, task_id: str) -> bool:
        return bool(self._fetch(sql.DELETE, {"id": task_id}, "delete"))

    def get(self, task_id: str) -> Task | None:
        rows = self._fetch(sql.GET_BY_IDS, {"ids": [task_id]}, "get")
        return task_from_row(rows[0]) if rows else None

    def held_by(self, worker_id: str) -> list[Task]:
        return [task_from_row(row) for row in self._fetch(sql.HELD_BY, {"worker": worker_id}, "held by")]

    def get_many(self, task_ids: Sequence[str]) -> list[Task]:
        return [task_from_row(row) for row in self._fetch(sql.GET_BY_IDS, {"ids": list(task_ids)}, "get many")]

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
            "statuses": [str(s) for s in statuses] if statuses else None,
            "kinds": list(kinds) if kinds else None,
            "tenant": tenant,
            "top_level": True if top_level else None,
            "cursor": cursor,
            "limit": limit + 1,
        }
        statement = list_statement(sql.LIST_BASE, sql.LIST_FILTERS, sql.LIST_ORDER, params)
        return task_page(self._fetch(statement, params, "list"), limit)

    def events(self, task_id: str) -> list[Event]:
        return [event_from_row(row) for row in self._fetch(sql.EVENTS, {"id": task_id}, "events")]

    def get_with_events(self, task_id: str, newest: int) -> tuple[Task, list[Event]] | None:
        return task_with_events(self._fetch(sql.GET_WITH_EVENTS, {"id": task_id, "limit": newest}, "get with events"))

    def checkpoints(self, task_id: str) -> list[Checkpoint]:
        return [checkpoint_from_row(row) for row in self._fetch(sql.CHECKPOINTS, {"id": task_id})]

    def checkpoint_seqs(self, task_id: str) -> list[int]:
        return [int(row[0]) for row in self._fetch(sql.CHECKPOINT_SEQS, {"id": task_id}, "checkpoints")]

    def checkpoints_after(self, task_id: str, after_seq: int, limit: int) -> list[Checkpoint]:
        params = {"id": task_id, "after": after_seq, "limit": limit}
        return [checkpoint_from_row(row) for row in self._fetch(sql.CHECKPOINTS_AFTER, params, "checkpoints")]

    def counts_by_status(self) -> dict[TaskStatus, int]:
        return counts_from_rows(self._fetch(sql.COUNTS, None, "counts"))

    def counts_by_kind_and_status(self) -> dict[tuple[str, TaskStatus], int]:
        return kind_counts_from_rows(self._fetch(sql.COUNTS_BY_KIND, None, "counts"))

    # -- maintenance ------------------------------------------------------------------------
    def reap(self, limit: int = 1000) -> ReapResult:
        rows = self._fetch(sql.REAP, {"limit": limit}, "reap")
        by_status: dict[str, list[str]] = {"pending": [], "dead_letter": [], "cancelled": []}
        for row in rows:
            by_status[row[1]].append(row[0])
        if by_status["pending"]:
            self._wake_local()
        return ReapResult(by_status["pending"], by_status["dead_letter"], by_status["cancelled"])

    def prune_tasks(self, older_than_seconds: float, limit: int = 10_000) -> list[Task]:
        rows = self._fetch(sql.PRUNE, {"age": older_than_seconds, "limit": limit}, "prune")
        self._execute(sql.PRUNE_WORKERS, {"age": older_than_seconds}, "prune workers")
        return [task_from_row(row) for row in rows]

    def register_worker(self, worker_id: str, host: str, pid: int, concurrency: int, kinds: Sequence[str]) -> None:
        params = {"id": worker_id, "host": host, "pid": pid, "concurrency": concurrency, "kinds": dumps(list(kinds))}
        self._execute(sql.REGISTER_WORKER, params, "register worker")

    def stop_worker(self, worker_id: str) -> None:
        self._execute(sql.STOP_WORKER, {"id": worker_id}, "stop worker")

    def workers(self, host: str | None = None, live_only: bool = False) -> list[WorkerInfo]:
        rows = self._fetch(sql.WORKERS, {"host": host, "live_only": live_only}, "workers")
        return [worker_from_row(row) for row in rows]

    def expire_worker_leases(self, worker_ids: Sequence[str]) -> int:
        if not worker_ids:
            return 0
        expired = self._execute(sql.EXPIRE_WORKER_LEASES, {"ids": list(worker_ids)}, "expire leases")
        self._execute(sql.MARK_WORKERS_STOPPED, {"ids": list(worker_ids)}, "mark workers stopped")
        return expired

    def now(self) -> float:
        return float(self._fetch(sql.NOW)[0][0])

    def close(self) -> None:
        self._closing.set()
        if self._listener is not None:
            self._listener.join(timeout=3)
        self._pool.close()
