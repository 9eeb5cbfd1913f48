"""Every statement the SQLite driver sends, by name.

SQLite has one writer at a time, so a claim needs no SKIP LOCKED: `UPDATE … WHERE id IN
(SELECT … LIMIT n) RETURNING` inside `BEGIN IMMEDIATE` is atomic. Times are epoch seconds from
SQLite's own clock (`julianday('now')`, constant within one statement). Multi-row inputs arrive as
one JSON array parameter and are unpacked with `json_each`.
"""

from __future__ import annotations

import sqlalchemy as sa

from ocrqueue.queue import lifecycle
from ocrqueue.queue.drivers.columns import task_columns

NOW = "((julianday('now') - 2440587.5) * 86400.0)"
_CLOCK = lifecycle.Clock("sqlite", NOW)
COLS = task_columns()
T_COLS = task_columns("t.")

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 30000",
    # Checkpoints run on the store's own thread, not inside a commit (see SQLiteStore._checkpoints).
    "PRAGMA wal_autocheckpoint = 0",
)

SELECT_NOW = f"SELECT {NOW}"
DATA_VERSION = "PRAGMA data_version"
CHECKPOINT_WAL = "PRAGMA wal_checkpoint(PASSIVE)"

SUBMIT_ONE = f"""
INSERT INTO ocrq_tasks (id, kind, status, priority, payload, tenant, dedup_key, max_attempts,
                        run_at, created_at, updated_at)
VALUES (:id, :kind, 'pending', :priority, :payload, :tenant, :dedup_key, :max_attempts,
        {NOW} + :delay, {NOW}, {NOW})
ON CONFLICT DO NOTHING
RETURNING {COLS}
"""

SUBMITTED_EVENT = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, detail)
VALUES (:id, 'submitted', {NOW}, 0, 0, :detail)
"""

GET_BY_ID = f"SELECT {COLS} FROM ocrq_tasks WHERE id = :id"

GET_BY_IDS = f"SELECT {COLS} FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))"

HELD_BY = f"SELECT {COLS} FROM ocrq_tasks WHERE worker_id = :worker AND status = 'running' ORDER BY id"

GET_LIVE_BY_DEDUP = f"SELECT {COLS} FROM ocrq_tasks WHERE dedup_key = :key AND status <> 'cancelled'"

# SQLite's planner prefers the (status, id) index and would sort every pending row; the claim
# index is already in claim order, so the claim names it. A parent waits while a child is unfinished.
_CLAIM = f"""
UPDATE ocrq_tasks
SET status = 'running', attempts = attempts + 1, lease_token = lease_token + 1,
    worker_id = :worker_id, lease_expires_at = {NOW} + :lease,
    started_at = coalesce(started_at, {NOW}), updated_at = {NOW}
WHERE id IN (
    SELECT id FROM ocrq_tasks AS q INDEXED BY ix_ocrq_tasks_claim
    WHERE status = 'pending' AND run_at <= {NOW} {{kind_filter}}
      AND (children = 0 OR NOT EXISTS (
          SELECT 1 FROM ocrq_tasks c WHERE c.parent_id = q.id AND c.status <> 'completed'))
    ORDER BY priority DESC, run_at, id
    LIMIT :limit
)
RETURNING {COLS}
"""
CLAIM = _CLAIM.format(kind_filter="")
CLAIM_KINDS = _CLAIM.format(kind_filter="AND kind IN (SELECT value FROM json_each(:kinds))")

CLAIMED_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'claimed', {NOW}, attempts, lease_token, worker_id, '{{}}'
FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))
"""

EVENT = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
VALUES (:task_id, :type, {NOW}, :attempt, :lease_token, :worker_id, :detail)
"""

HEARTBEAT = f"""
UPDATE ocrq_tasks
SET lease_expires_at = {NOW} + :lease, updated_at = {NOW}
WHERE status = 'running' AND worker_id = :worker_id
  AND id || ':' || lease_token IN (SELECT value FROM json_each(:leases))
RETURNING id, cancel_requested
"""

TOUCH_WORKER = f"UPDATE ocrq_workers SET last_seen_at = {NOW} WHERE id = :worker_id"

# A child's progress moves its parent's by the same amount, before the child's own is written.
PARENT_PROGRESS = f"""
UPDATE ocrq_tasks SET progress_done = ocrq_tasks.progress_done + (:done - c.progress_done), updated_at = {NOW}
FROM (
    SELECT parent_id, progress_done FROM ocrq_tasks
    WHERE id = :id AND lease_token = :token AND status = 'running' AND parent_id IS NOT NULL
) AS c
WHERE ocrq_tasks.id = c.parent_id
"""

PROGRESS = f"""
UPDATE ocrq_tasks
SET progress_done = :done, progress_total = :total, progress_step = :step, updated_at = {NOW}
WHERE id = :id AND lease_token = :token AND status = 'running'
RETURNING cancel_requested
"""

CANCEL_REQUESTED = """
SELECT cancel_requested FROM ocrq_tasks WHERE id = :id AND lease_token = :token AND status = 'running'
"""

CHECKPOINT = f"""
INSERT INTO ocrq_checkpoints (task_id, seq, data, lease_token, created_at)
SELECT id, :seq, :data, lease_token, {NOW} FROM ocrq_tasks
WHERE id = :id AND lease_token = :token AND status = 'running'
ON CONFLICT (task_id, seq) DO UPDATE
SET data = excluded.data, lease_token = excluded.lease_token, created_at = excluded.created_at
WHERE ocrq_checkpoints.lease_token <= excluded.lease_token
RETURNING seq
"""

WARNED_EVENT = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'warned', {NOW}, attempts, lease_token, worker_id, :detail FROM ocrq_tasks
WHERE id = :id AND lease_token = :token AND status = 'running'
RETURNING id
"""

# `+status` keeps the planner off the (status, id) index: led by it, the join would scan every
# running row for each item (batch x running rows; 500 of 900 took 670 ms with the write lock held).
# Led by the items, each is one primary-key lookup.
COMPLETE_MANY = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(lifecycle.completion(sa.literal_column("c.result"), _CLOCK), "sqlite")}
FROM (
    SELECT value ->> 0 AS id, value ->> 1 AS token, value ->> 2 AS result FROM json_each(:items)
) AS c
WHERE ocrq_tasks.id = c.id AND ocrq_tasks.lease_token = c.token AND +ocrq_tasks.status = 'running'
RETURNING ocrq_tasks.id, ocrq_tasks.status
"""

FINISHED_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, status, {NOW}, attempts, lease_token, worker_id, '{{}}'
FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))
"""

FAIL = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(lifecycle.HANDLER_ERROR.assignments(_CLOCK), "sqlite")}
WHERE id = :id AND lease_token = :token AND status = 'running'
RETURNING id, status
"""

# SQLite has no data-modifying CTEs: the event is a second statement in the same transaction,
# reading the row FAIL just wrote.
FAILED_EVENT = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT {lifecycle.render_event(lifecycle.HANDLER_ERROR, "sqlite", now=NOW, worker=":worker_id")}
FROM ocrq_tasks WHERE id = :id
"""

RELEASE = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(lifecycle.release(lifecycle.RELEASED.delay_seconds, _CLOCK), "sqlite")}
WHERE status = 'running' AND id || ':' || lease_token IN (SELECT value FROM json_each(:leases))
RETURNING id
"""

RELEASED_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT {lifecycle.render_event(lifecycle.RELEASED, "sqlite", now=NOW, worker=":worker_id")}
FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))
"""

LEASE_STATE = "SELECT status, lease_token, attempts FROM ocrq_tasks WHERE id = :id"

_CANCEL_SET = f"""
SET status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,
    cancel_requested = 1,
    error_kind = CASE WHEN status = 'pending' THEN 'cancelled' ELSE error_kind END,
    error_message = CASE WHEN status = 'pending' THEN 'cancelled before it started' ELSE error_message END,
    finished_at = CASE WHEN status = 'pending' THEN {NOW} ELSE finished_at END,
    updated_at = {NOW}
"""

CANCEL = f"""
UPDATE ocrq_tasks {_CANCEL_SET}
WHERE id = :id AND status IN ('pending', 'running') AND NOT cancel_requested
RETURNING {COLS}
"""

DESCENDANTS = """
WITH RECURSIVE tree(id) AS (
    SELECT id FROM ocrq_tasks WHERE parent_id IN (SELECT value FROM json_each(:ids))
    UNION ALL
    SELECT t.id FROM ocrq_tasks t JOIN tree ON t.parent_id = tree.id
)
SELECT id FROM tree
"""
"""The children of the tasks `:ids`, their children, and so on."""

CANCEL_DESCENDANTS = f"""
UPDATE ocrq_tasks {_CANCEL_SET}
WHERE id IN ({DESCENDANTS}) AND status IN ('pending', 'running') AND NOT cancel_requested
RETURNING id, status, attempts, lease_token, worker_id
"""

_REQUEUE_SET = f"""
SET status = 'pending', attempts = 0, cancel_requested = 0, worker_id = NULL,
    lease_expires_at = NULL, finished_at = NULL, run_at = {NOW}, updated_at = {NOW},
    progress_step = NULL
"""

REQUEUE = f"""
UPDATE ocrq_tasks {_REQUEUE_SET}
WHERE id = :id AND status = 'dead_letter'
RETURNING {COLS}
"""

# Children that completed keep their work; the rest run again.
REQUEUE_DESCENDANTS = f"""
UPDATE ocrq_tasks {_REQUEUE_SET}
WHERE id IN ({DESCENDANTS}) AND status IN ('dead_letter', 'cancelled')
RETURNING id, lease_token
"""

# A child goes only with its parent (`DELETE_DESCENDANTS`).
DELETE = """
DELETE FROM ocrq_tasks
WHERE id = :id AND parent_id IS NULL AND status IN ('completed', 'cancelled', 'dead_letter')
"""
DELETE_EVENTS = "DELETE FROM ocrq_events WHERE task_id IN (SELECT value FROM json_each(:ids))"
DELETE_DESCENDANTS = f"DELETE FROM ocrq_tasks WHERE id IN ({DESCENDANTS}) RETURNING id"

# -- parents and children ---------------------------------------------------------------------------

FAN_OUT = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(lifecycle.fan_out(lifecycle.param("count", sa.Integer), _CLOCK), "sqlite")}
WHERE id = :id AND lease_token = :token AND status = 'running' AND children = 0
RETURNING status
"""

FANNED_OUT_EVENT = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT {lifecycle.render_event(lifecycle.FANNED_OUT, "sqlite", now=NOW, worker=":worker_id")}
FROM ocrq_tasks WHERE id = :id
"""

# Items: [id, kind, payload as JSON text, max_attempts]. Tenant and priority are the parent's.
SUBMIT_CHILDREN = f"""
INSERT INTO ocrq_tasks (id, kind, status, priority, payload, tenant, max_attempts,
                        run_at, created_at, updated_at, parent_id)
SELECT c.value ->> 0, c.value ->> 1, 'pending', p.priority, c.value ->> 2, p.tenant, c.value ->> 3,
       {NOW}, {NOW}, {NOW}, p.id
FROM ocrq_tasks p, json_each(:children) c
WHERE p.id = :id
ORDER BY c.key
"""

CHILDREN = f"SELECT {COLS} FROM ocrq_tasks WHERE parent_id = :id ORDER BY id"

SUBMITTED_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, detail)
SELECT value, 'submitted', {NOW}, 0, 0, '{{}}' FROM json_each(:ids)
"""

_ENDED = ", ".join(f"'{s}'" for s in lifecycle.CHILD_ENDED_STATUSES)

SETTLE_CHAIN = f"""
WITH RECURSIVE chain(target, child_id, status, error_kind, error_message) AS (
    SELECT parent_id, id, status, error_kind, error_message FROM ocrq_tasks
    WHERE id IN (SELECT value FROM json_each(:ids)) AND parent_id IS NOT NULL AND status IN ({_ENDED})
    UNION ALL
    SELECT t.parent_id, chain.child_id, chain.status, chain.error_kind, chain.error_message
    FROM chain JOIN ocrq_tasks t ON t.id = chain.target
    WHERE t.status = 'pending' AND t.parent_id IS NOT NULL
)
SELECT target, child_id, status, error_kind, error_message FROM chain
"""
"""For the tasks `:ids` that ended without completing: their parent, and above a waiting parent
its own parent, and so on, each with the reason of the task that ended (read before SETTLE_PARENTS
writes, so the walk sees the parents still waiting)."""

SETTLE_PARENTS = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(lifecycle.child_ended("c", _CLOCK), "sqlite")}
FROM (
    SELECT value ->> 0 AS target, value ->> 1 AS child_id, value ->> 2 AS status, value ->> 3 AS error_kind,
           value ->> 4 AS error_message
    FROM json_each(:chain)
) AS c
WHERE ocrq_tasks.id = c.target AND ocrq_tasks.status = 'pending'
RETURNING ocrq_tasks.id
"""
"""Those waiting parents (rows of SETTLE_CHAIN): dead_letter, saying why."""

SETTLED_PARENT_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'dead_lettered', {NOW}, attempts, lease_token, NULL,
       {lifecycle.render(lifecycle.child_ended_event_detail("sqlite"), "sqlite")}
FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))
"""

LIST_BASE = f"SELECT {COLS} FROM ocrq_tasks"
LIST_FILTERS = {
    "statuses": "status IN (SELECT value FROM json_each(:statuses))",
    "kinds": "kind IN (SELECT value FROM json_each(:kinds))",
    "tenant": "tenant = :tenant",
    "top_level": "parent_id IS NULL",
    "cursor": "id < :cursor",
}
LIST_ORDER = "ORDER BY id DESC LIMIT :limit"

EVENTS = """
SELECT id, task_id, type, at, attempt, lease_token, worker_id, detail
FROM ocrq_events WHERE task_id = :id ORDER BY id
"""

CHECKPOINTS = "SELECT task_id, seq, data, lease_token FROM ocrq_checkpoints WHERE task_id = :id ORDER BY seq"
CHECKPOINT_SEQS = "SELECT seq FROM ocrq_checkpoints WHERE task_id = :id ORDER BY seq"
CHECKPOINTS_AFTER = """
SELECT task_id, seq, data, lease_token FROM ocrq_checkpoints
WHERE task_id = :id AND seq > :after ORDER BY seq LIMIT :limit
"""

GET_WITH_EVENTS = f"""
SELECT {T_COLS}, e.id, e.task_id, e.type, e.at, e.attempt, e.lease_token, e.worker_id, e.detail
FROM ocrq_tasks t
LEFT JOIN ocrq_events e
    ON e.id IN (SELECT id FROM ocrq_events WHERE task_id = :id ORDER BY id DESC LIMIT :limit)
WHERE t.id = :id
ORDER BY e.id
"""

COUNTS = "SELECT status, count(*) FROM ocrq_tasks GROUP BY status"

COUNTS_BY_KIND = "SELECT kind, status, count(*) FROM ocrq_tasks GROUP BY kind, status"

# SQLite's clock is the calling machine's wall clock. When it steps back, times written before
# the step lie in the future: a pending task would wait out the step (hours) on top of its delay,
# and a dead worker's lease would outlive it by as much. A row last written more than `:tolerance`
# seconds "in the future" betrays such a step; its wait is measured again from now (the step
# treated as no time passing), so it is late by at most its original delay or lease.
REBASE_PENDING = f"""
UPDATE ocrq_tasks SET run_at = {NOW} + max(0.0, run_at - updated_at), updated_at = {NOW}
WHERE status = 'pending' AND run_at > {NOW} AND updated_at > {NOW} + :tolerance
"""

REBASE_RUNNING = f"""
UPDATE ocrq_tasks SET lease_expires_at = {NOW} + max(0.0, lease_expires_at - updated_at), updated_at = {NOW}
WHERE status = 'running' AND lease_expires_at > {NOW} AND updated_at > {NOW} + :tolerance
"""

REAP_SELECT = f"""
SELECT id, worker_id FROM ocrq_tasks
WHERE status = 'running' AND lease_expires_at < {NOW}
ORDER BY lease_expires_at LIMIT :limit
"""

_REAPED = lifecycle.lease_expired(lifecycle.param("old_worker", sa.Text))

REAP_ONE = f"""
UPDATE ocrq_tasks
SET {lifecycle.render_set(_REAPED.assignments(_CLOCK), "sqlite")}
WHERE id = :id AND status = 'running' AND lease_expires_at < {NOW}
RETURNING id, status
"""

REAPED_EVENTS = f"""
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'lease_lost', {NOW}, attempts, lease_token, :old_worker, json_object('reason', 'lease expired')
FROM ocrq_tasks WHERE id = :id
UNION ALL
SELECT {lifecycle.render_event(_REAPED, "sqlite", now=NOW, worker=":old_worker")}
FROM ocrq_tasks WHERE id = :id
"""

# A child goes with its parent: the roots are pruned, with their descendants (DESCENDANTS_ROWS).
PRUNABLE = f"""
SELECT {COLS} FROM ocrq_tasks
WHERE status IN ('completed', 'cancelled', 'dead_letter') AND finished_at < {NOW} - :age AND parent_id IS NULL
LIMIT :limit
"""
DESCENDANTS_ROWS = f"SELECT {COLS} FROM ocrq_tasks WHERE id IN ({DESCENDANTS})"
PRUNE = "DELETE FROM ocrq_tasks WHERE id IN (SELECT value FROM json_each(:ids))"

PRUNE_WORKERS = f"DELETE FROM ocrq_workers WHERE coalesce(stopped_at, last_seen_at) < {NOW} - :age"

REGISTER_WORKER = f"""
INSERT INTO ocrq_workers (id, host, pid, concurrency, kinds, started_at, last_seen_at)
VALUES (:id, :host, :pid, :concurrency, :kinds, {NOW}, {NOW})
ON CONFLICT (id) DO UPDATE SET last_seen_at = {NOW}, stopped_at = NULL
"""

STOP_WORKER = f"UPDATE ocrq_workers SET stopped_at = {NOW}, last_seen_at = {NOW} WHERE id = :id"

WORKERS = """
SELECT id, host, pid, concurrency, kinds, started_at, last_seen_at, stopped_at FROM ocrq_workers
WHERE (:host IS NULL OR host = :host) AND (NOT :live_only OR stopped_at IS NULL)
ORDER BY started_at
"""

EXPIRE_WORKER_LEASES = f"""
UPDATE ocrq_tasks SET lease_expires_at = {NOW} - 0.001, updated_at = {NOW}
WHERE status = 'running' AND worker_id IN (SELECT value FROM json_each(:ids))
"""

MARK_WORKERS_STOPPED = f"""
UPDATE ocrq_workers SET stopped_at = {NOW}
WHERE id IN (SELECT value FROM json_each(:ids)) AND stopped_at IS NULL
"""
