"""The model-server breakers of every worker process, in the database, for /readyz on any API node.

A breaker lives in the process that sends model requests (documents/vlm/breaker.py); workers may
run on other machines than the API. So each worker process writes its breaker's state here on
every change of state (service/engines.py, `BreakerReporter`), never per request: one row per
model-server endpoint and reporting process while its breaker is open or half-open, with the
database's time. Closing deletes the row (a closed report replaces an open one), and so does a
graceful stop.

A process that dies while its breaker is open leaves its row behind, so a report only counts
while it is fresh (`BreakerReport.fresh`): an open one until its probe is due plus a margin, a
half-open one for the margin. A live process in a lasting outage reports again within that time
(its deferred tasks come back when the probe is due, and the probe reopens or closes it); one
whose breaker waits open with no task to probe it, or one that is gone, stops counting. The
margin is the cool-down plus the longest probe (`freshness_margin`). Rows older than an hour are
deleted by the next write.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from ocrqueue.documents.vlm import BreakerState, BreakerStatus, VlmConfig
from ocrqueue.queue.urls import parse_database_url

_FORGET_SECONDS = 3600.0
_MAX_REASON = 1000
_SEVERITY = {BreakerState.CLOSED: 0, BreakerState.HALF_OPEN: 1, BreakerState.OPEN: 2}

metadata = sa.MetaData()
model_breakers = sa.Table(
    "ocrq_model_breakers",
    metadata,
    sa.Column("endpoint", sa.String(500), primary_key=True),
    sa.Column("reporter", sa.String(300), primary_key=True),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("reason", sa.String(_MAX_REASON)),
    sa.Column("retry_in", sa.Float(), nullable=False),
    sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
)


def _at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _epoch(moment: datetime) -> float:
    """SQLite hands back naive datetimes; what is written is always UTC."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _key(endpoint: str, reporter: str) -> sa.ColumnElement[bool]:
    return (model_breakers.c.endpoint == endpoint) & (model_breakers.c.reporter == reporter)


def freshness_margin(config: VlmConfig) -> float:
    """How long past its probe time a report still counts: the cool-down (deferred tasks come back
    up to 20 % after the probe is due, then need a claim) plus the longest probe."""
    return config.breaker_cooldown_seconds + config.probe_timeout_seconds


@dataclass(frozen=True)
class BreakerReport:
    """One process's breaker for one endpoint, as it last reported it (times in database seconds)."""

    reporter: str
    state: BreakerState
    reason: str | None
    retry_in: float
    reported_at: float

    def fresh(self, now: float, margin: float) -> bool:
        """Open: until its probe is due plus `margin`; half-open: for `margin` (longer than a probe)."""
        due = self.reported_at + (self.retry_in if self.state is BreakerState.OPEN else 0.0)
        return now <= due + margin

    def status(self, now: float) -> BreakerStatus:
        left = max(0.0, self.reported_at + self.retry_in - now) if self.state is BreakerState.OPEN else 0.0
        return BreakerStatus(self.state, 0, left, self.reason, 0)


def describe_model_server(own: BreakerStatus, reports: Sequence[BreakerReport], now: float, margin: float) -> str:
    """The worst of this process's breaker and the fresh reports (open > half-open > closed), in the
    words of `BreakerStatus.describe`; a report is followed by who made it. On a tie this process wins,
    then the newest report."""
    fresh = [r for r in reports if r.state is not BreakerState.CLOSED and r.fresh(now, margin)]
    worst = max(fresh, key=lambda r: (_SEVERITY[r.state], r.reported_at), default=None)
    if worst is None or _SEVERITY[own.state] >= _SEVERITY[worst.state]:
        return own.describe()
    others = len(fresh) - 1
    who = worst.reporter + (f" and {others} more" if others else "")
    return f"{worst.status(now).describe()} ({who})"


@dataclass(frozen=True)
class BreakerSummary:
    """For metrics: the worst state of this process's breaker and the fresh reports, and how many
    reporting processes are in each state that is not closed."""

    endpoint: str
    worst: BreakerState
    reported: Mapping[BreakerState, int]


def summarize_breakers(
    endpoint: str, own: BreakerStatus, reports: Sequence[BreakerReport], now: float, margin: float
) -> BreakerSummary:
    fresh = [r.state for r in reports if r.state is not BreakerState.CLOSED and r.fresh(now, margin)]
    worst = max([own.state, *fresh], key=lambda state: _SEVERITY[state])
    return BreakerSummary(endpoint, worst, Counter(fresh))


class BreakerReports:
    """The `ocrq_model_breakers` table. Each (endpoint, reporter) row has one writer: the reporting
    process's `BreakerReporter` thread."""

    def __init__(self, database_url: str) -> None:
        url = parse_database_url(database_url)
        self._engine = sa.create_engine(url.sqlalchemy, pool_pre_ping=True)

    def close(self) -> None:
        self._engine.dispose()

    def put(self, endpoint: str, reporter: str, status: BreakerStatus, now: float) -> None:
        """Record `status` at database time `now`: a closed breaker deletes the reporter's row."""
        key = _key(endpoint, reporter)
        with self._engine.begin() as conn:
            conn.execute(model_breakers.delete().where(model_breakers.c.reported_at < _at(now - _FORGET_SECONDS)))
            if status.state is BreakerState.CLOSED:
                conn.execute(model_breakers.delete().where(key))
                return
            values = {
                "state": str(status.state),
                "reason": status.last_error[:_MAX_REASON] if status.last_error else None,
                "retry_in": status.retry_in,
                "reported_at": _at(now),
            }
            if conn.execute(model_breakers.update().where(key).values(**values)).rowcount == 0:
                conn.execute(model_breakers.insert().values(endpoint=endpoint, reporter=reporter, **values))

    def forget(self, endpoint: str, reporter: str) -> None:
        with self._engine.begin() as conn:
            conn.execute(model_breakers.delete().where(_key(endpoint, reporter)))

    def read(self, endpoint: str) -> list[BreakerReport]:
        query = sa.select(model_breakers).where(model_breakers.c.endpoint == endpoint)
        with self._engine.connect() as conn:
            return [
                BreakerReport(r.reporter, BreakerState(r.state), r.reason, r.retry_in, _epoch(r.reported_at))
                for r in conn.execute(query)
            ]
