"""What every request handler shares: settings, the queue store, storage, API keys and webhooks."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.queue import Store
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.webhooks import WebhookStore
from ocrqueue.settings import Settings
from ocrqueue.storage import Storage


@dataclass
class ApiContext:
    settings: Settings
    store: Store
    storage: Storage
    keys: ApiKeys
    submit_limiter: RateLimiter

    @cached_property
    def webhooks(self) -> WebhookStore:
        """Callbacks and their secrets, on the same database as the tasks."""
        return WebhookStore(self.settings.resolved_database_url)
