"""Prometheus metrics of the queue; one set per process registry.

Counters and histograms only, so prometheus-client's multiprocess mode can add up the worker
processes' values (a custom collector in a worker process would reach no scrape).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ocrqueue.queue.models import TaskStatus
from ocrqueue.queue.store import Store

_DURATION_BUCKETS = (0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)


class QueueMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.claims = Counter("ocrqueue_claims", "Tasks claimed", ["kind"], registry=registry)
        self.empty_claims = Counter("ocrqueue_empty_claims", "Claim statements that found nothing", registry=registry)
        self.claim_conflicts = Counter(
            "ocrqueue_claim_conflicts",
            "Claim statements retried because the database was busy, locked or unreachable",
            registry=registry,
        )
        self.lease_losses = Counter(
            "ocrqueue_lease_losses", "Tasks a worker lost its lease on (work discarded)", ["kind"], registry=registry
        )
        self.retries = Counter("ocrqueue_retries", "Failed attempts scheduled for retry", ["kind"], registry=registry)
        self.dead_letters = Counter("ocrqueue_dead_letters", "Tasks moved to dead_letter", ["kind"], registry=registry)
        self.reaped = Counter(
            "ocrqueue_reaped", "Expired leases taken back by the reaper", ["outcome"], registry=registry
        )
        self.deferrals = Counter(
            "ocrqueue_deferrals", "Tasks handed back for later without spending an attempt", ["kind"], registry=registry
        )
        self.finished = Counter(
            "ocrqueue_tasks_finished",
            "Attempts a worker finished, by kind and outcome (completed, pending for a retry, dead_letter, …)",
            ["kind", "outcome"],
            registry=registry,
        )
        self.released = Counter("ocrqueue_released", "Tasks handed back on graceful shutdown", registry=registry)
        self.durations = Histogram(
            "ocrqueue_task_duration_seconds",
            "Handler run time by kind and outcome",
            ["kind", "outcome"],
            buckets=_DURATION_BUCKETS,
            registry=registry,
        )


_default: QueueMetrics | None = None
_default_lock = threading.Lock()


def default_metrics() -> QueueMetrics:
    """The process-wide metrics in prometheus_client's default registry, created once."""
    global _default
    with _default_lock:
        if _default is None:
            _default = QueueMetrics()
        return _default


class QueueDepthCollector(Collector):
    """Counts tasks by kind and status at scrape time: one GROUP BY statement, its answer kept for
    `max_age_seconds`, so any number of scrapers costs the database at most one count that often.
    Every status of a kind that has tasks is shown, zeros too, so a series never vanishes."""

    def __init__(self, store: Store, max_age_seconds: float = 5.0) -> None:
        self._store = store
        self._max_age = max_age_seconds
        self._lock = threading.Lock()
        self._cached: tuple[float, dict[tuple[str, TaskStatus], int]] | None = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] > self._max_age:
                self._cached = (time.monotonic(), self._store.counts_by_kind_and_status())
            counts = self._cached[1]
        family = GaugeMetricFamily("ocrqueue_queue_depth", "Tasks by kind and status", labels=["kind", "status"])
        for kind in sorted({kind for kind, _ in counts}):
            for status in TaskStatus:
                family.add_metric([kind, str(status)], counts.get((kind, status), 0))
        yield family
