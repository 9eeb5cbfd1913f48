"""The worker runtime in-process, on both backends: the handler's view of leases, retries, cancels."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from support.waiting import wait_for, wait_terminal

from ocrqueue.queue import (
    LeaseLost,
    PermanentError,
    QueueConfig,
    Registry,
    Store,
    TaskContext,
    TaskSpec,
    TaskStatus,
    Worker,
    open_store,
)
from ocrqueue.queue.harness_kinds import parts, register_test_kinds
from ocrqueue.queue.kinds import register_builtin_kinds
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.queue.models import JSON, EventType
from ocrqueue.queue.worker import max_held

FAST = QueueConfig(
    lease_seconds=2.0,
    heartbeat_seconds=0.3,
    reaper_seconds=0.3,
    poll_seconds=0.2,
    shutdown_grace_seconds=0.5,
    concurrency=3,
    backoff_base_seconds=0.05,
    backoff_cap_seconds=0.2,
)


@pytest.fixture
def registry() -> Registry:
    return register_test_kinds(register_builtin_kinds(Registry()))


@pytest.fixture
def start_worker(store: Store, registry: Registry, metrics: QueueMetrics) -> Iterator[object]:
    started: list[Worker] = []

    def start(config: QueueConfig = FAST, worker_id: str | None = None) -> Worker:
        worker = Worker(store, registry, config, worker_id=worker_id, metrics=metrics)
        worker.start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop(release_now=True)
    for worker in started:
        assert worker.wait_stopped(15), "worker did not stop"


def test_worker_runs_tasks_to_completion(store: Store, start_worker, metrics: QueueMetrics) -> None:  # type: ignore[no-untyped-def]
    ids = [r.task.id for r in store.submit_many([TaskSpec("sleep", {"pages": 3}) for _ in range(10)])]
    start_worker()
    for task_id in ids:
        assert wait_terminal(store, task_id, timeout=20) is TaskStatus.COMPLETED
        task = store.get(task_id)
        assert task is not None and task.result == {"pages": [{"page": p, "attempt": 1} for p in range(3)]}
        assert (task.progress_done, task.progress_total) == (3, 3)
    assert metrics.claims.labels("sleep")._value.get() == 10


def test_a_worker_whose_commits_fall_behind_stops_claiming(
    store: Store, registry: Registry, metrics: QueueMetrics
) -> None:
    """Finished tasks awaiting their commit hold leases: at most one completer batch of them.

    With every commit held back, the worker runs tasks until its slots, its prefetch and one batch
    of finished tasks are leased, then leaves the rest pending instead of leasing the whole queue
    (what made the SQLite drain stall: thousands of leases held, each commit and heartbeat larger).
    """
    config = QueueConfig(**{**FAST.__dict__, "concurrency": 4})
    extra = 100
    store.submit_many([TaskSpec("noop") for _ in range(max_held(config) + extra)])
    commits_open = threading.Event()
    real_complete_many = store.complete_many

    def held_back(items):  # type: ignore[no-untyped-def]
        commits_open.wait(30)
        return real_complete_many(items)

    store.complete_many = held_back  # type: ignore[method-assign]
    worker = Worker(store, registry, config, metrics=metrics)
    worker.start()
    try:
        wait_for(
            lambda: (
                len(worker.running_task_ids) == max_held(config)
                and store.counts_by_status().get(TaskStatus.PENDING) == extra
            ),
            timeout=30,
            what="the worker to hold one batch of uncommitted tasks and leave the rest pending",
        )
        assert metrics.claims.labels("noop")._value.get() == max_held(config)
        commits_open.set()
        wait_for(
            lambda: store.counts_by_status().get(TaskStatus.COMPLETED) == max_held(config) + extra,
            timeout=30,
            what="every task to complete once commits go through",
        )
    finally:
        commits_open.set()
        worker.stop(release_now=True)
        assert worker.wait_stopped(15)


def test_submit_wakes_an_idle_worker_without_waiting_for_the_poll(store: Store, start_worker) -> None:  # type: ignore[no-untyped-def]
    slow_poll = QueueConfig(**{**FAST.__dict__, "poll_seconds": 120.0})
    start_worker(slow_poll)
    task_id = store.submit(TaskSpec("noop")).task.id
    assert wait_terminal(store, task_id, timeout=10) is TaskStatus.COMPLETED


def test_transient_errors_retry_with_backoff_then_succeed(store: Store, start_worker) -> None:  # type: ignore[no-untyped-def]
    task_id = store.submit(TaskSpec("sleep", {"pages": 4, "fail_attempts": 2})).task.id
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.COMPLETED
    task = store.get(task_id)
    assert task is not None and task.attempts == 3
    retried = [e for e in store.events(task_id) if e.type is EventType.RETRIED]
    assert len(retried) == 2 and all(e.detail["error_kind"] == "transient" for e in retried)
    assert all(0 <= e.detail["delay_seconds"] <= 0.2 for e in retried)
    # resumed at the first unfinished page: pages 0-1 were done by attempt 1
    assert [p["attempt"] for p in task.result["pages"]] == [1, 1, 3, 3]


def test_permanent_error_dead_letters_without_retry(store: Store, start_worker) -> None:  # type: ignore[no-untyped-def]
    task_id = store.submit(TaskSpec("sleep", {"pages": 2, "fail_attempts": 9, "error": "permanent"})).task.id
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.DEAD_LETTER
    task = store.get(task_id)
    assert task is not None and task.attempts == 1 and task.error_kind == "permanent"
    assert "planted permanent failure" in (task.error_message or "")


def test_unknown_errors_retry_until_attempts_run_out(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    def explode(ctx: TaskContext) -> JSON:
        raise RuntimeError(f"bug on attempt {ctx.attempt}")

    registry.register("explode", explode)
    task_id = store.submit(TaskSpec("explode", max_attempts=3)).task.id
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.DEAD_LETTER
    task = store.get(task_id)
    assert task is not None and task.attempts == 3 and task.error_kind == "unknown"
    assert task.error_message == "RuntimeError: bug on attempt 3"


def test_a_kinds_attempt_limit_is_what_the_worker_enforces(db_url: str, metrics: QueueMetrics) -> None:
    registry = Registry()

    @registry.kind("flaky", max_attempts=2)
    def flaky(ctx: TaskContext) -> JSON:
        raise RuntimeError(f"bug on attempt {ctx.attempt}")

    with open_store(db_url, default_max_attempts=5, registry=registry) as store:
        task_id = store.submit(TaskSpec("flaky")).task.id
        worker = Worker(store, registry, FAST, metrics=metrics)
        worker.start()
        try:
            assert wait_terminal(store, task_id, timeout=20) is TaskStatus.DEAD_LETTER
        finally:
            worker.stop(release_now=True)
            assert worker.wait_stopped(15)
        task = store.get(task_id)
        assert task is not None and (task.attempts, task.max_attempts) == (2, 2)
        assert task.error_message == "RuntimeError: bug on attempt 2"


def test_cancelling_a_running_task_stops_its_handler(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    started = threading.Event()

    def long_job(ctx: TaskContext) -> JSON:
        started.set()
        for page in range(10_000):
            ctx.raise_if_cancelled()
            ctx.save_checkpoint(page, page)
            threading.Event().wait(0.01)
        return "finished"

    registry.register("long", long_job)
    task_id = store.submit(TaskSpec("long")).task.id
    start_worker()
    assert started.wait(10)
    store.cancel(task_id)
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.CANCELLED
    task = store.get(task_id)
    assert task is not None and task.result is None


def test_heartbeat_keeps_a_long_task_past_its_lease(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    release = threading.Event()

    def slow(ctx: TaskContext) -> JSON:
        release.wait(30)
        return "done"

    registry.register("slow", slow)
    task_id = store.submit(TaskSpec("slow")).task.id
    start_worker()
    first = wait_for(lambda: store.get(task_id).lease_expires_at, what="claim")  # type: ignore[union-attr]
    wait_for(lambda: store.get(task_id).lease_expires_at > first, what="renewal")  # type: ignore[union-attr]
    wait_for(lambda: store.now() > first.timestamp() + 0.5, what="original lease to pass")
    assert store.reap().total == 0
    release.set()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.COMPLETED
    task = store.get(task_id)
    assert task is not None and task.attempts == 1


def test_a_handler_that_lost_its_lease_has_its_result_discarded(  # type: ignore[no-untyped-def]
    store: Store, registry: Registry, start_worker, metrics: QueueMetrics
) -> None:
    in_handler, taken_over = threading.Event(), threading.Event()
    outcomes: list[str] = []

    def stalls(ctx: TaskContext) -> JSON:
        if ctx.attempt == 1:
            in_handler.set()
            taken_over.wait(30)
            try:
                ctx.save_checkpoint(0, "zombie")
            except LeaseLost:
                outcomes.append("lease lost")
                raise
            return "zombie result"
        ctx.save_checkpoint(0, "owner")
        return "owner result"

    registry.register("stalls", stalls)
    task_id = store.submit(TaskSpec("stalls")).task.id
    zombie = start_worker(worker_id="zombie")
    assert in_handler.wait(10)
    zombie.stop(release_now=False)  # no more claims from it; its heartbeat keeps going
    store.expire_worker_leases(["zombie"])
    store.reap()
    owner = store.claim("owner", 1, 30)[0]
    taken_over.set()
    wait_for(lambda: outcomes, what="zombie to hit its lost lease")
    assert store.complete(owner.lease, "owner result").status is TaskStatus.COMPLETED
    task = store.get(task_id)
    assert task is not None and task.result == "owner result"
    assert store.checkpoints(task_id) == []
    wait_for(lambda: metrics.lease_losses.labels("stalls")._value.get() == 1, what="lease loss counted")


def test_graceful_stop_releases_unfinished_tasks_at_once(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    running = threading.Event()

    def endless(ctx: TaskContext) -> JSON:
        running.set()
        threading.Event().wait(60)
        return None

    registry.register("endless", endless)
    task_id = store.submit(TaskSpec("endless")).task.id
    worker = start_worker(QueueConfig(**{**FAST.__dict__, "lease_seconds": 120.0}))
    assert running.wait(10)
    worker.stop()
    assert worker.wait_stopped(10)
    task = store.get(task_id)
    assert task is not None and (task.status, task.attempts) == (TaskStatus.PENDING, 0)
    assert store.events(task_id)[-1].type is EventType.RELEASED
    assert [w.stopped_at is not None for w in store.workers()] == [True]


def test_start_up_recovers_tasks_of_a_dead_worker_on_this_host(store: Store, start_worker) -> None:  # type: ignore[no-untyped-def]
    from ocrqueue.queue.identity import host_name

    store.register_worker("ghost", host_name(), 2**22 + 12345, 1, ["sleep"])  # a pid that does not exist
    task_id = store.submit(TaskSpec("sleep")).task.id
    store.claim("ghost", 1, 3600)
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.COMPLETED
    types = [e.type for e in store.events(task_id)]
    assert EventType.LEASE_LOST in types


def test_queue_depth_collector_counts_by_kind_and_status(store: Store) -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from ocrqueue.queue.metrics import QueueDepthCollector

    store.submit_many([TaskSpec("noop") for _ in range(3)])
    store.claim("w1", 1, 30, kinds=["noop"])
    store.submit(TaskSpec("sleep"))
    registry = CollectorRegistry()
    registry.register(QueueDepthCollector(store, max_age_seconds=0))
    text = generate_latest(registry).decode()
    assert 'ocrqueue_queue_depth{kind="noop",status="pending"} 2.0' in text
    assert 'ocrqueue_queue_depth{kind="noop",status="running"} 1.0' in text
    assert 'ocrqueue_queue_depth{kind="noop",status="dead_letter"} 0.0' in text
    assert 'ocrqueue_queue_depth{kind="sleep",status="pending"} 1.0' in text


def test_a_silent_handler_is_given_up_and_its_slot_replaced(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    release = threading.Event()
    handler_threads: list[threading.Thread] = []

    def hangs(ctx: TaskContext) -> JSON:
        handler_threads.append(threading.current_thread())
        release.wait(60)
        return "too late"

    registry.register("hangs", hangs)
    stuck = store.submit(TaskSpec("hangs", max_attempts=1)).task.id
    worker = start_worker(QueueConfig(**{**FAST.__dict__, "concurrency": 1, "stall_seconds": 1.0}))
    assert wait_terminal(store, stuck, timeout=20) is TaskStatus.DEAD_LETTER
    task = store.get(stuck)
    assert task is not None and task.error_kind == "stalled" and "given up as hung" in (task.error_message or "")
    after = store.submit(TaskSpec("noop")).task.id
    assert wait_terminal(store, after, timeout=20) is TaskStatus.COMPLETED  # the one slot was replaced
    dead_lettered = store.get_with_events(stuck, newest=100)
    release.set()
    # Wait until the worker is really done with the task: the given-up handler's thread has
    # returned and retired, and the worker has stopped, its completer flushed. Only then can no
    # late write of "too late" still be on its way.
    (handler_thread,) = handler_threads
    handler_thread.join(20)
    assert not handler_thread.is_alive(), "the given-up handler's thread did not retire"
    worker.stop(release_now=True)
    assert worker.wait_stopped(15)
    assert store.get_with_events(stuck, newest=100) == dead_lettered  # row and history untouched


def test_a_deferred_task_waits_without_spending_attempts(store: Store, registry: Registry, start_worker) -> None:  # type: ignore[no-untyped-def]
    from ocrqueue.queue import TaskDeferred

    def needs_a_server(ctx: TaskContext) -> JSON:
        if ctx.task.lease_token < 3:
            raise TaskDeferred("model server circuit open", delay_seconds=0.2)
        return "served"

    registry.register("needs_server", needs_a_server)
    task_id = store.submit(TaskSpec("needs_server", max_attempts=1)).task.id
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.COMPLETED
    task = store.get(task_id)
    assert task is not None and task.attempts == 1 and task.result == "served"
    released = [e for e in store.events(task_id) if e.type is EventType.RELEASED]
    assert [e.detail["reason"] for e in released] == ["model server circuit open"] * 2


def test_a_parts_page_is_in_the_record_before_it_shows_as_done(  # type: ignore[no-untyped-def]
    store: Store, registry: Registry, start_worker, tmp_path: Path
) -> None:
    """The fan-out acceptance test kills a worker as soon as one of its pages shows as done and counts
    the processes in the record: a process that dies right after saving its first page's progress
    has that page's line there already."""

    class DiesAtFirstProgress:
        def __init__(self, ctx: TaskContext) -> None:
            self._ctx = ctx

        def __getattr__(self, name: str) -> object:
            return getattr(self._ctx, name)

        def report_progress(self, *_args: object, **_kwargs: object) -> None:
            raise PermanentError("the process died as its first page's progress was saved")

    registry.register("parts_dying", lambda ctx: parts(cast(TaskContext, DiesAtFirstProgress(ctx))))
    record = tmp_path / "record.txt"
    task_id = store.submit(TaskSpec("parts_dying", {"pages": 2, "record": str(record)})).task.id
    start_worker()
    assert wait_terminal(store, task_id, timeout=20) is TaskStatus.DEAD_LETTER
    assert record.read_text().split() == [task_id, "1", str(os.getpid()), "0"]
