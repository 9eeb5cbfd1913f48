"""The test kinds (`sleep`, `parts`: crash, hang, leak or write files on demand) exist on a real
`ocrqueue worker` or `serve` only with `--test-kinds`; without it they are refused and never run."""

from __future__ import annotations

import pytest
from support.processes import Processes
from support.waiting import wait_for

from ocrqueue.queue import Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

TEST_KINDS = {"sleep", "parts"}


def _live_kinds(store: Store) -> list[set[str]]:
    return [set(info.kinds) for info in store.workers(live_only=True)]


def test_a_worker_without_the_flag_refuses_and_never_runs_the_test_kinds(store: Store, workers: Processes) -> None:
    process = workers.start_worker(1, test_kinds=False)
    [kinds] = wait_for(lambda: _live_kinds(store) or None, 30, 0.05, "the worker to register")
    assert "noop" in kinds and "ocr" in kinds and not kinds & TEST_KINDS
    assert "sleep" not in process.logged_kinds()

    refused = workers.run("tasks", "enqueue", "sleep", "--payload", '{"record": "/tmp/anything"}')
    assert refused.returncode == 2
    assert "unknown task kind 'sleep'" in refused.stdout
    assert "test kinds run only with --test-kinds" in refused.stdout

    # Written to the database behind the CLI's back, a sleep task still never runs: the worker
    # completes a noop submitted after it and leaves it pending, unclaimed.
    planted = store.submit(TaskSpec("sleep", {"fail_attempts": 9, "error": "crash"})).task.id
    enqueued = workers.run("tasks", "enqueue", "noop")
    assert enqueued.returncode == 0, enqueued.stdout + enqueued.stderr
    noop_id = enqueued.stdout.split()[0]
    wait_for(lambda: _status(store, noop_id) is TaskStatus.COMPLETED, 30, 0.05, "the noop task to complete")
    sleeping = store.get(planted)
    assert sleeping is not None and (sleeping.status, sleeping.attempts) == (TaskStatus.PENDING, 0)
    assert process.alive


def test_a_worker_with_the_flag_runs_the_test_kinds(store: Store, workers: Processes) -> None:
    process = workers.start_worker(1)  # the acceptance helper passes --test-kinds
    [kinds] = wait_for(lambda: _live_kinds(store) or None, 30, 0.05, "the worker to register")
    assert kinds >= TEST_KINDS
    assert "sleep" in process.logged_kinds()
    enqueued = workers.run("tasks", "enqueue", "sleep", "--test-kinds", "--payload", '{"pages": 2}')
    assert enqueued.returncode == 0, enqueued.stdout + enqueued.stderr
    task_id = enqueued.stdout.split()[0]
    wait_for(lambda: _status(store, task_id) is TaskStatus.COMPLETED, 30, 0.05, "the sleep task to complete")


def test_asking_for_a_test_kind_without_the_flag_is_refused_before_anything_starts(workers: Processes) -> None:
    for command in (["worker", "-k", "sleep"], ["worker", "--processes", "2", "-k", "parts"]):
        refused = workers.run(*command)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "test kinds run only with --test-kinds" in refused.stdout
    refused = workers.run("serve", "--workers", "1", env={"OCRQUEUE_WORKER_KINDS": '["ocr", "sleep"]'})
    assert refused.returncode == 2 and "unknown task kind 'sleep'" in refused.stdout
    assert "Traceback" not in refused.stdout + refused.stderr


@pytest.mark.parametrize("flag", [False, True], ids=["plain", "test-kinds"])
def test_serve_hands_the_flag_to_its_worker_processes(store: Store, workers: Processes, flag: bool) -> None:
    workers.start_serve("--workers", "1", *(["--test-kinds"] if flag else []))
    [kinds] = wait_for(lambda: _live_kinds(store) or None, 60, 0.05, "serve's worker process to register")
    assert "ocr" in kinds
    assert (kinds >= TEST_KINDS) if flag else not (kinds & TEST_KINDS)


def _status(store: Store, task_id: str) -> TaskStatus | None:
    task = store.get(task_id)
    return None if task is None else task.status
