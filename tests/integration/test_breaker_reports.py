"""Worker processes' breaker reports through the database, on both backends: what a worker's
`BreakerReporter` writes on each change of state is what /readyz of another process shows
(`model_server_check`), with the database's time deciding what is fresh."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from support.waiting import wait_for

from ocrqueue.documents.vlm import BreakerState, BreakerStatus, VlmClient, VlmConfig
from ocrqueue.queue import Store
from ocrqueue.service.breaker_reports import BreakerReports
from ocrqueue.service.engines import BreakerReporter, model_server_check


@pytest.fixture
def config() -> VlmConfig:
    """A model server of its own per test (nothing listens there; no request is sent)."""
    return VlmConfig(f"http://127.0.0.1:9/{uuid.uuid4().hex[:8]}/v1", breaker_failures=1, breaker_cooldown_seconds=30)


@pytest.fixture
def reports(db_url: str) -> Iterator[BreakerReports]:
    opened = BreakerReports(db_url)
    yield opened
    opened.close()


def test_a_workers_breaker_changes_reach_another_process_through_the_database(
    db_url: str, store: Store, config: VlmConfig, reports: BreakerReports
) -> None:
    worker_client = VlmClient(config)  # the worker process's client, not this ("API") process's
    reporter = BreakerReporter(worker_client, BreakerReports(db_url), store.now, "worker host:1")

    def check() -> str:
        return model_server_check(config, reports, store.now)

    reporter.start()
    try:
        assert check() == "closed"
        worker_client.breaker.record_failure("model server is unreachable (ConnectError: refused)")
        opened = wait_for(lambda: (found := check()).startswith("open") and found, what="the open report")
        assert re.fullmatch(
            r"open: model server is unreachable \(ConnectError: refused\); next probe in (29|30)s \(worker host:1\)",
            opened,
        ), opened
        [row] = reports.read(config.endpoint)
        assert row.state is BreakerState.OPEN and abs(row.reported_at - store.now()) < 5

        worker_client.breaker.record_success()  # closed: its row goes
        wait_for(lambda: reports.read(config.endpoint) == [], what="the closed report")
        assert check() == "closed"
        worker_client.breaker.record_failure("HTTP 503")
        wait_for(lambda: check().startswith("open: HTTP 503"), what="the second open report")
    finally:
        reporter.stop()
        worker_client.close()
    assert reports.read(config.endpoint) == [], "a process that stops gracefully leaves no report"
    assert check() == "closed"


def test_reports_are_kept_per_process_and_stale_ones_do_not_count(
    store: Store, config: VlmConfig, reports: BreakerReports
) -> None:
    now = store.now()
    status = BreakerStatus(BreakerState.OPEN, 1, 30.0, "unreachable", 1)
    reports.put(config.endpoint, "worker gone:1", status, now - 100)  # died open, long ago
    assert check_of(config, reports, store) == "closed"
    reports.put(config.endpoint, "worker live:2", status, now)
    reports.put(config.endpoint, "worker probing:3", BreakerStatus(BreakerState.HALF_OPEN, 1, 0, "x", 1), now)
    assert check_of(config, reports, store).endswith("(worker live:2 and 1 more)")
    assert {r.reporter for r in reports.read(config.endpoint)} == {"worker gone:1", "worker live:2", "worker probing:3"}

    reports.put(config.endpoint, "worker live:2", BreakerStatus(BreakerState.CLOSED, 0, 0, None, 1), now)
    assert check_of(config, reports, store) == "half-open: probing after x (worker probing:3)"
    reports.put(config.endpoint, "worker other:4", status, now + 3601)  # an hour on: the old rows go
    assert [r.reporter for r in reports.read(config.endpoint)] == ["worker other:4"]
    assert reports.read("http://elsewhere/v1") == []


def check_of(config: VlmConfig, reports: BreakerReports, store: Store) -> str:
    return model_server_check(config, reports, store.now)
