"""Tenants, keys, file access and CORS against a real service, on both backends.

Routes are enumerated from the application itself, so an endpoint added later is covered (or makes
these tests fail until someone decides how it is protected).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import sqlalchemy as sa
from data.generate import born_digital_pdf
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route
from support.service import Service, running_service

from ocrqueue.api import create_app
from ocrqueue.queue import Store
from ocrqueue.queue.urls import parse_database_url

PDF = born_digital_pdf(2)
CANARY = "CANARY-7f3a-never-serve-me"
# Reachable without a key even when keys exist, and why.
PUBLIC_ROUTES = {
    "/healthz": "liveness probe: answers 'ok', reads nothing",
    "/readyz": "readiness probe: database, migrations and model-server breaker status only",
    "/metrics": "Prometheus scrape: aggregate counters by kind and status, no ids, names or tenants",
    "/openapi.json": "the API description",
    "/docs": "Swagger UI page (static HTML)",
    "/docs/oauth2-redirect": "Swagger UI helper page",
    "/redoc": "ReDoc page (static HTML)",
}
PUBLIC_MOUNTS = {"/": "the web page's static files (index.html, app.js, style.css): no data, calls the API"}
TRAVERSALS = [
    "../../../../etc/passwd",
    "..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "..%252f..%252f..%252fetc%252fpasswd",
    "/etc/passwd",
    "%2Fetc%2Fpasswd",
    "..\\..\\..\\etc\\passwd",
    "..%5C..%5C..%5Cetc%5Cpasswd",
    "imgs/..%2F..%2F..%2F..%2Fsecret.txt",
    "imgs/../../../../secret.txt",
    "imgs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt",
    "imgs/....//....//secret.txt",
    "imgs/x.png%00.txt",
    "%00",
    "imgs/%00../../secret.txt",
    "....//....//etc/passwd",
    "%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
]


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    (tmp_path / "secret.txt").write_text(CANARY)
    with running_service(db_url, store, tmp_path) as running:
        yield running


@dataclass(frozen=True)
class RouteInfo:
    path: str
    methods: frozenset[str]


def app_routes(service: Service) -> tuple[list[RouteInfo], list[Mount]]:
    """Every HTTP route of the application with its full path, and its mounts.

    FastAPI 0.16x keeps included routers as lazy `_IncludedRouter` entries in `app.routes`; older
    versions list the `APIRoute`s themselves. Both are flattened here."""
    app = create_app(service.context)
    routes: list[RouteInfo] = []
    mounts: list[Mount] = []
    for route in app.routes:
        if isinstance(route, Mount):
            mounts.append(route)
        elif isinstance(route, Route | APIRoute):
            routes.append(RouteInfo(route.path, frozenset(route.methods or ())))
        elif hasattr(route, "effective_route_contexts"):
            for context in route.effective_route_contexts():
                original = context.original_route
                routes.append(RouteInfo(context.path or original.path, frozenset(original.methods or ())))
        else:
            raise AssertionError(f"unknown route type {type(route)}: extend app_routes")
    assert len(routes) >= 12, routes
    return routes, mounts


def operations(service: Service) -> set[tuple[str, str]]:
    routes, _ = app_routes(service)
    return {(method, route.path) for route in routes for method in route.methods - {"HEAD"}}


def fill(template: str, **values: str) -> str:
    path = template
    for name, value in {"task_id": str(uuid.uuid4()), "name": "imgs/x.png", "number": "1", **values}.items():
        path = re.sub(r"\{" + name + r"(:[a-z]+)?\}", lambda _, v=value: v, path)
    assert "{" not in path, path
    return path


def upload(client: httpx.Client, data: bytes = PDF, **fields: str) -> httpx.Response:
    return client.post("/api/v1/tasks", files={"file": ("doc.pdf", data)}, data={"mode": "text", **fields})


def raw_get(url: str, path: str, token: str | None = None, method: str = "GET") -> tuple[int, str]:
    """`method` (GET) exactly `path` (no client-side normalisation of dot segments or escapes)."""
    parts = urlsplit(url)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    request = f"{method} {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}Connection: close\r\n\r\n"
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request.encode("latin-1"))
        response = b""
        while data := sock.recv(65536):
            response += data
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("latin-1")


def test_tenants_cannot_reach_each_others_tasks_by_any_route(service: Service) -> None:
    _, token_a = service.keys.create("tenant-a")
    _, token_b = service.keys.create("tenant-b")
    with service.client(token_a) as a, service.client(token_b) as b:
        worker = service.start_worker()
        done_id = upload(a).json()["id"]
        dead_id = upload(a, b"%PDF-1.7\n" + b"\x00garbage" * 100, max_attempts="1").json()["id"]
        service.wait_status(done_id, "completed", token_a)
        service.wait_status(dead_id, "dead_letter", token_a)
        service.stop_workers()
        worker.wait_stopped(10)
        pending_id = upload(a, born_digital_pdf(1)).json()["id"]
        own_b = upload(b, born_digital_pdf(4)).json()["id"]
        a_ids = [done_id, dead_id, pending_id]

        routes, _ = app_routes(service)
        with_task_id = {(m, r.path) for r in routes if "{task_id}" in r.path for m in r.methods - {"HEAD"}}
        exercised: set[tuple[str, str]] = set()
        for method, template in sorted(with_task_id):
            for task_id in [*a_ids, str(uuid.uuid4()), "01a2" + done_id[4:]]:
                path = fill(template, task_id=task_id)
                response = b.request(method, path, data={"question": "what?"} if method == "POST" else None)
                assert response.status_code == 404, (method, path, response.text)
                assert response.json()["error"]["code"] == "task_not_found", (method, path)
                assert task_id not in response.text or "no task" in response.text
            exercised.add((method, template))
        assert exercised == with_task_id and len(exercised) >= 8, exercised

        # Lists and the list event stream show only the caller's tasks, whatever the filters.
        for query in ("", "?status=completed", "?status=dead_letter&status=pending", "?kind=ocr&limit=200"):
            listed = [t["id"] for t in b.get(f"/api/v1/tasks{query}").json()["tasks"]]
            assert not set(listed) & set(a_ids), query
        assert [t["id"] for t in b.get("/api/v1/tasks").json()["tasks"]] == [own_b]
        streamed = ""
        with b.stream("GET", "/api/v1/tasks/events", timeout=10) as events:
            for line in events.iter_lines():
                streamed += line + "\n"
                if own_b in line:
                    break
        assert own_b in streamed and not any(task_id in streamed for task_id in a_ids)

        # Nothing B tried changed anything: A's tasks are all there, as they were.
        statuses = {t["id"]: t["status"] for t in a.get("/api/v1/tasks").json()["tasks"]}
        assert statuses == {done_id: "completed", dead_id: "dead_letter", pending_id: "pending"}
        assert a.get(f"/api/v1/tasks/{done_id}/result").status_code == 200
        assert a.get(f"/api/v1/tasks/{done_id}/pages/1").status_code == 200


def test_every_route_but_the_public_ones_needs_a_key(service: Service) -> None:
    _, token = service.keys.create("tenant-a")
    _, revoked_token = service.keys.create("tenant-a", "old")
    revoked_id = next(k.id for k in service.keys.list() if k.name == "old")
    assert service.keys.revoke(revoked_id)
    routes, mounts = app_routes(service)
    assert {m.path or "/" for m in mounts} == set(PUBLIC_MOUNTS)
    checked = set()
    with service.client() as anonymous:
        for route in routes:
            for method in sorted(route.methods - {"HEAD"}):
                path = fill(route.path)
                if route.path in PUBLIC_ROUTES:
                    assert anonymous.request(method, path).status_code == 200, path
                    continue
                for headers in (
                    {},
                    {"Authorization": "Bearer oq_forged"},
                    {"Authorization": f"Bearer {revoked_token}"},
                    {"Authorization": f"Basic {token}"},
                    {"Authorization": "Bearer  x"},
                    {"Authorization": token},
                ):
                    response = anonymous.request(method, path, headers=headers)
                    assert response.status_code == 401, (method, path, headers, response.text)
                    assert response.json()["error"]["code"] == "unauthorized"
                    assert response.headers["www-authenticate"] == "Bearer"
                checked.add((method, route.path))
        assert checked == {op for op in operations(service) if op[1] not in PUBLIC_ROUTES}
        assert anonymous.get("/").status_code == 200  # the web page itself
        metrics = anonymous.get("/metrics").text
        assert "tenant-a" not in metrics and token not in metrics
    with service.client(token) as client:
        assert client.get("/api/v1/tasks").status_code == 200


def test_keys_are_stored_only_as_sha256_hashes(service: Service) -> None:
    tokens = [service.keys.create(f"tenant-{n}", f"key {n}")[1] for n in range(3)]
    engine = sa.create_engine(parse_database_url(service.settings.resolved_database_url).sqlalchemy)
    try:
        with engine.connect() as conn:
            rows = [dict(row._mapping) for row in conn.execute(sa.text("SELECT * FROM ocrq_api_keys"))]
    finally:
        engine.dispose()
    assert len(rows) == 3
    stored = json.dumps(rows, default=str)
    for token in tokens:
        assert token not in stored and token.removeprefix("oq_") not in stored
    assert all(re.fullmatch(r"[0-9a-f]{64}", row["key_hash"]) for row in rows)
    assert {row["key_hash"] for row in rows} == {hashlib.sha256(t.encode()).hexdigest() for t in tokens}


def test_no_endpoint_serves_a_path_the_client_gives(service: Service) -> None:
    _, token = service.keys.create("tenant-a")
    with service.client(token) as client:
        task_id = upload(client).json()["id"]
    routes, _ = app_routes(service)
    paths = []
    for route in routes:
        for param in re.findall(r"\{(\w+)(?::\w+)?\}", route.path):
            for bad in TRAVERSALS:
                for method in sorted(route.methods - {"HEAD"}):
                    paths.append((method, fill(route.path, **{"task_id": task_id, param: bad})))
    paths += [("GET", f"/{bad}") for bad in TRAVERSALS]  # the static web page
    paths += [("GET", f"/static/{bad}") for bad in TRAVERSALS]
    assert len(paths) > 200
    for method, path in paths:
        status, body = raw_get(service.url, path, token, method)
        assert status in (400, 404, 405, 422), (path, status, body[:200])
        assert CANARY not in body and "root:x:0" not in body, path
    # Query parameters naming files are ignored or refused; what comes back is never a file's content.
    queries = []
    for query in ("path", "file", "name", "key", "input", "format", "cursor", "status", "kind", "dir"):
        for bad in ("/etc/passwd", "../../secret.txt", "..%2F..%2Fsecret.txt", "file:///etc/passwd"):
            queries.append(f"/api/v1/tasks/file?{query}={bad}")
            queries.append(f"/api/v1/tasks?{query}={bad}")
            queries.append(f"/api/v1/tasks/{task_id}?{query}={bad}")
            queries.append(f"/api/v1/tasks/{task_id}/result?{query}={bad}")
            queries.append(f"/api/v1/tasks/{task_id}/assets/imgs/x.png?{query}={bad}")
            queries.append(f"/?{query}={bad}")
    for path in queries:
        status, body = raw_get(service.url, path, token)
        assert status < 500, (path, status, body[:200])
        assert CANARY not in body and "root:x:0" not in body, path
        if path.startswith("/api/v1/tasks/file"):
            assert status == 404, path


def test_cors_is_closed_by_default_and_open_only_to_configured_origins(
    db_url: str, store: Store, tmp_path: Path, service: Service
) -> None:
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    with service.client() as client:
        for method, path in (("GET", "/api/v1/tasks"), ("OPTIONS", "/api/v1/tasks"), ("GET", "/healthz")):
            response = client.request(method, path, headers=preflight)
            assert "access-control-allow-origin" not in response.headers, (method, path)
    service.stop_workers()
    with (
        running_service(db_url, store, tmp_path / "cors", cors_origins=["https://good.example"]) as open_one,
        open_one.client() as client,
    ):
        good = client.options("/api/v1/tasks", headers={**preflight, "Origin": "https://good.example"})
        assert good.headers["access-control-allow-origin"] == "https://good.example"
        simple = client.get("/api/v1/tasks", headers={"Origin": "https://good.example"})
        assert simple.headers["access-control-allow-origin"] == "https://good.example"
        for origin in ("https://evil.example", "https://good.example.evil.example", "null", "http://good.example"):
            response = client.options("/api/v1/tasks", headers={**preflight, "Origin": origin})
            assert response.headers.get("access-control-allow-origin") in (None, ""), origin
            response = client.get("/api/v1/tasks", headers={"Origin": origin})
            assert "access-control-allow-origin" not in response.headers, origin
            assert response.headers.get("access-control-allow-credentials") != "true"


def test_revoked_keys_stop_working_at_once(service: Service) -> None:
    key, token = service.keys.create("tenant-a")
    service.keys.create("tenant-b")
    with service.client(token) as client:
        task_id = upload(client).json()["id"]
        assert client.get(f"/api/v1/tasks/{task_id}").status_code == 200
        assert service.keys.revoke(key.id)
        for method, path in (
            ("GET", "/api/v1/tasks"),
            ("GET", f"/api/v1/tasks/{task_id}"),
            ("DELETE", f"/api/v1/tasks/{task_id}"),
        ):
            response = client.request(method, path)
            assert (response.status_code, response.json()["error"]["code"]) == (401, "unauthorized"), path
        assert upload(client).status_code == 401


def test_revoking_the_last_key_does_not_open_the_api(service: Service) -> None:
    key, token = service.keys.create("tenant-a")
    with service.client(token) as client:
        task_id = upload(client).json()["id"]
    assert service.keys.revoke(key.id)
    with service.client() as anonymous:
        assert anonymous.get(f"/api/v1/tasks/{task_id}").status_code == 401
