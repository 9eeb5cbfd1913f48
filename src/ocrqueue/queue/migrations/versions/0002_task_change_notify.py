"""PostgreSQL: statements that write followed task rows send their ids on `ocrqueue_task_changes`.

Followers (live status streams, `tasks wait`) LISTEN there and read a task only when it changed,
instead of reading every followed task on a timer. A follower registers the tasks it follows in
`ocrq_follows` (with an expiry it renews): an UPDATE notifies only for those, because a NOTIFY
serialises the commits of every notifying transaction, and a drain's claims and completions must
not pay for that when nobody watches their tasks (it cost the drain half its rate). Inserts and
deletes always notify (a new task matters to every list; a submit notifies workers anyway). One
notification per statement; more than 200 ids (8000 bytes of payload) are sent as `*`, "any task
may have changed". SQLite has no NOTIFY: its followers watch `PRAGMA data_version`, so nothing
changes there.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

MAX_IDS = 200

FUNCTION = f"""
CREATE FUNCTION ocrq_notify_task_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids text[];
BEGIN
    IF TG_OP = 'UPDATE' THEN
        SELECT array_agg(id) INTO ids FROM (
            SELECT c.id FROM changed c
            WHERE EXISTS (SELECT 1 FROM ocrq_follows f WHERE f.task_id = c.id AND f.expires_at > now())
            LIMIT {MAX_IDS + 1}
        ) AS followed;
    ELSE
        SELECT array_agg(id) INTO ids FROM (SELECT id FROM changed LIMIT {MAX_IDS + 1}) AS first_ids;
    END IF;
    IF ids IS NOT NULL THEN
        PERFORM pg_notify('ocrqueue_task_changes',
                          CASE WHEN cardinality(ids) > {MAX_IDS} THEN '*' ELSE array_to_string(ids, ',') END);
    END IF;
    RETURN NULL;
END
$$
"""

# A trigger with a transition table may fire on one event only: one per event.
TRIGGERS = {
    "ocrq_tasks_inserted": "AFTER INSERT ON ocrq_tasks REFERENCING NEW TABLE AS changed",
    "ocrq_tasks_updated": "AFTER UPDATE ON ocrq_tasks REFERENCING NEW TABLE AS changed",
    "ocrq_tasks_deleted": "AFTER DELETE ON ocrq_tasks REFERENCING OLD TABLE AS changed",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.create_table(
        "ocrq_follows",
        sa.Column("task_id", sa.String(36), primary_key=True),
        sa.Column("follower", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.execute(FUNCTION)
    for name, when in TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT EXECUTE FUNCTION ocrq_notify_task_changes()")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON ocrq_tasks")
    op.execute("DROP FUNCTION ocrq_notify_task_changes()")
    op.drop_table("ocrq_follows")
