"""Where a page's time goes, for Prometheus: `ocrqueue_page_stage_seconds{stage}`, one histogram per
stage of the page pipeline, observed from each page's `timings` by the OCR task handler."""

from __future__ import annotations

import threading

from prometheus_client import REGISTRY, CollectorRegistry, Histogram

from ocrqueue.documents import PageResult

# From a text-layer judge (well under a millisecond) to a vision model reading a dense page (minutes).
_STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class StageMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.seconds = Histogram(
            "ocrqueue_page_stage_seconds",
            "Wall time of one stage of the page pipeline, per page",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=registry,
        )

    def observe(self, page: PageResult) -> None:
        for timing in page.timings:
            self.seconds.labels(timing.stage).observe(timing.ms / 1000)


_default: StageMetrics | None = None
_default_lock = threading.Lock()


def default_stage_metrics() -> StageMetrics:
    """The process-wide stage metrics in prometheus_client's default registry, created once."""
    global _default
    with _default_lock:
        if _default is None:
            _default = StageMetrics()
        return _default
