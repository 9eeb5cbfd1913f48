"""What every request handler shares: settings, the task service and API keys."""

from __future__ import annotations

from dataclasses import dataclass

from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.service import Tasks
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.metrics import NodeMetrics
from ocrqueue.settings import Settings


@dataclass
class ApiContext:
    settings: Settings
    tasks: Tasks
    keys: ApiKeys
    submit_limiter: RateLimiter
    metrics: NodeMetrics | None = None
    """What /metrics serves; None: this process and the queue (`serve` passes its workers' too)."""
