"""Every statement the PostgreSQL driver sends, by name.

Each is a single statement: data-modifying CTEs write the task row and its history together.
Times are `now()`: the database clock (invariant 3). Worker writes after a claim all carry
`lease_token` and `status = 'running'` (invariant 2).
"""

from __future__ import annotations

import sqlalchemy as sa

from ocrqueue.queue import lifecycle
from ocrqueue.queue.drivers.columns import task_columns

NOTIFY_CHANNEL = "ocrqueue_tasks"
_CLOCK = lifecycle.Clock("postgresql", "now()")
CHANGES_CHANNEL = "ocrqueue_task_changes"
"""Statements that insert or delete task rows, or update followed ones (`ocrq_follows`), notify
here (triggers of migration 0002): the ids, comma-separated, or `*` when they would not fit."""
CHANGES_ANY = "*"


def changed_task_ids(payload: str) -> frozenset[str] | None:
    """The ids a change notification names; None when it says any task may have changed."""
    return None if payload == CHANGES_ANY else frozenset(payload.split(","))


COLS = task_columns()
T_COLS = task_columns("t.")

_CHILD_ENDED = ", ".join(f"'{s}'" for s in lifecycle.CHILD_ENDED_STATUSES)


def _settle_parents(children: str) -> str:
    """CTEs that dead-letter the waiting ancestors of the rows of CTE `children` (id, parent_id,
    status, error_kind, error_message) that ended without completing, with their events: the walk
    up `parent_id` reads the rows as they were before the statement, so it goes on through every
    parent still waiting, and each gets the reason of the task that ended. The statement must
    begin `WITH RECURSIVE`."""
    return f""", chain(target, child_id, status, error_kind, error_message) AS (
    SELECT parent_id, id, status, error_kind, error_message FROM {children}
    WHERE parent_id IS NOT NULL AND status IN ({_CHILD_ENDED})
    UNION ALL
    SELECT t.parent_id, chain.child_id, chain.status, chain.error_kind, chain.error_message
    FROM chain JOIN ocrq_tasks t ON t.id = chain.target
    WHERE t.status = 'pending' AND t.parent_id IS NOT NULL
), orphaned AS (
    UPDATE ocrq_tasks p
    SET {lifecycle.render_set(lifecycle.child_ended("c", _CLOCK), "postgresql")}
    FROM (SELECT DISTINCT ON (target) * FROM chain) c
    WHERE p.id = c.target AND p.status = 'pending'
    RETURNING p.id, p.attempts, p.lease_token, p.error_kind, p.error_message
), orphaned_ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT id, 'dead_lettered', now(), attempts, lease_token, NULL,
           {lifecycle.render(lifecycle.child_ended_event_detail("postgresql"), "postgresql")}
    FROM orphaned
)"""


def _descendants(roots: str) -> str:
    """A recursive CTE `tree(id)`: the children of the task ids `roots` selects, theirs, and so on."""
    return f"""tree(id) AS (
    SELECT id FROM ocrq_tasks WHERE parent_id IN ({roots})
    UNION ALL
    SELECT t.id FROM ocrq_tasks t JOIN tree ON t.parent_id = tree.id
)"""


SUBMIT_MANY = f"""
WITH input AS (
    SELECT * FROM unnest(
        %(ids)s::text[], %(kinds)s::text[], %(priorities)s::int[], %(payloads)s::jsonb[],
        %(tenants)s::text[], %(dedup_keys)s::text[], %(max_attempts)s::int[], %(delays)s::float8[],
        %(details)s::jsonb[]
    ) WITH ORDINALITY AS i(id, kind, priority, payload, tenant, dedup_key, max_attempts, delay, detail, ord)
), ins AS (
    INSERT INTO ocrq_tasks (id, kind, status, priority, payload, tenant, dedup_key, max_attempts,
                            run_at, created_at, updated_at)
    SELECT id, kind, 'pending', priority, payload, tenant, dedup_key, max_attempts,
           now() + make_interval(secs => delay), now(), now()
    FROM input ORDER BY ord
    ON CONFLICT DO NOTHING
    RETURNING {COLS}
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, detail)
    SELECT ins.id, 'submitted', now(), 0, 0, input.detail FROM ins JOIN input ON input.id = ins.id
)
SELECT {COLS}, pg_notify('{NOTIFY_CHANNEL}', kind) FROM ins
"""

GET_BY_IDS = f"SELECT {COLS} FROM ocrq_tasks WHERE id = ANY(%(ids)s)"

HELD_BY = f"SELECT {COLS} FROM ocrq_tasks WHERE worker_id = %(worker)s AND status = 'running' ORDER BY id"
FOLLOW = """
WITH expired AS (
    DELETE FROM ocrq_follows WHERE expires_at < now()
)
INSERT INTO ocrq_follows (task_id, follower, expires_at)
SELECT id, %(follower)s, now() + make_interval(secs => %(seconds)s) FROM unnest(%(ids)s::text[]) AS f(id)
ON CONFLICT (task_id, follower) DO UPDATE SET expires_at = excluded.expires_at
RETURNING task_id, xmax = 0 AS inserted
"""

# A statement that updated a task before its follow row was committed found nobody following it
# (the change trigger looks in ocrq_follows) and will not notify: wait for it to commit, so that the
# follower's first read sees what it wrote. One row a statement (autocommit): a follower never
# holds one row lock while it waits for another, so it cannot deadlock with a writer.
WAIT_FOR_WRITERS = "SELECT 1 FROM ocrq_tasks WHERE id = %(id)s FOR SHARE"

UNFOLLOW = "DELETE FROM ocrq_follows WHERE follower = %(follower)s AND task_id = ANY(%(ids)s)"

GET_LIVE_BY_DEDUP = f"""
SELECT {COLS} FROM ocrq_tasks
WHERE dedup_key = ANY(%(keys)s) AND status <> 'cancelled'
"""

# A parent waits while any of its children has not completed.
_CLAIM = """
WITH next AS (
    SELECT id FROM ocrq_tasks q
    WHERE status = 'pending' AND run_at <= now() {kind_filter}
      AND (children = 0 OR NOT EXISTS (
          SELECT 1 FROM ocrq_tasks c WHERE c.parent_id = q.id AND c.status <> 'completed'))
    ORDER BY priority DESC, run_at, id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE ocrq_tasks t
    SET status = 'running', attempts = t.attempts + 1, lease_token = t.lease_token + 1,
        worker_id = %(worker_id)s, lease_expires_at = now() + make_interval(secs => %(lease)s),
        started_at = coalesce(t.started_at, now()), updated_at = now()
    FROM next WHERE t.id = next.id
    RETURNING {cols}
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT id, 'claimed', now(), attempts, lease_token, worker_id, '{{}}'::jsonb FROM claimed
)
SELECT {plain_cols} FROM claimed ORDER BY priority DESC, run_at, id
"""
CLAIM = _CLAIM.format(kind_filter="", cols=T_COLS, plain_cols=COLS)
CLAIM_KINDS = _CLAIM.format(kind_filter="AND kind = ANY(%(kinds)s)", cols=T_COLS, plain_cols=COLS)

HEARTBEAT = """
WITH renewed AS (
    UPDATE ocrq_tasks t
    SET lease_expires_at = now() + make_interval(secs => %(lease)s), updated_at = now()
    FROM unnest(%(ids)s::text[], %(tokens)s::bigint[]) AS h(id, token)
    WHERE t.id = h.id AND t.lease_token = h.token AND t.status = 'running'
    RETURNING t.id, t.cancel_requested
), seen AS (
    UPDATE ocrq_workers SET last_seen_at = now() WHERE id = %(worker_id)s
)
SELECT id, cancel_requested FROM renewed
"""

# A child's progress moves its parent's by the same amount.
PROGRESS = """
WITH old AS (
    SELECT id, parent_id, progress_done FROM ocrq_tasks
    WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running'
    FOR UPDATE
), reported AS (
    UPDATE ocrq_tasks t
    SET progress_done = %(done)s, progress_total = %(total)s, progress_step = %(step)s, updated_at = now()
    FROM old WHERE t.id = old.id
    RETURNING t.cancel_requested
), parent AS (
    UPDATE ocrq_tasks p
    SET progress_done = p.progress_done + (%(done)s - old.progress_done), updated_at = now()
    FROM old WHERE p.id = old.parent_id
)
SELECT cancel_requested FROM reported
"""

CANCEL_REQUESTED = """
SELECT cancel_requested FROM ocrq_tasks
WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running'
"""

# FOR SHARE makes the fence linearisable: a concurrent claim of the same row waits for this
# write, or this write waits for the claim and then sees the new token and inserts nothing.
WARNED_EVENT = """
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'warned', now(), attempts, lease_token, worker_id, %(detail)s::jsonb FROM ocrq_tasks
WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running'
RETURNING id
"""

CHECKPOINT = """
WITH owner AS (
    SELECT id, lease_token FROM ocrq_tasks
    WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running'
    FOR SHARE
)
INSERT INTO ocrq_checkpoints (task_id, seq, data, lease_token, created_at)
SELECT id, %(seq)s, %(data)s::jsonb, lease_token, now() FROM owner
ON CONFLICT (task_id, seq) DO UPDATE
SET data = excluded.data, lease_token = excluded.lease_token, created_at = excluded.created_at
WHERE ocrq_checkpoints.lease_token <= excluded.lease_token
RETURNING seq
"""

COMPLETE_MANY = f"""
WITH RECURSIVE done AS (
    UPDATE ocrq_tasks t
    SET {lifecycle.render_set(lifecycle.completion(sa.literal_column("c.result"), _CLOCK), "postgresql")}
    FROM unnest(%(ids)s::text[], %(tokens)s::bigint[], %(results)s::jsonb[]) AS c(id, token, result)
    WHERE t.id = c.id AND t.lease_token = c.token AND t.status = 'running'
    RETURNING t.id, t.kind, t.status, t.attempts, t.lease_token, t.worker_id, t.parent_id, t.error_kind,
              t.error_message
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT id, status, now(), attempts, lease_token, worker_id, '{{}}'::jsonb FROM done
){_settle_parents("done")}
SELECT id, status, CASE WHEN parent_id IS NOT NULL THEN pg_notify('{NOTIFY_CHANNEL}', kind) END FROM done
"""

FAIL = f"""
WITH RECURSIVE failed AS (
    UPDATE ocrq_tasks
    SET {lifecycle.render_set(lifecycle.HANDLER_ERROR.assignments(_CLOCK), "postgresql")}
    WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running'
    RETURNING id, status, attempts, max_attempts, lease_token, parent_id, error_kind, error_message
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT {lifecycle.render_event(lifecycle.HANDLER_ERROR, "postgresql", now="now()", worker="%(worker_id)s")}
    FROM failed
){_settle_parents("failed")}
SELECT status FROM failed
"""

RELEASE = f"""
WITH RECURSIVE released AS (
    UPDATE ocrq_tasks t
    SET {lifecycle.render_set(lifecycle.release(lifecycle.RELEASED.delay_seconds, _CLOCK), "postgresql")}
    FROM unnest(%(ids)s::text[], %(tokens)s::bigint[]) AS h(id, token)
    WHERE t.id = h.id AND t.lease_token = h.token AND t.status = 'running'
    RETURNING t.id, t.kind, t.status, t.attempts, t.lease_token, t.parent_id, t.error_kind, t.error_message
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT {lifecycle.render_event(lifecycle.RELEASED, "postgresql", now="now()", worker="%(worker_id)s")}
    FROM released
){_settle_parents("released")}
SELECT id, pg_notify('{NOTIFY_CHANNEL}', kind) FROM released
"""

# A zombie's rejected write leaves a trace, so lost leases can be counted and explained later.
RECORD_REJECTED_WRITE = """
INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
SELECT id, 'lease_lost', now(), attempts, %(token)s, %(worker_id)s,
       jsonb_build_object('reason', 'write rejected', 'operation', %(operation)s::text,
                          'current_token', lease_token, 'current_status', status)
FROM ocrq_tasks WHERE id = %(id)s
"""

LEASE_STATE = "SELECT status, lease_token FROM ocrq_tasks WHERE id = %(id)s"

_CANCEL_SET = """
    SET status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,
        cancel_requested = true,
        error_kind = CASE WHEN status = 'pending' THEN 'cancelled' ELSE error_kind END,
        error_message = CASE WHEN status = 'pending' THEN 'cancelled before it started' ELSE error_message END,
        finished_at = CASE WHEN status = 'pending' THEN now() ELSE finished_at END,
        updated_at = now()
"""

# Cancelling a parent cancels its descendants (pending ones now, running ones at their next
# check); a child cancelled on its own dead-letters its waiting parent.
CANCEL = f"""
WITH RECURSIVE c AS (
    UPDATE ocrq_tasks {_CANCEL_SET}
    WHERE id = %(id)s AND status IN ('pending', 'running') AND NOT cancel_requested
    RETURNING {COLS}
), {_descendants("SELECT id FROM c")}, kids AS (
    UPDATE ocrq_tasks {_CANCEL_SET}
    WHERE id IN (SELECT id FROM tree) AND status IN ('pending', 'running') AND NOT cancel_requested
    RETURNING id, status, attempts, lease_token, worker_id
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT id, CASE status WHEN 'cancelled' THEN 'cancelled' ELSE 'cancel_requested' END,
           now(), attempts, lease_token, worker_id,
           CASE WHEN id = %(id)s THEN %(note)s::jsonb ELSE '{{}}'::jsonb END
    FROM (SELECT id, status, attempts, lease_token, worker_id FROM c UNION ALL SELECT * FROM kids) AS both_
){_settle_parents("c")}
SELECT {COLS} FROM c
"""

_REQUEUE_SET = """
    SET status = 'pending', attempts = 0, cancel_requested = false, worker_id = NULL,
        lease_expires_at = NULL, finished_at = NULL, run_at = now(), updated_at = now(),
        progress_step = NULL
"""

# A parent's retry reruns the descendants that did not complete; the completed keep their work.
REQUEUE = f"""
WITH RECURSIVE r AS (
    UPDATE ocrq_tasks {_REQUEUE_SET}
    WHERE id = %(id)s AND status = 'dead_letter'
    RETURNING {COLS}
), {_descendants("SELECT id FROM r")}, kids AS (
    UPDATE ocrq_tasks {_REQUEUE_SET}
    WHERE id IN (SELECT id FROM tree) AND status IN ('dead_letter', 'cancelled')
    RETURNING id, lease_token
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, detail)
    SELECT id, 'requeued', now(), 0, lease_token, CASE WHEN id = %(id)s THEN %(note)s::jsonb ELSE '{{}}'::jsonb END
    FROM (SELECT id, lease_token FROM r UNION ALL SELECT * FROM kids) AS both_
)
SELECT {COLS}, pg_notify('{NOTIFY_CHANNEL}', kind) FROM r
"""

# A child goes only with its parent, and with it.
DELETE = f"""
WITH RECURSIVE gone AS (
    DELETE FROM ocrq_tasks
    WHERE id = %(id)s AND parent_id IS NULL AND status IN ('completed', 'cancelled', 'dead_letter')
    RETURNING id
), {_descendants("SELECT id FROM gone")}, kids AS (
    DELETE FROM ocrq_tasks WHERE id IN (SELECT id FROM tree) RETURNING id
), history AS (
    DELETE FROM ocrq_events WHERE task_id IN (SELECT id FROM gone UNION ALL SELECT id FROM kids)
)
SELECT id FROM gone
"""

# -- parents and children ---------------------------------------------------------------------------

FAN_OUT = f"""
WITH parent AS (
    UPDATE ocrq_tasks
    SET {lifecycle.render_set(lifecycle.fan_out(lifecycle.param("count", sa.Integer), _CLOCK), "postgresql")}
    WHERE id = %(id)s AND lease_token = %(token)s AND status = 'running' AND children = 0
    RETURNING id, kind, status, priority, tenant, attempts, lease_token
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT {lifecycle.render_event(lifecycle.FANNED_OUT, "postgresql", now="now()", worker="%(worker_id)s")}
    FROM parent
), kids AS (
    INSERT INTO ocrq_tasks (id, kind, status, priority, payload, tenant, max_attempts,
                            run_at, created_at, updated_at, parent_id)
    SELECT c.id, c.kind, 'pending', p.priority, c.payload, p.tenant, c.max_attempts, now(), now(), now(), p.id
    FROM parent p,
         unnest(%(ids)s::text[], %(kinds)s::text[], %(payloads)s::jsonb[], %(max_attempts)s::int[])
             WITH ORDINALITY AS c(id, kind, payload, max_attempts, ord)
    WHERE p.status = 'pending'
    ORDER BY c.ord
    RETURNING id
), kids_ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, detail)
    SELECT id, 'submitted', now(), 0, 0, '{{}}'::jsonb FROM kids
)
SELECT status, pg_notify('{NOTIFY_CHANNEL}', kind) FROM parent
"""

CHILDREN = f"SELECT {COLS} FROM ocrq_tasks WHERE parent_id = %(id)s ORDER BY id"

LEASE_STATE_CHILDREN = "SELECT status, lease_token, children FROM ocrq_tasks WHERE id = %(id)s"

LIST_BASE = f"SELECT {COLS} FROM ocrq_tasks"
LIST_FILTERS = {
    "statuses": "status = ANY(%(statuses)s)",
    "kinds": "kind = ANY(%(kinds)s)",
    "tenant": "tenant = %(tenant)s",
    "top_level": "parent_id IS NULL",
    "cursor": "id < %(cursor)s",
}
LIST_ORDER = "ORDER BY id DESC LIMIT %(limit)s"

EVENTS = """
SELECT id, task_id, type, at, attempt, lease_token, worker_id, detail
FROM ocrq_events WHERE task_id = %(id)s ORDER BY id
"""

CHECKPOINTS = """
SELECT task_id, seq, data, lease_token FROM ocrq_checkpoints WHERE task_id = %(id)s ORDER BY seq
"""

CHECKPOINT_SEQS = "SELECT seq FROM ocrq_checkpoints WHERE task_id = %(id)s ORDER BY seq"

CHECKPOINTS_AFTER = """
SELECT task_id, seq, data, lease_token FROM ocrq_checkpoints
WHERE task_id = %(id)s AND seq > %(after)s ORDER BY seq LIMIT %(limit)s
"""

GET_WITH_EVENTS = f"""
SELECT {T_COLS}, e.id, e.task_id, e.type, e.at, e.attempt, e.lease_token, e.worker_id, e.detail
FROM ocrq_tasks t
LEFT JOIN LATERAL (
    SELECT * FROM ocrq_events WHERE task_id = t.id ORDER BY id DESC LIMIT %(limit)s
) e ON true
WHERE t.id = %(id)s
ORDER BY e.id
"""

COUNTS = "SELECT status, count(*) FROM ocrq_tasks GROUP BY status"

COUNTS_BY_KIND = "SELECT kind, status, count(*) FROM ocrq_tasks GROUP BY kind, status"

_REAPED = lifecycle.lease_expired(lifecycle.column("old_worker"))

# The second event is stamped with clock_timestamp() so it sorts after `lease_lost` by time too.
REAP = f"""
WITH RECURSIVE expired AS (
    SELECT id, worker_id AS old_worker FROM ocrq_tasks
    WHERE status = 'running' AND lease_expires_at < now()
    ORDER BY lease_expires_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
), reaped AS (
    UPDATE ocrq_tasks t
    SET {lifecycle.render_set(_REAPED.assignments(_CLOCK), "postgresql")}
    FROM expired e WHERE t.id = e.id
    RETURNING t.id, t.kind, t.status, t.attempts, t.max_attempts, t.lease_token, e.old_worker,
              t.parent_id, t.error_kind, t.error_message
), ev AS (
    INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token, worker_id, detail)
    SELECT id, 'lease_lost', now(), attempts, lease_token, old_worker,
           jsonb_build_object('reason', 'lease expired')
    FROM reaped
    UNION ALL
    SELECT {lifecycle.render_event(_REAPED, "postgresql", now="clock_timestamp()", worker="old_worker")}
    FROM reaped
){_settle_parents("reaped")}
SELECT id, status, pg_notify('{NOTIFY_CHANNEL}', kind) FROM reaped
"""

# A child goes with its parent: the roots are pruned, with their descendants.
PRUNE = f"""
WITH RECURSIVE roots AS (
    SELECT id FROM ocrq_tasks
    WHERE status IN ('completed', 'cancelled', 'dead_letter') AND parent_id IS NULL
      AND finished_at < now() - make_interval(secs => %(age)s)
    LIMIT %(limit)s
), {_descendants("SELECT id FROM roots")}, gone AS (
    DELETE FROM ocrq_tasks WHERE id IN (SELECT id FROM roots UNION ALL SELECT id FROM tree)
    RETURNING {COLS}
), history AS (
    DELETE FROM ocrq_events WHERE task_id IN (SELECT id FROM gone)
)
SELECT * FROM gone
"""

PRUNE_WORKERS = """
DELETE FROM ocrq_workers
WHERE coalesce(stopped_at, last_seen_at) < now() - make_interval(secs => %(age)s)
"""

REGISTER_WORKER = """
INSERT INTO ocrq_workers (id, host, pid, concurrency, kinds, started_at, last_seen_at)
VALUES (%(id)s, %(host)s, %(pid)s, %(concurrency)s, %(kinds)s::jsonb, now(), now())
ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), stopped_at = NULL
"""

STOP_WORKER = "UPDATE ocrq_workers SET stopped_at = now(), last_seen_at = now() WHERE id = %(id)s"

WORKERS = """
SELECT id, host, pid, concurrency, kinds, started_at, last_seen_at, stopped_at FROM ocrq_workers
WHERE (%(host)s::text IS NULL OR host = %(host)s) AND (NOT %(live_only)s OR stopped_at IS NULL)
ORDER BY started_at
"""

EXPIRE_WORKER_LEASES = """
UPDATE ocrq_tasks SET lease_expires_at = now() - interval '1 microsecond', updated_at = now()
WHERE status = 'running' AND worker_id = ANY(%(ids)s)
"""

MARK_WORKERS_STOPPED = """
UPDATE ocrq_workers SET stopped_at = now() WHERE id = ANY(%(ids)s) AND stopped_at IS NULL
"""

NOW = "SELECT extract(epoch FROM now())::float8"
