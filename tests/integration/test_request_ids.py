"""Request ids over real HTTP, on both backends: taken from `X-Request-ID` when well-formed (else a
new one), returned in the response, and recorded on the events of the task a request submits,
cancels or retries."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from data.generate import born_digital_pdf
from support.service import Service, running_service

from ocrqueue.queue import EventType, Lease, Store, TaskSpec, TaskStatus

PDF = born_digital_pdf(pages=1)
GENERATED = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path) as running:
        yield running


def submit(client: httpx.Client, request_id: str | None, **fields: str) -> httpx.Response:
    headers = {} if request_id is None else {"X-Request-ID": request_id.encode()}
    return client.post("/api/v1/tasks", files={"file": ("a.pdf", PDF)}, data=fields, headers=headers)


def event_detail(store: Store, task_id: str, type_: EventType) -> dict[str, object]:
    return dict(next(e.detail for e in store.events(task_id) if e.type is type_))


def test_a_submit_records_the_clients_request_id_on_its_task(service: Service, store: Store) -> None:
    with service.client() as client:
        response = submit(client, "abc-123", mode="text")
        assert response.status_code == 202, response.text
        assert response.headers["X-Request-ID"] == "abc-123"
        task_id = response.json()["id"]
        assert event_detail(store, task_id, EventType.SUBMITTED) == {"request_id": "abc-123"}
        shown = client.get(f"/api/v1/tasks/{task_id}").json()["events"][0]
        assert shown["type"] == "submitted" and shown["detail"] == {"request_id": "abc-123"}


def test_cancel_and_retry_record_their_request_ids(service: Service, store: Store) -> None:
    with service.client() as client:
        pending = submit(client, None, mode="text").json()["id"]
        cancelled = client.post(f"/api/v1/tasks/{pending}/cancel", headers={"X-Request-ID": "cancel.7"})
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        assert event_detail(store, pending, EventType.CANCELLED) == {"request_id": "cancel.7"}

        dead = store.submit(TaskSpec("noop")).task.id
        claimed = store.claim("w1", 1, 30, kinds=["noop"])[0]
        lease = Lease(dead, claimed.lease.token, "w1")
        store.fail(lease, error_kind="x", message="x", retryable=False, delay_seconds=0)
        assert store.get(dead).status is TaskStatus.DEAD_LETTER  # type: ignore[union-attr]
        retried = client.post(f"/api/v1/tasks/{dead}/retry", headers={"X-Request-ID": "retry:1"})
        assert retried.status_code == 200, retried.text
        assert event_detail(store, dead, EventType.REQUEUED) == {"request_id": "retry:1"}


@pytest.mark.parametrize(
    "hostile",
    ["has space", "a" * 129, "<script>", "-leading-dash", "ünïcode", "new\tline", "x;DROP TABLE"],
)
def test_a_hostile_request_id_is_replaced_by_a_new_one(service: Service, store: Store, hostile: str) -> None:
    with service.client() as client:
        response = client.get("/healthz", headers={"X-Request-ID": hostile.encode()})
        assert response.status_code == 200
        assert GENERATED.match(response.headers["X-Request-ID"]), response.headers["X-Request-ID"]
        task = submit(client, hostile, mode="text", force="true")
        recorded = event_detail(store, task.json()["id"], EventType.SUBMITTED)["request_id"]
        assert recorded == task.headers["X-Request-ID"] != hostile


def test_every_response_carries_a_request_id_a_new_one_per_request(service: Service) -> None:
    with service.client() as client:
        ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(3)}
        refused = client.post("/api/v1/tasks/00000000-0000-0000-0000-000000000000/cancel")
    assert len(ids) == 3 and all(GENERATED.match(i) for i in ids)
    assert refused.status_code == 404 and GENERATED.match(refused.headers["X-Request-ID"])
