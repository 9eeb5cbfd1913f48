"""Reads that clients repeat while workers are busy (bench/load.py), on both backends.

A status read (GET /api/v1/tasks/{id}) is one statement with a bounded history: it costs the same
for a task with a long history (deferrals, operator retries) as for a new one.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from support.server import free_port
from support.service import Service, running_service
from support.waiting import wait_for

from ocrqueue.api import create_app
from ocrqueue.api.routes.tasks import EVENT_LIMIT
from ocrqueue.queue import Store, TaskSpec
from ocrqueue.queue.models import EventType

# The one method each driver sends a read statement through.
_EXECUTOR = {"sqlite": "_read", "postgresql": "_fetch"}


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path) as running:
        yield running


def with_history(store: Store, cycles: int) -> str:
    """A task with 1 + 2 * `cycles` events: submitted, then claimed and released `cycles` times."""
    task_id = store.submit(TaskSpec("noop")).task.id
    for _ in range(cycles):
        (claimed,) = store.claim("w1", 1, 30.0)
        assert store.release("w1", [claimed.lease]) == [task_id]
    return task_id


def count_calls(monkeypatch: pytest.MonkeyPatch, target: object, *names: str) -> list[str]:
    """The names of `target`'s methods `names` as they are called (each still calls through)."""
    calls: list[str] = []
    for name in names:
        original: Callable[..., Any] = getattr(target, name)

        def spy(*args: Any, _name: str = name, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(target, name, spy)
    return calls


def test_get_with_events_is_one_statement_with_the_newest_events(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    task_id = with_history(store, cycles=10)
    history = store.events(task_id)
    assert len(history) == 21
    statements = count_calls(monkeypatch, store, _EXECUTOR[store.backend])
    found = store.get_with_events(task_id, 5)
    assert found is not None
    task, events = found
    assert len(statements) == 1
    assert task == store.get(task_id)
    assert events == history[-5:]
    assert events[-1].type is EventType.RELEASED
    assert store.get_with_events(task_id, 100) == (task, history)
    assert store.get_with_events("01a2272f-0000-7000-8000-000000000000", 5) is None


def test_status_read_returns_a_bounded_history_in_one_store_call(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = service.store
    task_id = with_history(store, cycles=EVENT_LIMIT // 2 + 5)
    history = store.events(task_id)
    assert len(history) > EVENT_LIMIT
    calls = count_calls(monkeypatch, store, "get_with_events", "events", "get")
    with service.client() as client:
        body = client.get(f"/api/v1/tasks/{task_id}").json()
    assert calls == ["get_with_events"]
    assert body["events_truncated"] is True
    assert len(body["events"]) == EVENT_LIMIT
    assert [e["type"] for e in body["events"]] == [str(e.type) for e in history[-EVENT_LIMIT:]]


def test_a_short_history_is_complete_and_not_truncated(service: Service) -> None:
    task_id = with_history(service.store, cycles=1)
    with service.client() as client:
        body = client.get(f"/api/v1/tasks/{task_id}").json()
        listed = client.get("/api/v1/tasks").json()["tasks"][0]
    assert [e["type"] for e in body["events"]] == ["submitted", "claimed", "released"]
    assert body["events_truncated"] is False
    assert listed["events"] is None and listed["events_truncated"] is None


class _Cycle:
    other: object = None


def test_serving_freezes_what_exists_at_startup_and_still_collects_later_garbage(service: Service) -> None:
    """A full garbage collection under load stopped the API for 100-200 ms, walking the ~200,000
    objects that live as long as the process: the app's startup (the lifespan, which uvicorn runs
    under `ocrqueue serve`) hands them to gc.freeze so that collections leave them alone."""
    gc.unfreeze()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(service.context), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, timeout=20, what="uvicorn to start")
        assert gc.get_freeze_count() > 0
        task_id = service.store.submit(TaskSpec("noop")).task.id
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/tasks/{task_id}").json()["status"] == "pending"
        cycle = _Cycle()
        cycle.other = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        gc.unfreeze()
