"""Hostile and broken inputs against a real service with an in-process worker, on both backends.

Every kind in `data.hostile` is uploaded; each one is either refused at upload with a 4xx JSON error,
or ends `dead_letter` with a message saying what was wrong, or (harmless after all) completes as the
format its bytes say. Normal documents submitted alongside and afterwards complete, the server stays
healthy, and the test process (server and worker run in it) grows by less than MEMORY_BOUND.
"""

from __future__ import annotations

import gc
import json
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from data.generate import born_digital_pdf
from data.hostile import HOSTILE_LIMITS, TINY_PAGES, Hostile, hostile_corpus
from support.service import Service, running_service
from support.waiting import wait_for

from ocrqueue.documents import ProcessOptions, open_document, process_page
from ocrqueue.queue import Store

MEMORY_BOUND = 400 << 20
TERMINAL = {"completed", "dead_letter", "cancelled"}
CORPUS = hostile_corpus()


def rss_bytes() -> int:
    """Current resident set size of this process (server and worker included)."""
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path, **HOSTILE_LIMITS) as running:
        running.start_worker()
        yield running


def upload(client: httpx.Client, item: Hostile) -> httpx.Response:
    fields = {"max_attempts": "1", "force": "true", **item.fields}
    return client.post("/api/v1/tasks", files={"file": (item.filename, item.data)}, data=fields)


def submit_normal(client: httpx.Client, pages: int = 1) -> str:
    response = client.post(
        "/api/v1/tasks", files={"file": ("ok.pdf", born_digital_pdf(pages))}, data={"mode": "text", "force": "true"}
    )
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def wait_all_finished(client: httpx.Client, ids: list[str], timeout: float = 90) -> dict[str, dict]:  # type: ignore[type-arg]
    finished: dict[str, dict] = {}  # type: ignore[type-arg]

    def poll() -> bool:
        for task_id in ids:
            if task_id not in finished:
                body = client.get(f"/api/v1/tasks/{task_id}").json()
                if body["status"] in TERMINAL:
                    finished[task_id] = body
        return len(finished) == len(ids)

    wait_for(poll, timeout=timeout, interval=0.2, what="every hostile task to finish")
    return finished


def check_outcome(client: httpx.Client, item: Hostile, task: dict) -> None:  # type: ignore[type-arg]
    expect = item.expect
    if expect.outcome == "dead":
        assert task["status"] == "dead_letter", (item.name, task["status"], task["error"])
        assert task["error"]["kind"] == "permanent", (item.name, task["error"])
        message = task["error"]["message"] or ""
        for word in expect.words:
            assert word in message, (item.name, message)
        return
    assert expect.outcome == "completes"
    assert task["status"] == "completed", (item.name, task["error"])
    document = client.get(task["result"]["json"]).json()
    assert document["document"]["format"] == expect.format, item.name
    markdown = client.get(task["result"]["markdown"]).text
    for raw in ("<script", "<img", "<iframe", "</textarea"):
        assert raw not in markdown.lower(), (item.name, markdown[:300])
    if item.name == "tiny_pages_at_limit":
        assert task["result"]["pages"] == TINY_PAGES
    if item.name == "html_script_text_layer":
        assert "&lt;script>" in markdown


def test_every_hostile_kind_is_refused_dead_lettered_or_harmless(service: Service) -> None:
    assert len({item.name for item in CORPUS}) == len(CORPUS) >= 25
    with service.client() as client:
        # Warm up (models load once) before the memory baseline, and prove the service works.
        first = submit_normal(client)
        wait_all_finished(client, [first])
        baseline = rss_bytes()
        started = time.monotonic()

        accepted: dict[str, Hostile] = {}
        bystanders = []
        for n, item in enumerate(CORPUS):
            response = upload(client, item)
            if item.expect.outcome == "refused":
                assert response.status_code == item.expect.status, (item.name, response.text)
                assert response.json()["error"]["code"] == item.expect.code, item.name
                continue
            assert response.status_code == 202, (item.name, response.text)
            task = response.json()
            assert len(task["filename"]) <= 255
            accepted[task["id"]] = item
            if n % 10 == 0:
                bystanders.append(submit_normal(client, pages=2))

        finished = wait_all_finished(client, [*accepted, *bystanders])
        for task_id, item in accepted.items():
            check_outcome(client, item, finished[task_id])
        for task_id in bystanders:
            assert finished[task_id]["status"] == "completed", finished[task_id]

        growth = rss_bytes() - baseline
        assert growth < MEMORY_BOUND, f"RSS grew by {growth >> 20} MB over the hostile batch"
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").status_code == 200
        after = submit_normal(client, pages=3)
        assert wait_all_finished(client, [after])[after]["status"] == "completed"
        print(f"hostile batch: {time.monotonic() - started:.1f}s, RSS growth {growth >> 20} MB")

    # No name the client gave reaches storage: every stored object lives under a generated key.
    root = service.storage.root
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        assert ".." not in relative and "etc" not in relative.split("/") and "\\" not in relative, relative
        assert "文档" not in relative and "evil" not in relative, relative
    assert not (root.parent / "etc").exists()


def test_hostile_form_fields_get_4xx_json(service: Service) -> None:
    pdf = born_digital_pdf(1)
    cases = [
        ({"options": "{not json"}, 422, "invalid_options"),
        ({"options": "[" * 100_000 + "]" * 100_000}, 422, "invalid_options"),
        ({"options": '{"dpi": 1e400}'}, 422, "invalid_options"),
        ({"options": '{"dpi": NaN}'}, 422, "invalid_options"),
        ({"options": '{"languages": [1, 2]}'}, 422, "invalid_options"),
        ({"options": '{"languages": "eng"}'}, 422, "invalid_options"),
        ({"options": '{"mode": {"$ne": null}}'}, 422, "invalid_options"),
        ({"options": '"ocr"'}, 422, "invalid_options"),
        ({"options": "\x00\x01"}, 422, "invalid_options"),
        ({"languages": "eng," * 1000}, 422, "invalid_request"),
        ({"engine": "../../bin/sh"}, 422, "invalid_options"),
        ({"priority": "9" * 5000}, 422, "invalid_request"),
        ({"max_attempts": "-1"}, 422, "invalid_request"),
        # A non-file field over Starlette's 1 MiB part limit, well under the body limit.
        ({"options": "x" * (2 << 20)}, 400, "bad_request"),
    ]
    with service.client() as client:
        for fields, status, code in cases:
            response = client.post("/api/v1/tasks", files={"file": ("a.pdf", pdf)}, data=fields)
            label = {k: v[:40] for k, v in fields.items()}
            assert response.status_code == status, (label, response.text[:300])
            assert response.json()["error"]["code"] == code, (label, response.text[:300])
        # A field bigger than the whole body limit is refused from its Content-Length.
        huge = client.post("/api/v1/tasks", files={"file": ("a.pdf", pdf)}, data={"options": "x" * (10 << 20)})
        assert (huge.status_code, huge.json()["error"]["code"]) == (413, "too_large")
        # Many fields: the form parser stops at its 1000-field cap (Starlette's max_fields) while
        # reading, so the request is refused as malformed before any field is looked at: exactly
        # 400, nothing stored. (Unknown fields under the cap would be ignored, not refused.)
        many = client.post("/api/v1/tasks", files={"file": ("a.pdf", pdf)}, data={f"f{i}": "1" for i in range(2000)})
        assert (many.status_code, many.json()["error"]["code"]) == (400, "bad_request"), many.text[:200]
        assert "Too many fields" in many.json()["error"]["message"]
        assert client.get("/api/v1/tasks").json()["tasks"] == []
        assert list(service.storage.list("uploads")) == []
        assert client.get("/healthz").status_code == 200


def _slow_chunked_upload(url: str, total: int, chunk: int, pause: float) -> tuple[int, bytes, int]:
    """Send a multipart upload with Transfer-Encoding: chunked over a raw socket, `chunk` bytes at a time.

    Returns (status, body, bytes sent before the server answered or closed)."""
    parts = urlsplit(url)
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.7\n"
    ).encode()
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    sent = 0
    try:
        sock.sendall(
            (
                f"POST /api/v1/tasks HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\nTransfer-Encoding: chunked\r\n\r\n"
            ).encode()
        )

        def send_chunk(data: bytes) -> None:
            sock.sendall(b"%x\r\n" % len(data) + data + b"\r\n")

        send_chunk(head)
        try:
            while sent < total:
                send_chunk(b"0" * chunk)
                sent += chunk
                if pause:
                    time.sleep(pause)
            send_chunk(f"\r\n--{boundary}--\r\n".encode())
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed early: what we want
        response = b""
        sock.settimeout(30)
        try:
            while data := sock.recv(65536):
                response += data
                if b"\r\n\r\n" in response and response.endswith(b"}"):
                    break
        except (ConnectionResetError, TimeoutError):
            pass
    finally:
        sock.close()
    status_line, _, rest = response.partition(b"\r\n")
    body = rest.partition(b"\r\n\r\n")[2]
    return int(status_line.split()[1]), body, sent


def test_slow_chunked_upload_over_the_limit_is_refused(service: Service) -> None:
    limit = HOSTILE_LIMITS["max_upload_bytes"]
    status, body, sent = _slow_chunked_upload(service.url, total=4 * limit, chunk=16 << 10, pause=0.0001)
    assert status == 413, body[:300]
    assert json.loads(body)["error"]["code"] == "too_large", body[:300]
    assert sent < 4 * limit, "the server read the whole body before refusing it"
    with service.client() as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/api/v1/tasks").json()["tasks"] == []
    assert list(service.storage.list("uploads")) == []
    # A slow upload under the limit still works (slowness alone is not refused).
    status, body, _ = _slow_chunked_upload(service.url, total=256 << 10, chunk=4 << 10, pause=0.002)
    assert status == 202, body[:300]


def test_a_blank_page_through_the_ocr_path_is_a_page_not_a_crash() -> None:
    """Regression: Otsu's threshold on a one-level image was all NaN and raised ValueError."""
    from data.hostile import raw_pdf, stream

    pdf = raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
            stream(b""),
        ]
    )
    with open_document(pdf) as document:
        for page in document.pages():
            result = process_page(page, ProcessOptions.from_dict({"mode": "ocr"}))
            assert result.to_dict()["blocks"] == []
