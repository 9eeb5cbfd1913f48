"""Metrics observed where tasks run, in worker processes.

Each is a plain prometheus-client metric in the default registry. Under a supervising process
(`serve`, `worker --processes N`) prometheus-client's multiprocess mode keeps its values in the
run's directory and the parent's /metrics adds up every child's (service/metrics.py), so a new
counter or histogram defined in any module a worker imports needs nothing more to be scraped.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from ocrqueue.documents import PageResult

PAGES_READ = Counter(
    "ocrqueue_pages",
    "Pages read and saved by OCR tasks, by how they were read (text layer or an OCR engine)",
    ["source"],
)

# From a text-layer judge (well under a millisecond) to a vision model reading a dense page (minutes).
_STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

STAGE_SECONDS = Histogram(
    "ocrqueue_page_stage_seconds",
    "Wall time of one stage of the page pipeline, per page",
    ["stage"],
    buckets=_STAGE_BUCKETS,
)


def page_read(page: PageResult) -> None:
    """One page read and saved: counted by its source, and each stage's time from its `timings`."""
    PAGES_READ.labels(page.source).inc()
    for timing in page.timings:
        STAGE_SECONDS.labels(timing.stage).observe(timing.ms / 1000)
