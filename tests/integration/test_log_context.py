"""A real worker, on both backends, logging through the JSON formatter: what a handler logs carries
its task's id, kind, tenant and attempt and the worker's id without the handler passing any of
them, and the same line logged outside a task carries neither."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from support.waiting import wait_for, wait_terminal

from ocrqueue.queue import QueueConfig, Registry, Store, TaskContext, TaskSpec, TaskStatus, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.queue.models import JSON
from ocrqueue.service.logs import JsonFormatter, bound_request_id

handler_log = logging.getLogger("tests.handler")


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@pytest.fixture
def collected() -> Iterator[Collected]:
    handler = Collected()
    for name in ("tests.handler", "ocrqueue.queue.worker"):
        logging.getLogger(name).addHandler(handler)
        logging.getLogger(name).setLevel(logging.INFO)
    yield handler
    for name in ("tests.handler", "ocrqueue.queue.worker"):
        logging.getLogger(name).removeHandler(handler)


def say_hello(ctx: TaskContext) -> JSON:
    handler_log.info("hello from the handler")
    return None


def test_a_handlers_lines_carry_its_task_and_worker(store: Store, collected: Collected) -> None:
    registry = Registry()
    registry.register("hello", say_hello)
    config = QueueConfig(poll_seconds=0.1, concurrency=2, heartbeat_seconds=0.3, reaper_seconds=0.3)
    worker = Worker(store, registry, config, worker_id="w-logs", metrics=QueueMetrics(CollectorRegistry()))
    worker.start()
    try:
        ids = [store.submit(TaskSpec("hello", tenant=tenant)).task.id for tenant in ("acme", None)]
        for task_id in ids:
            assert wait_terminal(store, task_id, timeout=30) is TaskStatus.COMPLETED
        wait_for(lambda: sum(line["message"].endswith("completed") for line in collected.lines) == 2, 10)
    finally:
        worker.stop(release_now=True)
        worker.wait_stopped(15)
    hellos = [line for line in collected.lines if line["logger"] == "tests.handler"]
    assert sorted(line["task_id"] for line in hellos) == sorted(ids)
    acme = next(line for line in hellos if line["task_id"] == ids[0])
    assert acme == {**acme, "kind": "hello", "tenant": "acme", "attempt": 1, "worker_id": "w-logs"}
    assert "tenant" not in next(line for line in hellos if line["task_id"] == ids[1])
    for task_id in ids:
        runtime = [line for line in collected.lines if line["logger"] == "ocrqueue.queue.worker"]
        about = [line for line in runtime if line.get("task_id") == task_id]
        assert [line["message"].rsplit(" ", 1)[-1] for line in about] == ["started", "completed"]
        assert {line["worker_id"] for line in about} == {"w-logs"}


def test_outside_a_task_a_line_says_only_what_is_known(collected: Collected) -> None:
    handler_log.info("no task here")
    with bound_request_id("abc-123"):
        handler_log.warning("in a request")
    plain, in_request = collected.lines
    assert set(plain) == {"timestamp", "level", "logger", "message"}
    assert plain["level"] == "info" and plain["message"] == "no task here"
    assert in_request["request_id"] == "abc-123" and in_request["level"] == "warning"
