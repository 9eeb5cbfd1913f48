"""What every request handler shares: settings, the queue store, storage and API keys."""

from __future__ import annotations

from dataclasses import dataclass

from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.queue import Store
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.settings import Settings
from ocrqueue.storage import Storage


@dataclass
class ApiContext:
    settings: Settings
    store: Store
    storage: Storage
    keys: ApiKeys
    submit_limiter: RateLimiter
