"""Metrics observed where tasks run, in worker processes.

Each is a plain prometheus-client metric in the default registry. Under a supervising process
(`serve`, `worker --processes N`) prometheus-client's multiprocess mode keeps its values in the
run's directory and the parent's /metrics adds up every child's (service/metrics.py), so a new
counter or histogram defined in any module a worker imports needs nothing more to be scraped.
"""

from __future__ import annotations

from prometheus_client import Counter

PAGES_READ = Counter(
    "ocrqueue_pages",
    "Pages read and saved by OCR tasks, by how they were read (text layer or an OCR engine)",
    ["source"],
)
