"""Webhooks end to end: a real receiver on loopback, real workers, both databases."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from data.generate import PdfBuilder, born_digital_pdf, encode, text_page
from support.service import Service, running_service
from support.vlm_standin import running_standin
from support.waiting import wait_for

from ocrqueue.queue import Store
from ocrqueue.service.webhook_sender import WebhookFailed, WebhookRefused, post, resolve
from ocrqueue.service.webhook_signing import signature, verify
from ocrqueue.service.webhooks import WebhookStore


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    """An HTTP server that answers each POST with the next status of `script` (then 200)."""

    script: list[int]
    requests: list[Received] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered_ok(self) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if 200 <= r.answered < 300]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver(script=[])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            with state.lock:
                status = state.script.pop(0) if state.script else 200
                state.requests.append(Received({k.lower(): v for k, v in self.headers.items()}, body, status))
            self.send_response(status)
            if status in (301, 302, 307):
                self.send_header("Location", state.url + "elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path, webhook_allow_private_networks=True) as running:
        yield running


def submit(service: Service, callback: str, **fields: str) -> dict:  # type: ignore[type-arg]
    with service.client() as client:
        response = client.post(
            "/api/v1/tasks",
            files={"file": ("report.pdf", born_digital_pdf(pages=1), "application/pdf")},
            data={"mode": "text", "callback_url": callback, **fields},
        )
    assert response.status_code == 202, response.text
    return response.json()  # type: ignore[no-any-return]


def test_a_failing_receiver_gets_the_same_signed_message_again_until_it_answers_2xx(
    service: Service, receiver: Receiver, db_url: str
) -> None:
    receiver.script = [500]
    task = submit(service, receiver.url)
    service.start_worker()
    delivered = wait_for(receiver.answered_ok, timeout=60, what="a 2xx-acknowledged webhook")
    assert [r.answered for r in receiver.requests] == [500, 200]
    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.body == second.body
    hooks = WebhookStore(db_url)
    try:
        secret = hooks.local_secret()
        for request in receiver.requests:
            assert verify(secret, request.headers, request.body, now=int(time.time()))
            assert not verify(secret, request.headers, request.body + b" ", now=int(time.time()))
        body = json.loads(delivered[0].body)
        assert body["type"] == "task.completed"
        assert body["data"]["task_id"] == task["id"] and body["data"]["status"] == "completed"
        assert body["data"]["result"]["pdf"] == f"/api/v1/tasks/{task['id']}/result?format=pdf"
        assert body["data"]["error"] is None
        (watch,) = hooks.for_task(task["id"])
        assert watch.last_delivery is not None
    finally:
        hooks.close()
    delivery = service.wait_status(watch.last_delivery, "completed")
    assert delivery["kind"] == "webhook" and delivery["attempts"] == 2
    retried = [e for e in delivery["events"] if e["type"] == "retried"]
    assert len(retried) == 1 and "500" in json.dumps(retried[0]["detail"])
    shown = service.wait_status(task["id"], "completed")
    assert shown["webhooks"] == [
        {"url": receiver.url, "delivery_task_id": watch.last_delivery, "delivery_status": "completed"}
    ]
    outbox = service.webhook_config().outbox(service.store)
    assert outbox.sweep() == 0  # that ending is delivered: nothing is sent again
    assert len(receiver.requests) == 2


def test_a_cancelled_task_is_reported_with_its_status(service: Service, receiver: Receiver) -> None:
    task = submit(service, receiver.url)
    with service.client() as client:
        assert client.post(f"/api/v1/tasks/{task['id']}/cancel").status_code == 200
    service.start_worker()
    (request,) = wait_for(receiver.answered_ok, timeout=60, what="the cancelled task's webhook")
    body = json.loads(request.body)
    assert body["type"] == "task.cancelled" and body["data"]["result"] is None


def test_a_dead_lettered_task_is_reported_with_its_reason_and_a_dead_receiver_dead_letters_the_delivery(
    db_url: str, store: Store, tmp_path: Path, receiver: Receiver
) -> None:
    receiver.script = [503, 503]
    settings = {"webhook_allow_private_networks": True, "webhook_max_attempts": 2}
    with running_service(db_url, store, tmp_path, **settings) as service, service.client() as client:
        locked = PdfBuilder()
        locked.add_page([PdfBuilder.text(72, 72, 12, "secret")])
        response = client.post(
            "/api/v1/tasks",
            files={"file": ("locked.pdf", locked.build(encrypt=True), "application/pdf")},
            data={"callback_url": receiver.url},
        )
        task = response.json()
        service.start_worker()
        service.wait_status(task["id"], "dead_letter")
        shown = wait_for(
            lambda: (
                (body := client.get(f"/api/v1/tasks/{task['id']}").json())["webhooks"][0]["delivery_status"]
                == "dead_letter"
                and body
            ),
            timeout=60,
            what="the delivery to dead-letter after its two attempts",
        )
        delivery = client.get(f"/api/v1/tasks/{shown['webhooks'][0]['delivery_task_id']}").json()
    assert delivery["attempts"] == 2 and "503" in delivery["error"]["message"]
    assert [r.answered for r in receiver.requests] == [503, 503]
    body = json.loads(receiver.requests[0].body)
    assert body["type"] == "task.dead_letter" and body["data"]["result"] is None
    assert body["data"]["error"]["kind"] == "permanent" and "encrypt" in body["data"]["error"]["message"]


def test_a_vision_task_calls_back_too(db_url: str, store: Store, tmp_path: Path, receiver: Receiver) -> None:
    with (
        running_standin() as standin,
        running_service(
            db_url, store, tmp_path, webhook_allow_private_networks=True, vlm_base_url=standin.base_url
        ) as service,
        service.client() as client,
    ):
        response = client.post(
            "/api/v1/vision",
            files={"file": ("receipt.png", encode(text_page(["Total 88.50"], cjk=False), "PNG"), "image/png")},
            data={"question": "What is the total?", "callback_url": receiver.url},
        )
        assert response.status_code == 202, response.text
        service.start_worker()
        (request,) = wait_for(receiver.answered_ok, timeout=60, what="the vision task's webhook")
    body = json.loads(request.body)
    assert body["data"]["kind"] == "vision" and body["data"]["status"] == "completed"
    assert body["data"]["result"] == {"task": f"/api/v1/tasks/{response.json()['id']}"}


def test_a_callback_url_that_can_never_be_called_is_refused_at_submit(service: Service) -> None:
    with service.client() as client:
        for bad in ("ftp://example.com/x", "http://user:pw@example.com/", "not a url", "http://" + "a" * 2100):
            response = client.post(
                "/api/v1/tasks",
                files={"file": ("report.pdf", born_digital_pdf(pages=1), "application/pdf")},
                data={"callback_url": bad},
            )
            assert response.status_code == 422, bad
            assert response.json()["error"]["code"] == "invalid_callback_url"
        in_options = client.post(
            "/api/v1/tasks",
            files={"file": ("report.pdf", born_digital_pdf(pages=1), "application/pdf")},
            data={"options": json.dumps({"mode": "text", "callback_url": "gopher://x"})},
        )
        assert in_options.json()["error"]["code"] == "invalid_callback_url"


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    receiver.script = [302]
    with pytest.raises(WebhookFailed, match="302"):
        post(receiver.url, b"{}", {}, timeout=5, allow_private=True)
    assert len(receiver.requests) == 1


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "10.1.2.3", "192.168.0.10", "172.16.5.4", "169.254.169.254", "::1", "::ffff:127.0.0.1", "0.0.0.0"],
)
def test_private_loopback_and_link_local_addresses_are_refused(host: str) -> None:
    with pytest.raises(WebhookRefused, match="OCRQUEUE_WEBHOOK_ALLOW_PRIVATE_NETWORKS"):
        resolve(host, 80, allow_private=False)
    assert resolve(host, 80, allow_private=True)


def test_a_name_that_resolves_to_loopback_is_refused_and_nothing_is_sent(receiver: Receiver) -> None:
    with pytest.raises(WebhookRefused, match="loopback"):
        post(receiver.url.replace("127.0.0.1", "localhost"), b"{}", {}, timeout=5, allow_private=False)
    assert receiver.requests == []


def test_signature_matches_the_standard_webhooks_reference_vector() -> None:
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    assert signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == expected
