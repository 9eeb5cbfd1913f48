"""What /readyz makes of the breaker reports of worker processes: freshness and the worst state
(service/breaker_reports.py), and the breaker's listeners that the reports come from."""

from __future__ import annotations

from ocrqueue.documents.vlm.breaker import BreakerState, BreakerStatus, CircuitBreaker
from ocrqueue.documents.vlm.client import VlmConfig
from ocrqueue.service.breaker_reports import BreakerReport, describe_model_server, freshness_margin

CLOSED = BreakerStatus(BreakerState.CLOSED, 0, 0.0, None, 0)
MARGIN = 5.0


def opened(reporter: str, at: float, retry_in: float = 10.0, reason: str = "unreachable") -> BreakerReport:
    return BreakerReport(reporter, BreakerState.OPEN, reason, retry_in, at)


def half_open(reporter: str, at: float) -> BreakerReport:
    return BreakerReport(reporter, BreakerState.HALF_OPEN, "unreachable", 0.0, at)


def test_a_fresh_open_report_of_a_worker_is_shown_with_the_time_left_and_who_reported_it() -> None:
    check = describe_model_server(CLOSED, [opened("worker a:1", at=100.0)], now=103.0, margin=MARGIN)
    assert check == "open: unreachable; next probe in 7s (worker a:1)"


def test_an_open_report_counts_until_its_probe_is_due_plus_the_margin_then_it_is_stale() -> None:
    report = opened("worker a:1", at=100.0, retry_in=10.0)
    assert report.fresh(115.0, MARGIN)
    assert describe_model_server(CLOSED, [report], now=115.0, margin=MARGIN).startswith("open: unreachable")
    assert "next probe in 0s" in describe_model_server(CLOSED, [report], now=115.0, margin=MARGIN)
    assert not report.fresh(115.1, MARGIN)  # its process is gone, or waits with no task to probe
    assert describe_model_server(CLOSED, [report], now=115.1, margin=MARGIN) == "closed"


def test_a_half_open_report_counts_for_the_margin() -> None:
    report = half_open("worker a:1", at=100.0)
    assert describe_model_server(CLOSED, [report], 105.0, MARGIN) == "half-open: probing after unreachable (worker a:1)"
    assert describe_model_server(CLOSED, [report], 105.1, MARGIN) == "closed"


def test_the_worst_fresh_state_wins_then_the_newest_report() -> None:
    reports = [half_open("worker h", 109.0), opened("worker old", 100.0, reason="old"), opened("worker new", 101.0)]
    check = describe_model_server(CLOSED, reports, now=109.0, margin=MARGIN)
    assert check == "open: unreachable; next probe in 2s (worker new and 2 more)"
    stale_open = [half_open("worker h", 109.0), opened("worker gone", 50.0)]
    assert describe_model_server(CLOSED, stale_open, now=109.0, margin=MARGIN).startswith("half-open: ")
    assert describe_model_server(CLOSED, stale_open, now=109.0, margin=MARGIN).endswith("(worker h)")


def test_this_processs_own_breaker_counts_and_wins_a_tie() -> None:
    own_open = BreakerStatus(BreakerState.OPEN, 5, 3.0, "HTTP 503", 1)
    assert describe_model_server(own_open, [], 0.0, MARGIN) == "open: HTTP 503; next probe in 3s"
    assert describe_model_server(own_open, [opened("worker a", 0.0)], 0.0, MARGIN) == own_open.describe()
    own_half = BreakerStatus(BreakerState.HALF_OPEN, 5, 0.0, "HTTP 503", 1)
    assert describe_model_server(own_half, [opened("worker a", 0.0)], 0.0, MARGIN).endswith("(worker a)")
    assert describe_model_server(CLOSED, [], 0.0, MARGIN) == "closed"


def test_the_margin_is_the_cooldown_plus_the_longest_probe() -> None:
    assert freshness_margin(VlmConfig("http://gpu/v1", breaker_cooldown_seconds=30)) == 40.0
    assert freshness_margin(VlmConfig("http://gpu/v1", breaker_cooldown_seconds=2, timeout_seconds=4)) == 6.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_listeners_hear_every_change_of_state_and_nothing_else() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=2, cooldown_seconds=10, clock=clock)
    heard: list[tuple[BreakerState, float]] = []
    breaker.add_listener(lambda status: heard.append((status.state, status.retry_in)))
    breaker.record_success()
    breaker.record_failure("503")
    assert heard == []
    breaker.record_failure("503")
    breaker.record_failure("503")  # already open: no change
    clock.now = 10
    assert breaker.try_probe() and not breaker.try_probe()
    breaker.record_failure("probe failed")
    clock.now = 20
    breaker.try_probe()
    breaker.probe_succeeded()
    breaker.record_success()  # already closed: no change
    assert [state for state, _ in heard] == ["open", "half_open", "open", "half_open", "closed"]
    assert heard[0][1] == 10 and heard[2][1] == 10
