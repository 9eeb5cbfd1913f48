"""Retry delays: exponential with full jitter (AWS architecture blog, "Exponential Backoff And Jitter")."""

from __future__ import annotations

import random


def backoff_ceiling(attempts: int, base: float, cap: float) -> float:
    """The largest wait after `attempts` failed attempts: min(cap, base * 2**attempts)."""
    if attempts < 0:
        raise ValueError("attempts must be >= 0")
    if attempts > 64:
        return cap
    return min(cap, base * (2.0**attempts))


def backoff_delay(
    attempts: int,
    base: float,
    cap: float,
    *,
    floor: float | None = None,
    rng: random.Random | None = None,
) -> float:
    """A uniformly random wait in [0, ceiling], raised to `floor` (a server's Retry-After)."""
    ceiling = backoff_ceiling(attempts, base, cap)
    delay = (rng or random).uniform(0.0, ceiling)
    if floor is not None:
        delay = max(delay, min(floor, cap))
    return delay
