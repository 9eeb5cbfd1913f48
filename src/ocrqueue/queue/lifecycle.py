"""How a running attempt ends when it does not complete: the one definition of the rule.

Cancellation wins; otherwise the task goes back to `pending` after its backoff (`run_at`), or to
`dead_letter` when the error is permanent or its attempts are used up; and one event says which
and why. A worker's `fail` and the reaper's take-back of an expired lease (a failed, retryable
attempt: invariant 4) are both this rule. It is written here once, as SQLAlchemy Core
expressions over a task row; each driver renders them into its own dialect's statements once, at
import, so the rule costs nothing per call and the two backends cannot drift apart. Fencing (id,
`status = 'running'`, lease token) and the clock stay with the statements that embed these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.elements import ColumnElement

from ocrqueue.queue.models import EventType, TaskStatus

Dialect = Literal["sqlite", "postgresql"]
Expression = ColumnElement[Any]

_DIALECTS: dict[str, sa.Dialect] = {
    "sqlite": sqlite.dialect(paramstyle="named"),
    "postgresql": postgresql.psycopg.dialect(paramstyle="pyformat"),  # type: ignore[no-untyped-call]
}


def word(value: str) -> Expression:
    """A string constant written into the statement itself (not a parameter to pass each call)."""
    return sa.literal_column("'" + value.replace("'", "''") + "'", sa.Text)


def param(name: str, type_: Any) -> Expression:
    """A named parameter the statement's caller passes (`:name` or `%(name)s` once rendered)."""
    return sa.bindparam(name, type_=type_)


def column(name: str, type_: Any = sa.Text) -> Expression:
    """A column of the row being decided (the task row, or a CTE with the same column names)."""
    return sa.column(name, type_)


cancel_requested = column("cancel_requested", sa.Boolean)
attempts = column("attempts", sa.Integer)
max_attempts = column("max_attempts", sa.Integer)
status = column("status")
worker_id = column("worker_id")


@dataclass(frozen=True)
class Ending:
    """Why an attempt ended, as expressions the statement supplies (parameters or constants)."""

    retryable: Expression
    error_kind: Expression
    message: Expression
    delay_seconds: Expression
    cancelled_message: str
    """What a task cancelled at this point says (the cause's message goes to the event)."""

    # -- the decision, over the running row --------------------------------------------------
    @property
    def exhausted(self) -> Expression:
        return sa.or_(sa.not_(self.retryable), attempts >= max_attempts)

    @property
    def terminal(self) -> Expression:
        return sa.or_(cancel_requested, self.exhausted)

    def assignments(self, *, now: Expression, due: Expression) -> dict[str, Expression]:
        """The SET list that ends the attempt. `due` is `now` plus `delay_seconds` in the dialect's
        time arithmetic (only a retried task waits for it). A terminal task keeps the worker that
        ran its last attempt, for the record; a retried one is nobody's until claimed again."""
        return {
            "status": sa.case(
                (cancel_requested, word(TaskStatus.CANCELLED)),
                (self.exhausted, word(TaskStatus.DEAD_LETTER)),
                else_=word(TaskStatus.PENDING),
            ),
            "error_kind": sa.case((cancel_requested, word("cancelled")), else_=self.error_kind),
            "error_message": sa.case((cancel_requested, word(self.cancelled_message)), else_=self.message),
            "worker_id": sa.case((self.terminal, worker_id), else_=sa.null()),
            "finished_at": sa.case((self.terminal, now), else_=sa.null()),
            "run_at": due,
            "lease_expires_at": sa.null(),
            "updated_at": now,
        }

    # -- the event, over the row the assignments wrote --------------------------------------
    def event_type(self) -> Expression:
        return sa.case(
            (status == word(TaskStatus.PENDING), word(EventType.RETRIED)),
            (status == word(TaskStatus.DEAD_LETTER), word(EventType.DEAD_LETTERED)),
            else_=word(EventType.CANCELLED),
        )

    def event_detail(self, dialect: Dialect) -> Expression:
        """The cause (error kind and message), the wait when retried, the reason when dead-lettered;
        NULL members are dropped when events are read."""
        build = sa.func.json_object if dialect == "sqlite" else sa.func.jsonb_build_object
        return build(
            word("error_kind"),
            sa.cast(self.error_kind, sa.Text),
            word("message"),
            sa.cast(self.message, sa.Text),
            word("delay_seconds"),
            sa.case((status == word(TaskStatus.PENDING), self.delay_seconds), else_=sa.null()),
            word("reason"),
            sa.case(
                (status != word(TaskStatus.DEAD_LETTER), sa.null()),
                (sa.not_(self.retryable), word("permanent error")),
                else_=word("attempts exhausted"),
            ),
        )


FAILED = Ending(
    retryable=param("retryable", sa.Boolean),
    error_kind=param("error_kind", sa.Text),
    message=param("message", sa.Text),
    delay_seconds=param("delay", sa.Float),
    cancelled_message="cancelled while running",
)
"""A handler's error, classified by the worker: parameters retryable, error_kind, message, delay."""


def lease_expired(old_worker: Expression) -> Ending:
    """The reaper's take-back of an expired lease: a retryable failure, due again at once."""
    message = (
        word("lease expired on worker ")
        + sa.func.coalesce(old_worker, word("?"))
        + word(" during attempt ")
        + sa.cast(attempts, sa.Text)
        + word(" of ")
        + sa.cast(max_attempts, sa.Text)
        + word(": the worker died or stalled")
    )
    return Ending(
        retryable=sa.true(),
        error_kind=word("lease_expired"),
        message=message,
        delay_seconds=sa.literal_column("0", sa.Float),
        cancelled_message="cancelled; its worker stopped responding",
    )


def render(expression: Expression, dialect: Dialect) -> str:
    return str(expression.compile(dialect=_DIALECTS[dialect]))


def render_assignments(ending: Ending, dialect: Dialect, *, now: str) -> str:
    """`col = expr, …` for an UPDATE; `now` is the dialect's SQL for the database clock."""
    clock = sa.literal_column(now, sa.Float if dialect == "sqlite" else sa.DateTime)
    if dialect == "sqlite":  # epoch seconds
        due = clock + ending.delay_seconds
    else:
        due = clock + ending.delay_seconds * sa.literal_column("interval '1 second'", sa.Interval)
    assignments = ending.assignments(now=clock, due=due)
    return ",\n    ".join(f"{name} = {render(value, dialect)}" for name, value in assignments.items())


def render_event_columns(ending: Ending, dialect: Dialect, *, now: str, worker: str) -> str:
    """The select list of `INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token,
    worker_id, detail) SELECT …` over the rows the assignments wrote."""
    return ", ".join(
        [
            "id",
            render(ending.event_type(), dialect),
            now,
            "attempts",
            "lease_token",
            worker,
            render(ending.event_detail(dialect), dialect),
        ]
    )
