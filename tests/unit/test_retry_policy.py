"""The client's retry policy (client/retries.py): what is retried, how long it waits, when it stops."""

from __future__ import annotations

import email.utils
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.client.retries import RETRY_STATUSES, Attempts, Failure, RetryPolicy, may_retry, parse_retry_after

policies = st.builds(
    RetryPolicy,
    attempts=st.integers(1, 30),
    deadline_seconds=st.floats(0.01, 600),
    base_seconds=st.floats(0, 5),
    cap_seconds=st.floats(0, 60),
    retry_after_cap_seconds=st.floats(0, 300),
)
failures = st.one_of(st.sampled_from(Failure), st.sampled_from(sorted(RETRY_STATUSES)))


class FakeClock:
    """The call's own time: advanced by the waits the policy asks for and by each attempt's length."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@given(policies, st.integers(0, 100), st.one_of(st.none(), st.floats(0, 10_000)), st.integers())
def test_a_wait_is_full_jitter_within_its_ceiling_or_the_capped_retry_after(
    policy: RetryPolicy, retries: int, retry_after: float | None, seed: int
) -> None:
    wait = policy.wait(retries, retry_after, random.Random(seed))
    ceiling = min(policy.cap_seconds, policy.base_seconds * 2.0**retries)
    if retry_after is None:
        assert 0 <= wait <= ceiling
    else:
        honoured = min(retry_after, policy.retry_after_cap_seconds)
        assert honoured <= wait <= max(ceiling, honoured)


outcomes = st.lists(st.tuples(failures, st.floats(0, 30), st.none() | st.floats(0, 200)), max_size=40)


@given(policies, outcomes, st.integers())
def test_a_call_never_outlives_its_deadline_nor_its_attempts(
    policy: RetryPolicy, outcomes: list[tuple[Failure | int, float, float | None]], seed: int
) -> None:
    """Each attempt takes some time (bounded by what is left, as the client bounds its timeouts);
    the waits the policy grants always end before the deadline, and it stops at `attempts`."""
    clock = FakeClock()
    attempts = Attempts(policy, idempotent=True, clock=clock, rng=random.Random(seed))
    for failure, took, retry_after in outcomes:
        attempts.begin()
        clock.now += min(took, max(0.0, attempts.remaining()))
        wait = attempts.after(failure, retry_after)
        if wait is None:
            break
        assert wait >= 0
        clock.now += wait
        assert clock.now < policy.deadline_seconds
    assert attempts.made <= policy.attempts
    assert clock.now <= policy.deadline_seconds


def test_it_stops_after_the_last_attempt() -> None:
    attempts = Attempts(RetryPolicy(attempts=3, base_seconds=0), idempotent=True, rng=random.Random(1))
    waits = []
    for _ in range(5):
        attempts.begin()
        waits.append(attempts.after(503))
    assert waits == [0.0, 0.0, None, None, None]


def test_it_gives_up_when_the_retry_after_would_pass_the_deadline() -> None:
    attempts = Attempts(RetryPolicy(deadline_seconds=10), idempotent=True, clock=FakeClock(), rng=random.Random(1))
    attempts.begin()
    assert attempts.after(429, retry_after=9.0) == 9.0
    attempts.begin()
    assert attempts.after(429, retry_after=11.0) is None


@pytest.mark.parametrize(
    ("failure", "idempotent", "expected"),
    [
        (Failure.NOT_SENT, False, True),  # the server never saw it
        (429, False, True),  # refused unread
        (Failure.LOST, False, False),  # it may have been done: only an idempotent call is repeated
        (502, False, False),
        (503, False, False),
        (504, False, False),
        (Failure.LOST, True, True),
        (502, True, True),
        (503, True, True),
        (504, True, True),
        (500, True, False),  # a server bug does not mend by asking again
        (404, True, False),
        (409, True, False),
    ],
)
def test_what_is_retried(failure: Failure | int, idempotent: bool, expected: bool) -> None:
    assert may_retry(failure, idempotent) is expected


def test_retry_after_is_read_as_seconds_or_an_http_date() -> None:
    now = 1_800_000_000.0
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after(" 0 ", now) == 0.0
    assert parse_retry_after(email.utils.formatdate(now + 30, usegmt=True), now) == 30.0
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0  # in the past: now
    for unreadable in (None, "", "soon", "-3", "1.5e9", "Mon, 99 Foo 2026 00:00:00 GMT"):
        assert parse_retry_after(unreadable, now) is None


def test_a_policy_refuses_nonsense() -> None:
    for bad in ({"attempts": 0}, {"deadline_seconds": 0}, {"base_seconds": -1}, {"cap_seconds": -1}):
        with pytest.raises(ValueError, match="retry policy"):
            RetryPolicy(**bad)  # type: ignore[arg-type]
