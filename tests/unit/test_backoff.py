from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.queue.backoff import backoff_ceiling, backoff_delay


@given(attempts=st.integers(0, 200), base=st.floats(0.01, 100), cap=st.floats(0.01, 10_000))
def test_ceiling_is_min_of_cap_and_exponential(attempts: int, base: float, cap: float) -> None:
    ceiling = backoff_ceiling(attempts, base, cap)
    assert ceiling <= cap
    if attempts <= 64:
        assert ceiling == min(cap, base * 2.0**attempts)


@given(attempts=st.integers(0, 100), seed=st.integers())
def test_delay_is_full_jitter_within_the_ceiling(attempts: int, seed: int) -> None:
    delay = backoff_delay(attempts, 2.0, 3600.0, rng=random.Random(seed))
    assert 0.0 <= delay <= backoff_ceiling(attempts, 2.0, 3600.0)


@given(floor=st.floats(0, 10_000), seed=st.integers())
def test_retry_after_is_a_lower_bound_but_never_past_the_cap(floor: float, seed: int) -> None:
    delay = backoff_delay(1, 2.0, 60.0, floor=floor, rng=random.Random(seed))
    assert min(floor, 60.0) <= delay <= max(4.0, min(floor, 60.0))


def test_jitter_spreads_retries() -> None:
    rng = random.Random(7)
    delays = [backoff_delay(3, 2.0, 3600.0, rng=rng) for _ in range(1000)]
    assert min(delays) < 2.0 and max(delays) > 14.0
    assert 6.0 < sum(delays) / len(delays) < 10.0
