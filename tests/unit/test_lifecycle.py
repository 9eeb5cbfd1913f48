"""The lifecycle rule, rendered for SQLite and evaluated over every kind of running row.

The integration suites run the statements built from it on both databases; this checks the
decision itself against the rule as DESIGN.md states it, for every combination of its inputs.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.queue import lifecycle
from ocrqueue.queue.drivers.sqlite_sql import NOW

CLOCK = lifecycle.Clock("sqlite", NOW)
_conn = sqlite3.connect(":memory:", check_same_thread=False)
ROW_COLUMNS = (
    "cancel_requested", "attempts", "max_attempts", "status", "worker_id", "error_kind", "error_message",
    "progress_done", "progress_total",
)  # fmt: skip


def query(expressions: dict[str, lifecycle.Expression]) -> str:
    """A SELECT of each expression over one row given as parameters, rendered once."""
    source = ", ".join(f":row_{name} AS {name}" for name in ROW_COLUMNS)
    select = ", ".join(f"{lifecycle.render(value, 'sqlite')} AS {name}" for name, value in expressions.items())
    return f"SELECT {select} FROM (SELECT {source})"


def evaluate(statement: str, row: dict[str, Any], **params: Any) -> dict[str, Any]:
    """The query's values over `row`, in real SQLite."""
    cursor = _conn.execute(statement, {f"row_{k}": v for k, v in row.items()} | params)
    names = [d[0] for d in cursor.description]
    return dict(zip(names, cursor.fetchone(), strict=True))


EXPIRED = lifecycle.lease_expired(lifecycle.param("old_worker", sa.Text))
FAIL = query(lifecycle.HANDLER_ERROR.assignments(CLOCK))
FAIL_EVENT = query(
    {"type": lifecycle.HANDLER_ERROR.event_type(), "detail": lifecycle.HANDLER_ERROR.event_detail("sqlite")}
)
REAP = query(EXPIRED.assignments(CLOCK))
COMPLETE = query(lifecycle.completion(lifecycle.param("result", sa.Text), CLOCK))
RELEASE = query(lifecycle.release(lifecycle.RELEASED.delay_seconds, CLOCK))
RELEASE_EVENT = query({"type": lifecycle.RELEASED.event_type(), "detail": lifecycle.RELEASED.event_detail("sqlite")})


rows = st.fixed_dictionaries(
    {
        "cancel_requested": st.booleans(),
        "attempts": st.integers(1, 6),
        "max_attempts": st.integers(1, 6),
        "status": st.just("running"),
        "worker_id": st.just("w1"),
        "error_kind": st.sampled_from([None, "transient"]),
        "error_message": st.sampled_from([None, "earlier"]),
        "progress_done": st.integers(0, 3),
        "progress_total": st.sampled_from([None, 5]),
    }
)


@given(row=rows, retryable=st.booleans(), delay=st.floats(0, 100))
def test_a_failure_is_cancelled_else_dead_lettered_when_permanent_or_out_of_attempts_else_retried(
    row: dict[str, Any], retryable: bool, delay: float
) -> None:
    params = {"retryable": retryable, "error_kind": "transient", "message": "boom", "delay": delay}
    after = evaluate(FAIL, row, **params)
    if row["cancel_requested"]:
        expected, event = "cancelled", "cancelled"
    elif not retryable or row["attempts"] >= row["max_attempts"]:
        expected, event = "dead_letter", "dead_lettered"
    else:
        expected, event = "pending", "retried"
    terminal = expected != "pending"
    assert after["status"] == expected
    assert (after["worker_id"], after["finished_at"] is not None) == (("w1", True) if terminal else (None, False))
    assert after["error_kind"] == ("cancelled" if row["cancel_requested"] else "transient")
    assert after["run_at"] - after["updated_at"] == pytest.approx(delay, abs=1e-6)
    written = row | {"status": expected}
    recorded = evaluate(FAIL_EVENT, written, **params)
    detail = {k: v for k, v in json.loads(recorded["detail"]).items() if v is not None}
    assert recorded["type"] == event
    assert detail["error_kind"] == "transient" and detail["message"] == "boom"
    assert ("delay_seconds" in detail) == (expected == "pending")
    if expected == "dead_letter":
        assert detail["reason"] == ("permanent error" if not retryable else "attempts exhausted")


@given(row=rows)
def test_an_expired_lease_is_a_retryable_failure_due_at_once(row: dict[str, Any]) -> None:
    after = evaluate(REAP, row, old_worker="w1")
    if row["cancel_requested"]:
        assert (after["status"], after["error_message"]) == ("cancelled", "cancelled; its worker stopped responding")
    else:
        exhausted = row["attempts"] >= row["max_attempts"]
        assert after["status"] == ("dead_letter" if exhausted else "pending")
        assert after["error_message"] == (
            f"lease expired on worker w1 during attempt {row['attempts']} of {row['max_attempts']}: "
            "the worker died or stalled"
        )
    assert after["run_at"] == after["updated_at"]


@given(row=rows)
def test_a_completion_completes_unless_the_cancel_came_first(row: dict[str, Any]) -> None:
    after = evaluate(COMPLETE, row, result='"r"')
    if row["cancel_requested"]:
        assert (after["status"], after["result"], after["progress_done"]) == ("cancelled", None, row["progress_done"])
    else:
        total = row["progress_total"] if row["progress_total"] is not None else row["progress_done"]
        assert (after["status"], after["result"], after["progress_done"]) == ("completed", '"r"', total)
        assert after["error_kind"] is None


@given(row=rows, delay=st.floats(0, 100))
def test_a_release_hands_back_without_charging_the_attempt_unless_the_cancel_came_first(
    row: dict[str, Any], delay: float
) -> None:
    after = evaluate(RELEASE, row, delay=delay)
    cancelled = row["cancel_requested"]
    assert after["status"] == ("cancelled" if cancelled else "pending")
    assert after["attempts"] == (row["attempts"] if cancelled else row["attempts"] - 1)
    assert after["worker_id"] is None and (after["finished_at"] is not None) == cancelled
    written = row | {"status": after["status"]}
    recorded = evaluate(RELEASE_EVENT, written, reason="stop", delay=delay)
    detail = {k: v for k, v in json.loads(recorded["detail"]).items() if v is not None}
    assert recorded["type"] == ("cancelled" if cancelled else "released")
    # SQLite's JSON writes 15 significant digits
    assert detail == ({} if cancelled else {"reason": "stop", "delay_seconds": pytest.approx(delay, rel=1e-14)})
