"""The HTTP API over real HTTP (uvicorn), on both backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pypdfium2 as pdfium
import pytest
from data.generate import born_digital_pdf
from support.service import Service, running_service

from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.queue import Store
from ocrqueue.service.apikeys import ApiKeys

PDF = born_digital_pdf(pages=2)


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path, max_upload_bytes=200_000) as running:
        yield running


def upload(client: httpx.Client, data: bytes = PDF, name: str = "doc.pdf", **fields: str) -> httpx.Response:
    return client.post("/api/v1/tasks", files={"file": (name, data, "application/pdf")}, data=fields)


def test_submit_dedup_force_and_idempotency_key(service: Service) -> None:
    with service.client() as client:
        first = upload(client, mode="text")
        assert first.status_code == 202, first.text
        again = upload(client, mode="text")
        assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
        forced = upload(client, mode="text", force="true")
        assert forced.status_code == 202 and forced.json()["id"] != first.json()["id"]
        keyed = client.post(
            "/api/v1/tasks", files={"file": ("a.pdf", PDF)}, headers={"Idempotency-Key": "batch-7/file-1"}
        )
        other_bytes_same_key = client.post(
            "/api/v1/tasks",
            files={"file": ("b.pdf", born_digital_pdf(1))},
            headers={"Idempotency-Key": "batch-7/file-1"},
        )
        assert keyed.status_code == 202 and other_bytes_same_key.status_code == 200
        assert other_bytes_same_key.json()["id"] == keyed.json()["id"]


def test_a_document_runs_and_its_results_download(service: Service) -> None:
    worker = service.start_worker()
    try:
        with service.client() as client:
            task = upload(client, mode="text").json()
            done = service.wait_status(task["id"], "completed")
            assert done["progress"] == {"done": 2, "total": 2, "step": "page 2 of 2"}
            assert [e["type"] for e in done["events"]] == ["submitted", "claimed", "completed"]
            markdown = client.get(done["result"]["markdown"])
            assert markdown.status_code == 200 and "Supplier Invoices" in markdown.text
            assert markdown.headers["content-type"].startswith("text/markdown")
            document = client.get(done["result"]["json"]).json()
            assert document["schema_version"] and len(document["pages"]) == 2
            pdf = client.get(done["result"]["pdf"])
            assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
            assert pdf.content.startswith(b"%PDF-") and len(pdfium.PdfDocument(pdf.content)) == 2
            assert client.get(done["result"]["pdf"]).content == pdf.content  # made once, then kept
            page = client.get(f"/api/v1/tasks/{task['id']}/pages/1")
            assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
            assert client.get(f"/api/v1/tasks/{task['id']}/pages/3").status_code == 404
    finally:
        worker.stop(release_now=True)
        worker.wait_stopped(10)


def test_a_page_selection_reads_only_those_pages_and_says_so(service: Service) -> None:
    worker = service.start_worker()
    try:
        with service.client() as client:
            task = upload(client, born_digital_pdf(pages=5), mode="text", pages="4, 1-2").json()
            whole = upload(client, born_digital_pdf(pages=5), mode="text").json()
            assert task["id"] != whole["id"]  # a selection is part of the dedup key
            done = service.wait_status(task["id"], "completed")
            assert done["progress"]["done"] == 3 and done["progress"]["total"] == 3
            assert done["result"]["pages"] == 3 and done["result"]["selected_pages"] == "1-2,4"
            document = client.get(done["result"]["json"]).json()
            assert document["document"]["pages"] == "1-2,4" and document["document"]["page_count"] == 5
            assert [p["index"] for p in document["pages"]] == [0, 1, 3]
            pdf = client.get(done["result"]["pdf"])  # the searchable PDF holds the same pages
            assert pdf.status_code == 200 and len(pdfium.PdfDocument(pdf.content)) == 3
    finally:
        worker.stop(release_now=True)
        worker.wait_stopped(10)


def test_server_sent_events_follow_a_task_to_its_end(service: Service) -> None:
    with service.client() as client:
        task = upload(client, mode="text").json()
        worker = service.start_worker()
        try:
            events: list[tuple[str, dict]] = []  # type: ignore[type-arg]
            with client.stream("GET", f"/api/v1/tasks/{task['id']}/events") as stream:
                assert stream.headers["content-type"].startswith("text/event-stream")
                name = None
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        name = line.removeprefix("event: ")
                    elif line.startswith("data: ") and name:
                        events.append((name, json.loads(line.removeprefix("data: "))))
                        if name == "end":
                            break
        finally:
            worker.stop(release_now=True)
            worker.wait_stopped(10)
    assert events[-1][0] == "end" and events[-1][1]["status"] == "completed"
    assert events[0][1]["status"] in ("pending", "running", "completed")


def test_engine_and_languages_default_to_auto_and_auto_can_be_named(service: Service) -> None:
    with service.client() as client:
        default = upload(client, mode="text")
        named = upload(client, mode="text", engine="auto", languages="auto", force="true")
        explicit = upload(client, mode="text", engine="tesseract", languages="eng,chi_sim", force="true")
        mixed = upload(client, mode="text", languages="auto,eng", force="true")
    assert [r.status_code for r in (default, named, explicit)] == [202, 202, 202]

    def options(response: httpx.Response) -> dict[str, object]:
        task = service.store.get(response.json()["id"])
        assert task is not None and isinstance(task.payload, dict)
        return dict(task.payload["options"])

    for response in (default, named):
        assert (options(response)["engine"], options(response)["languages"]) == ("auto", ["auto"])
    assert options(explicit)["languages"] == ["eng", "chi_sim"]
    assert mixed.status_code == 422 and mixed.json()["error"]["code"] == "invalid_options", mixed.text


@pytest.mark.parametrize(
    ("fields", "field", "code"),
    [
        ({"priority": "high"}, "priority", "invalid_request"),
        ({"priority": "1000"}, "priority", "invalid_request"),
        ({"options": "{not json"}, "options", "invalid_options"),
        ({"options": '["ocr"]'}, "options", "invalid_options"),
        ({"options": '{"colour": true}'}, "options", "invalid_options"),
        ({"engine": "magic"}, "engine", "invalid_options"),
        ({"languages": "english!"}, "options", "invalid_options"),
        ({"mode": "fast"}, "mode", "invalid_request"),
        ({"dpi": "5000"}, "dpi", "invalid_request"),
        ({"pages": "1-"}, "pages", "invalid_pages"),
        ({"pages": "0"}, "pages", "invalid_pages"),
        ({"pages": "2,3"}, "pages", "invalid_pages"),  # PDF has 2 pages
        ({"options": '{"pages": "x"}'}, "pages", "invalid_pages"),
    ],
)
def test_invalid_fields_get_422_naming_the_field(
    service: Service, fields: dict[str, str], field: str, code: str
) -> None:
    with service.client() as client:
        response = upload(client, **fields)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == code and response.json()["error"]["field"] == field


def test_bad_files_are_refused_with_clear_errors(service: Service) -> None:
    with service.client() as client:
        empty = upload(client, b"")
        assert (empty.status_code, empty.json()["error"]["code"]) == (422, "empty_file")
        text = upload(client, b"hello, I am not a document", "notes.pdf")
        assert (text.status_code, text.json()["error"]["code"]) == (415, "unsupported_type")
        big = upload(client, b"%PDF-1.7\n" + b"0" * 300_000)
        assert (big.status_code, big.json()["error"]["code"]) == (413, "too_large")
        missing = client.post("/api/v1/tasks", data={"mode": "ocr"})
        assert (missing.status_code, missing.json()["error"]["field"]) == (422, "file")
        assert client.get("/api/v1/tasks").json()["tasks"] == []
    assert list(service.storage.list("uploads")) == []


def test_cancel_retry_and_delete(service: Service) -> None:
    with service.client() as client:
        task = upload(client).json()
        cancelled = client.post(f"/api/v1/tasks/{task['id']}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        assert client.post(f"/api/v1/tasks/{task['id']}/cancel").status_code == 409
        assert client.post(f"/api/v1/tasks/{task['id']}/retry").json()["error"]["code"] == "not_dead_lettered"
        result = client.get(f"/api/v1/tasks/{task['id']}/result")
        assert (result.status_code, result.json()["error"]["code"]) == (409, "not_completed")
        assert client.delete(f"/api/v1/tasks/{task['id']}").status_code == 204
        assert client.get(f"/api/v1/tasks/{task['id']}").status_code == 404
        assert list(service.storage.list("uploads")) == []


def test_unknown_ids_and_paths_never_reach_the_disk(service: Service) -> None:
    with service.client() as client:
        task = upload(client).json()
        for path in (
            "/api/v1/tasks/00000000-0000-7000-8000-000000000000",
            "/api/v1/tasks/not-an-id",
            f"/api/v1/tasks/{task['id']}/assets/../../../../etc/passwd",
            f"/api/v1/tasks/{task['id']}/assets/imgs/..%2F..%2Fdocument.json",
            f"/api/v1/tasks/{task['id']}/assets/%2Fetc%2Fpasswd",
            "/api/v1/tasks/file?path=/etc/passwd",
        ):
            response = client.get(path)
            assert response.status_code == 404, path
            assert "root:" not in response.text


def test_keys_turn_auth_on_and_tenants_see_only_their_own(service: Service) -> None:
    _, token_a = service.keys.create("tenant-a")
    _, token_b = service.keys.create("tenant-b")
    with service.client() as anonymous, service.client(token_a) as a, service.client(token_b) as b:
        assert anonymous.get("/api/v1/tasks").status_code == 401
        assert anonymous.get("/healthz").status_code == 200
        assert service.client("oq_forged").get("/api/v1/tasks").json()["error"]["code"] == "unauthorized"
        task = upload(a).json()
        tid = task["id"]
        assert [t["id"] for t in a.get("/api/v1/tasks").json()["tasks"]] == [tid]
        assert b.get("/api/v1/tasks").json()["tasks"] == []
        for method, path in (
            ("GET", f"/api/v1/tasks/{tid}"),
            ("GET", f"/api/v1/tasks/{tid}/result"),
            ("GET", f"/api/v1/tasks/{tid}/pages/1"),
            ("GET", f"/api/v1/tasks/{tid}/events"),
            ("POST", f"/api/v1/tasks/{tid}/cancel"),
            ("POST", f"/api/v1/tasks/{tid}/retry"),
            ("DELETE", f"/api/v1/tasks/{tid}"),
        ):
            response = b.request(method, path)
            assert (response.status_code, response.json()["error"]["code"]) == (404, "task_not_found"), path
        same_file_other_tenant = upload(b)
        assert same_file_other_tenant.status_code == 202 and same_file_other_tenant.json()["id"] != tid
        assert a.get(f"/api/v1/tasks/{tid}").json()["status"] == "pending"


def test_revoked_keys_stop_working(service: Service) -> None:
    key, token = service.keys.create("t")
    service.keys.create("other")
    with service.client(token) as client:
        assert client.get("/api/v1/tasks").status_code == 200
        assert service.keys.revoke(key.id)
        assert client.get("/api/v1/tasks").status_code == 401


def test_submits_are_rate_limited_per_key(service: Service) -> None:
    service.context.submit_limiter = RateLimiter(2)
    _, token_a = service.keys.create("a")
    _, token_b = service.keys.create("b")
    with service.client(token_a) as a, service.client(token_b) as b:
        assert upload(a).status_code == 202
        assert upload(a, force="true").status_code == 202
        limited = upload(a, force="true")
        assert (limited.status_code, limited.json()["error"]["code"]) == (429, "rate_limited")
        assert 1 <= int(limited.headers["Retry-After"]) <= 31
        assert upload(b).status_code == 202
        assert a.get("/api/v1/tasks").status_code == 200


def test_health_readiness_and_metrics(service: Service) -> None:
    with service.client() as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["checks"] == {
            "database": "ok",
            "migrations": "current",
            "model_server": "not configured",
        }
        metrics = client.get("/metrics")
        assert metrics.status_code == 200 and "python_info" in metrics.text
        assert client.get("/openapi.json").json()["paths"]["/api/v1/tasks"]["post"]


def test_the_task_list_stream_reports_new_and_changed_tasks(service: Service) -> None:
    with service.client() as client:
        first = upload(client).json()
        seen: list[tuple[str, str]] = []
        with client.stream("GET", "/api/v1/tasks/events") as stream:
            name = None
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    name = line.removeprefix("event: ")
                elif line.startswith("data: ") and name == "task":
                    body = json.loads(line.removeprefix("data: "))
                    seen.append((body["id"], body["status"]))
                    if len(seen) == 1:
                        client.post(f"/api/v1/tasks/{first['id']}/cancel")
                    if (first["id"], "cancelled") in seen:
                        break
    assert seen[0] == (first["id"], "pending") and seen[-1] == (first["id"], "cancelled")


def test_the_first_key_made_elsewhere_closes_the_api_at_once(service: Service, db_url: str) -> None:
    """`ocrqueue keys create` runs in another process: the serving API must not stay open on a
    cached "no keys yet" (it once did, for up to 5 s)."""
    with service.client() as client:
        assert client.get("/api/v1/tasks").status_code == 200  # local mode: open, and now asked once
        elsewhere = ApiKeys(db_url)
        try:
            _, token = elsewhere.create("acme")
        finally:
            elsewhere.close()
        refused = client.get("/api/v1/tasks")
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        assert client.get("/api/v1/tasks", headers={"Authorization": f"Bearer {token}"}).status_code == 200
