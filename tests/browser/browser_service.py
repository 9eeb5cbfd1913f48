"""The service the browser tests drive: a real server with an in-process worker on demand."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
from prometheus_client import CollectorRegistry
from support.waiting import wait_for

from ocrqueue.queue import QueueConfig, Store, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.kinds import build_registry
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage

FAST = QueueConfig(lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.2, concurrency=2)


@dataclass
class Service:
    url: str
    store: Store
    storage: LocalStorage
    keys: ApiKeys
    settings: Settings
    workers: list[Worker] = field(default_factory=list)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def start_worker(self) -> Worker:
        worker = Worker(
            self.store, build_registry(self.storage, self.settings.document_limits()), FAST,
            metrics=QueueMetrics(CollectorRegistry()),
        )  # fmt: skip
        worker.start()
        self.workers.append(worker)
        return worker

    def stop_workers(self) -> None:
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
