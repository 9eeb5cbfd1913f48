"""Per-key submit rate limit: a token bucket per caller, refilled continuously."""

from __future__ import annotations

import threading
import time


class RateLimiter:
    def __init__(self, per_minute: int) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, caller: str) -> float | None:
        """None when allowed; otherwise the seconds until the next token."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(caller, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[caller] = (tokens - 1.0, now)
                return None
            self._buckets[caller] = (tokens, now)
            return (1.0 - tokens) / self.rate
