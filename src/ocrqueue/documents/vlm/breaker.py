"""A circuit breaker for one model server, shared by every thread of a process.

closed ──(N consecutive failures)──> open ──(cool-down over; one probe wins)──> half_open
  ^                                   ^                                             │
  └──────────── probe succeeded ──────┼───────── probe failed ──────────────────────┘
                                      └──── the first failure after a successful probe

- Closed: requests flow; a failure (unreachable, timeout, 408/429/5xx, broken answer) increases the
  consecutive-failure count, any answer from a healthy server (2xx, or a 4xx rejection) resets it.
- Open: nothing is sent; callers learn how long until the next probe (`retry_after`).
- After the cool-down exactly one caller is told to probe (`half_open`). Success closes the breaker
  but leaves it fragile: the next failure reopens it at once, the next success makes it robust
  again. Failure reopens it for another cool-down (at least the server's Retry-After).

The breaker only keeps state; the client decides what to send and reports outcomes. Listeners
(`add_listener`) hear every change of state (opened, half-open, closed), not every request, so
other processes can learn this one's state (the service writes it to the database for /readyz).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass(frozen=True)
class BreakerStatus:
    state: BreakerState
    consecutive_failures: int
    retry_in: float
    """Seconds until a probe may run (0 unless open)."""
    last_error: str | None
    opened_count: int

    def describe(self) -> str:
        if self.state is BreakerState.CLOSED:
            return "closed"
        if self.state is BreakerState.HALF_OPEN:
            return f"half-open: probing after {self.last_error or 'failures'}"
        return f"open: {self.last_error or 'failures'}; next probe in {self.retry_in:.0f}s"


class CircuitBreaker:
    def __init__(
        self, failure_threshold: int = 5, cooldown_seconds: float = 30.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.failure_threshold = failure_threshold
        self.cooldown_seconds = cooldown_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._opened_until = 0.0
        self._last_error: str | None = None
        self._opened_count = 0
        self._listeners: list[Callable[[BreakerStatus], None]] = []

    def add_listener(self, listener: Callable[[BreakerStatus], None]) -> None:
        """Call `listener` with the new status after each change of state, outside the lock, in the
        thread that caused it: it must be quick and must not raise."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[BreakerStatus], None]) -> None:
        with self._lock:
            self._listeners.remove(listener)

    def before_request(self) -> tuple[bool, float]:
        """(True, 0) when a request may be sent now; (False, seconds until a probe may run) when open.

        Use `try_probe` to claim the probe once the wait is over.
        """
        with self._lock:
            if self._state is BreakerState.CLOSED:
                return True, 0.0
            return False, max(0.0, self._opened_until - self._clock()) if self._state is BreakerState.OPEN else 0.0

    def try_probe(self) -> bool:
        """True for exactly one caller once the cool-down is over: that caller must probe and report."""
        with self._lock:
            if self._state is not BreakerState.OPEN or self._clock() < self._opened_until:
                return False
            self._state = BreakerState.HALF_OPEN
        self._changed()
        return True

    def record_success(self) -> None:
        with self._lock:
            was = self._state
            self._state = BreakerState.CLOSED
            self._failures = 0
            self._last_error = None
        if was is not BreakerState.CLOSED:
            self._changed()

    def probe_succeeded(self) -> None:
        """Closed again, but one more failure reopens it (a listing of models is not an OCR answer)."""
        with self._lock:
            was = self._state
            self._state = BreakerState.CLOSED
            self._failures = self.failure_threshold - 1
        if was is not BreakerState.CLOSED:
            self._changed()

    def record_failure(self, reason: str, retry_after: float | None = None) -> bool:
        """Count a failure; True when this failure opened the breaker."""
        with self._lock:
            self._last_error = reason
            if self._state is BreakerState.OPEN:
                return False
            self._failures += 1
            if self._state is not BreakerState.HALF_OPEN and self._failures < self.failure_threshold:
                return False
            self._state = BreakerState.OPEN
            self._opened_until = self._clock() + max(self.cooldown_seconds, retry_after or 0.0)
            self._opened_count += 1
        self._changed()
        return True

    def status(self) -> BreakerStatus:
        with self._lock:
            retry_in = max(0.0, self._opened_until - self._clock()) if self._state is BreakerState.OPEN else 0.0
            return BreakerStatus(self._state, self._failures, retry_in, self._last_error, self._opened_count)

    def _changed(self) -> None:
        status = self.status()
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(status)

    @property
    def is_open(self) -> bool:
        """Open or probing: callers without the probe are turned away."""
        with self._lock:
            return self._state is not BreakerState.CLOSED
