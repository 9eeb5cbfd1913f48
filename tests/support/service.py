"""A real service for API and browser tests: uvicorn on a free port, with in-process workers on demand."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client import CollectorRegistry

from ocrqueue.api import ApiContext, create_app
from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.queue import QueueConfig, Store, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service import Tasks
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.kinds import build_registry
from ocrqueue.service.runtime import webhook_config
from ocrqueue.service.webhooks import WebhookConfig, WebhookOutbox
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage
from support.server import serving
from support.waiting import wait_for

FAST = QueueConfig(lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.2, concurrency=2)


@dataclass
class Service:
    url: str
    store: Store
    storage: LocalStorage
    keys: ApiKeys
    settings: Settings
    context: ApiContext
    workers: list[Worker] = field(default_factory=list)
    outboxes: list[WebhookOutbox] = field(default_factory=list)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def webhook_config(self) -> WebhookConfig:
        return webhook_config(self.settings)

    def start_worker(self) -> Worker:
        """A worker for every kind, and the webhook outbox that runs beside workers (as in `serve`)."""
        registry = build_registry(
            self.storage, self.settings.document_limits(), self.settings.vlm_config(), self.webhook_config()
        )
        worker = Worker(self.store, registry, FAST, metrics=QueueMetrics(CollectorRegistry()))
        worker.start()
        self.workers.append(worker)
        outbox = self.webhook_config().outbox(self.store)
        outbox.start()
        self.outboxes.append(outbox)
        return worker

    def stop_workers(self) -> None:
        while self.outboxes:
            self.outboxes.pop().stop()
        while self.workers:
            worker = self.workers.pop()
            worker.stop(release_now=True)
            worker.wait_stopped(10)

    def wait_status(self, task_id: str, status: str, token: str | None = None) -> dict:  # type: ignore[type-arg]
        with self.client(token) as client:
            return wait_for(  # type: ignore[no-any-return]
                lambda: (body := client.get(f"/api/v1/tasks/{task_id}").json())["status"] == status and body,
                timeout=60,
                what=f"{task_id} to be {status}",
            )


@contextlib.contextmanager
def running_service(db_url: str, store: Store, data_dir: Path, **settings: Any) -> Iterator[Service]:
    """The API on `db_url` (migrated), with `settings` overriding the test defaults."""
    chosen: dict[str, Any] = {
        "max_upload_bytes": 2_000_000,
        "submit_rate_per_minute": 1000,
        "webhook_sweep_seconds": 0.2,
    } | settings
    config = Settings(database_url=db_url, data_dir=data_dir, _env_file=None, **chosen)  # type: ignore[call-arg]
    storage = LocalStorage(config.resolved_storage_dir)
    keys = ApiKeys(db_url)
    context = ApiContext(config, Tasks(store, storage, config), keys, RateLimiter(config.submit_rate_per_minute))
    service = Service("", store, storage, keys, config, context)
    app = create_app(context)
    try:
        with serving(app) as url:
            service.url = url
            yield service
            service.stop_workers()
    finally:
        service.stop_workers()
        app.state.live.close()  # what the lifespan does under `ocrqueue serve`
        keys.close()
