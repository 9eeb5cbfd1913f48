"""When the client tries a request again, and how long it waits first: pure, so it is tested alone.

A request is tried again only when that cannot do harm: always when the server never saw it (no
connection) or refused it unread (429); after a lost answer (reset, timeout, protocol error) or a
gateway's 502/503/504 only when the call is idempotent, as every call of this client is except
`retry`. Waits are full jitter over `min(cap, base * 2**retries)`, at least a 429/503's
`Retry-After` (capped), and never past the call's deadline.
"""

from __future__ import annotations

import email.utils
import enum
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Statuses worth a second try; 429 always, the others for idempotent calls."""


class Failure(enum.Enum):
    """What went wrong with an attempt that got no HTTP answer."""

    NOT_SENT = "not sent"
    """Connecting failed or timed out: the server never saw the request."""
    LOST = "lost"
    """Reset, protocol error, read or write timeout: the server may have acted on it."""


def may_retry(failure: Failure | int, idempotent: bool) -> bool:
    """Whether an attempt that ended in `failure` (or this HTTP status) may be tried again."""
    if failure is Failure.NOT_SENT or failure == 429:
        return True
    return idempotent and (failure is Failure.LOST or failure in RETRY_STATUSES)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header (delay-seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """How one client call is retried. `attempts` counts the first try (1: never retry);
    `deadline_seconds` bounds the whole call, waits and attempts' timeouts included."""

    attempts: int = 8
    deadline_seconds: float = 300.0
    base_seconds: float = 0.5
    cap_seconds: float = 30.0
    retry_after_cap_seconds: float = 120.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.deadline_seconds <= 0 or self.base_seconds < 0 or self.cap_seconds < 0:
            raise ValueError(f"a retry policy needs attempts >= 1, a positive deadline and waits >= 0: {self}")

    def ceiling(self, retries: int) -> float:
        """The longest jittered wait before retry number `retries + 1`."""
        return min(self.cap_seconds, self.base_seconds * 2.0 ** min(retries, 62))

    def wait(self, retries: int, retry_after: float | None, rng: random.Random) -> float:
        """Full jitter in [0, ceiling], raised to the server's Retry-After (capped)."""
        jittered = rng.uniform(0.0, self.ceiling(retries))
        if retry_after is None:
            return jittered
        return max(jittered, min(retry_after, self.retry_after_cap_seconds))


@dataclass
class Attempts:
    """One call's attempts under a policy: after each failed one, the wait before the next or None
    (give up: attempts spent, deadline too near, or not safe to repeat)."""

    policy: RetryPolicy
    idempotent: bool
    clock: Callable[[], float] = time.monotonic
    rng: random.Random = field(default_factory=random.Random)
    made: int = 0
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def remaining(self) -> float:
        """Seconds left before the deadline (for the next attempt's timeout)."""
        return self.policy.deadline_seconds - (self.clock() - self.started)

    def begin(self) -> None:
        self.made += 1

    def after(self, failure: Failure | int, retry_after: float | None = None) -> float | None:
        if not may_retry(failure, self.idempotent) or self.made >= self.policy.attempts:
            return None
        wait = self.policy.wait(self.made - 1, retry_after, self.rng)
        if wait >= self.remaining():
            return None
        return wait
