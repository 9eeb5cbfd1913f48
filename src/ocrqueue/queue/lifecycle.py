"""How a running attempt ends: the one definition of the rule, which both drivers execute.

Cancellation wins, whichever way the attempt ends. Otherwise a completion completes; a release
(graceful shutdown, a deferral) hands the task back without charging the attempt; and a failure —
a handler's error, or an expired lease, which counts as a failed, retryable attempt (invariant 4)
— goes back to `pending` after its backoff (`run_at`), or to `dead_letter` when the error is
permanent or the attempts are used up, with one event that says which and why.

It is written here once, as SQLAlchemy Core expressions over a task row. Each driver renders them
into its own dialect's statements once, at import, so the rule costs nothing per call and the two
backends cannot drift apart. Fencing (id, `status = 'running'`, lease token), the choice of rows
and the event inserts' sources stay with the statements that embed these expressions.
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
Assignments = dict[str, Expression]

_DIALECTS: dict[str, sa.Dialect] = {
    "sqlite": sqlite.dialect(paramstyle="named"),
    "postgresql": postgresql.psycopg.dialect(paramstyle="pyformat"),  # type: ignore[no-untyped-call]
}

CANCELLED_WHILE_RUNNING = "cancelled while running"


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
error_kind = column("error_kind")
error_message = column("error_message")
progress_done = column("progress_done", sa.Integer)
progress_total = column("progress_total", sa.Integer)


def cancel_wins(otherwise: Expression, cancelled: Expression) -> Expression:
    return sa.case((cancel_requested, cancelled), else_=otherwise)


@dataclass(frozen=True)
class Clock:
    """The database clock in one dialect's SQL, and its time arithmetic."""

    dialect: Dialect
    now_sql: str

    @property
    def now(self) -> Expression:
        return sa.literal_column(self.now_sql, sa.Float if self.dialect == "sqlite" else sa.DateTime)

    def after(self, seconds: Expression) -> Expression:
        if self.dialect == "sqlite":  # epoch seconds
            return self.now + seconds
        return self.now + seconds * sa.literal_column("interval '1 second'", sa.Interval)


# -- completing and releasing ---------------------------------------------------------------------


def completion(result: Expression, clock: Clock) -> Assignments:
    """A handler returned `result`: completed, unless a cancel was requested first (then no result)."""
    return {
        "status": cancel_wins(word(TaskStatus.COMPLETED), word(TaskStatus.CANCELLED)),
        "result": cancel_wins(result, sa.null()),
        "error_kind": cancel_wins(sa.null(), word("cancelled")),
        "error_message": cancel_wins(sa.null(), word(CANCELLED_WHILE_RUNNING)),
        "progress_done": cancel_wins(sa.func.coalesce(progress_total, progress_done), progress_done),
        "lease_expires_at": sa.null(),
        "finished_at": clock.now,
        "updated_at": clock.now,
    }


def release(delay_seconds: Expression, clock: Clock) -> Assignments:
    """Handed back (graceful shutdown, a deferral): pending again after `delay_seconds`, the attempt
    not charged; or cancelled, when a cancel was requested meanwhile."""
    return {
        "status": cancel_wins(word(TaskStatus.PENDING), word(TaskStatus.CANCELLED)),
        "attempts": cancel_wins(attempts - sa.literal_column("1", sa.Integer), attempts),
        "error_kind": cancel_wins(error_kind, word("cancelled")),
        "error_message": cancel_wins(error_message, word(CANCELLED_WHILE_RUNNING)),
        "finished_at": cancel_wins(sa.null(), clock.now),
        "worker_id": sa.null(),
        "lease_expires_at": sa.null(),
        "run_at": clock.after(delay_seconds),
        "updated_at": clock.now,
    }


@dataclass(frozen=True)
class Release:
    """The event of a release, over the row `release` wrote: why it was handed back and for how
    long, or a bare `cancelled` when the cancel won."""

    reason: Expression
    delay_seconds: Expression

    def event_type(self) -> Expression:
        return sa.case((status == word(TaskStatus.PENDING), word(EventType.RELEASED)), else_=word(EventType.CANCELLED))

    def event_detail(self, dialect: Dialect) -> Expression:
        released = status == word(TaskStatus.PENDING)
        return _json_object(
            dialect,
            reason=sa.case((released, sa.cast(self.reason, sa.Text)), else_=sa.null()),
            delay_seconds=sa.case((released, self.delay_seconds), else_=sa.null()),
        )


RELEASED = Release(reason=param("reason", sa.Text), delay_seconds=param("delay", sa.Float))
"""A worker's release: parameters reason and delay."""


# -- failing ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """Why an attempt failed, as expressions the statement supplies (parameters or constants)."""

    retryable: Expression
    error_kind: Expression
    message: Expression
    delay_seconds: Expression
    cancelled_message: str
    """What a task cancelled at this point says (the cause's message goes to the event)."""

    @property
    def exhausted(self) -> Expression:
        return sa.or_(sa.not_(self.retryable), attempts >= max_attempts)

    @property
    def terminal(self) -> Expression:
        return sa.or_(cancel_requested, self.exhausted)

    def assignments(self, clock: Clock) -> Assignments:
        """Only a retried task waits for `delay_seconds`. A terminal task keeps the worker that ran
        its last attempt, for the record; a retried one is nobody's until claimed again."""
        return {
            "status": sa.case(
                (cancel_requested, word(TaskStatus.CANCELLED)),
                (self.exhausted, word(TaskStatus.DEAD_LETTER)),
                else_=word(TaskStatus.PENDING),
            ),
            "error_kind": cancel_wins(self.error_kind, word("cancelled")),
            "error_message": cancel_wins(self.message, word(self.cancelled_message)),
            "worker_id": sa.case((self.terminal, worker_id), else_=sa.null()),
            "finished_at": sa.case((self.terminal, clock.now), else_=sa.null()),
            "run_at": clock.after(self.delay_seconds),
            "lease_expires_at": sa.null(),
            "updated_at": clock.now,
        }

    def event_type(self) -> Expression:
        """Over the row the assignments wrote."""
        return sa.case(
            (status == word(TaskStatus.PENDING), word(EventType.RETRIED)),
            (status == word(TaskStatus.DEAD_LETTER), word(EventType.DEAD_LETTERED)),
            else_=word(EventType.CANCELLED),
        )

    def event_detail(self, dialect: Dialect) -> Expression:
        """The cause (error kind and message), the wait when retried, the reason when dead-lettered."""
        return _json_object(
            dialect,
            error_kind=sa.cast(self.error_kind, sa.Text),
            message=sa.cast(self.message, sa.Text),
            delay_seconds=sa.case((status == word(TaskStatus.PENDING), self.delay_seconds), else_=sa.null()),
            reason=sa.case(
                (status != word(TaskStatus.DEAD_LETTER), sa.null()),
                (sa.not_(self.retryable), word("permanent error")),
                else_=word("attempts exhausted"),
            ),
        )


HANDLER_ERROR = Failure(
    retryable=param("retryable", sa.Boolean),
    error_kind=param("error_kind", sa.Text),
    message=param("message", sa.Text),
    delay_seconds=param("delay", sa.Float),
    cancelled_message=CANCELLED_WHILE_RUNNING,
)
"""A handler's error, classified by the worker: parameters retryable, error_kind, message, delay."""


def lease_expired(old_worker: Expression) -> Failure:
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
    return Failure(
        retryable=sa.true(),
        error_kind=word("lease_expired"),
        message=message,
        delay_seconds=sa.literal_column("0", sa.Float),
        cancelled_message="cancelled; its worker stopped responding",
    )


# -- rendering --------------------------------------------------------------------------------------


def render(expression: Expression, dialect: Dialect) -> str:
    return str(expression.compile(dialect=_DIALECTS[dialect]))


def render_set(assignments: Assignments, dialect: Dialect) -> str:
    """`col = expr, …` for an UPDATE."""
    return ",\n    ".join(f"{name} = {render(value, dialect)}" for name, value in assignments.items())


def _json_object(dialect: Dialect, **members: Expression) -> Expression:
    """A JSON object of the members; NULL ones are dropped when events are read."""
    build = sa.func.json_object if dialect == "sqlite" else sa.func.jsonb_build_object
    return build(*[part for name, value in members.items() for part in (word(name), value)])


def render_event(ending: Failure | Release, dialect: Dialect, *, now: str, worker: str) -> str:
    """The select list of `INSERT INTO ocrq_events (task_id, type, at, attempt, lease_token,
    worker_id, detail) SELECT …` over the rows the ending's assignments wrote."""
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
