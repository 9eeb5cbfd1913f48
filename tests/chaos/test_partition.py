"""A network partition between one worker host and PostgreSQL (issue #5).

Two `ocrqueue worker` processes run as separate machines: each in a network namespace of its own,
reaching a throwaway PostgreSQL cluster over a private veth link (`support.netns`). Mid-task, the
link of the worker holding the task is cut: packets vanish silently both ways, as in a real
partition. The other host takes the task over after the lease expires and completes it. Then the
link comes back: the cut-off worker's late writes are rejected by the lease token, nothing it did
after the cut reaches the task, and it carries on with new work.

Found by this test: left to TCP's own timers, the cut-off worker came back 24 s after a 30 s
partition had ended (its statements waited for retransmissions backed off to ~25 s apart, the
pool's reconnect for SYN retries). The PostgreSQL driver now bounds connects, unacknowledged
sends and silent peers (`drivers.postgres.NETWORK_TIMEOUTS`); the test requires recovery within
`RECOVERY_LIMIT` seconds of the restore. See docs/chaos.md, "Partition".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict
from support.netns import Host, NamespacesUnavailable, PrivateNetwork, private_network
from support.postgres import throwaway_cluster
from support.proc_history import all_tasks, history_problems, read_record
from support.processes import SHORT_LEASES, Processes, WorkerProcess, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import Event, EventType, Store, Task, TaskSpec, TaskStatus, open_store
from ocrqueue.queue.drivers.postgres import NETWORK_TIMEOUTS, with_network_timeouts
from ocrqueue.service.schema import upgrade_all

pytestmark = [pytest.mark.acceptance, pytest.mark.slow]

PAGES = 16
SECONDS_PER_PAGE = 0.5
NEW_TASKS = 4
PARTITION_SECONDS = 30.0
"""How long the link stays cut: past the takeover, and long enough for TCP's retransmission timer
to back off beyond 25 s, so a worker left to TCP's own timers would come back visibly late."""
RECOVERY_LIMIT = 12.0
"""Seconds after the restore by which the cut-off worker must heartbeat and drop its stale task."""


@pytest.fixture
def network() -> Iterator[PrivateNetwork]:
    """Two hosts behind a router; skipped where network namespaces cannot be created."""
    try:
        with private_network(2) as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.skip(f"network partition test needs network namespaces: {exc}")


def rejected_writes(events: list[Event], worker_id: str) -> list[Event]:
    return [
        e
        for e in events
        if e.type is EventType.LEASE_LOST and e.detail.get("reason") == "write rejected" and e.worker_id == worker_id
    ]


def finished(store: Store, task_id: str) -> Task | None:
    task = store.get(task_id)
    return task if task is not None and task.status is TaskStatus.COMPLETED else None


def wait_task(condition: Callable[[], Task | None], timeout: float, what: str) -> Task:
    """The task `condition` returns once it returns one."""
    task = wait_for(condition, timeout, 0.02, what)
    assert task is not None
    return task


def test_partitioned_worker_is_fenced_off_and_carries_on(network: PrivateNetwork, tmp_path: Path) -> None:
    trusted = [str(h.network) for h in network.hosts]
    with throwaway_cluster([network.server_address], trusted) as cluster:
        upgrade_all(cluster.admin_url)
        store = open_store(cluster.admin_url)
        try:
            with Processes(tmp_path, cluster.admin_url, SHORT_LEASES) as workers:
                run_scenario(
                    store, workers, cluster.url_at(network.server_address), network.hosts, tmp_path / "record.txt"
                )
        finally:
            store.close()


def run_scenario(store: Store, workers: Processes, db_url: str, hosts: list[Host], record: Path) -> None:
    started: dict[str, tuple[Host, WorkerProcess]] = {}
    for number, host in enumerate(hosts):
        process = workers.start_worker(
            1,
            kinds=["sleep"],
            host=f"partition-host-{number}",
            name=f"host-{number}",
            wrapper=host.wrapper,
            env={"OCRQUEUE_DATABASE_URL": db_url},
        )
        started[registered_worker_id(store, process)] = (host, process)

    payload = {"pages": PAGES, "seconds_per_page": SECONDS_PER_PAGE, "record": str(record)}
    task_id = store.submit(TaskSpec("sleep", payload)).task.id

    def mid_task() -> Task | None:
        task = store.get(task_id)
        return task if task is not None and task.worker_id in started and task.progress_done >= 2 else None

    before = wait_task(mid_task, 60, "a worker to be two pages into the task")
    assert before.worker_id is not None
    victim_id = before.worker_id
    (taker_id,) = [w for w in started if w != victim_id]
    victim_host, victim = started[victim_id]
    _, taker = started[taker_id]

    # Cut the holder off. The other host reaps the task once the lease ran out, resumes it from
    # the checkpoints and completes it, all while the holder is still cut off.
    victim_host.cut()
    cut_at, db_cut_at = time.monotonic(), store.now()
    done = wait_task(partial(finished, store, task_id), 60, "the other host to take the task over and finish it")
    taken_over = time.monotonic() - cut_at
    assert done.worker_id == taker_id, workers.logs()
    assert done.lease_token == before.lease_token + 1
    snapshot = store.checkpoints(task_id)
    time.sleep(max(0.0, cut_at + PARTITION_SECONDS - time.monotonic()))  # the fault's duration, not a wait
    (seen,) = [w.last_seen_at.timestamp() for w in store.workers() if w.id == victim_id]
    assert seen < db_cut_at + 1.0, "the cut-off worker kept heartbeating: the partition did not hold"
    assert "database unavailable" in victim.output(), "the cut-off worker never said the database was unreachable"

    # Reconnect it: it must find out within seconds, whatever TCP's retransmission timers say.
    db_restored_at = store.now()  # nothing the cut-off worker writes can reach the database before this
    victim_host.restore()
    restored_at = time.monotonic()

    def heartbeat_after_restore() -> bool:
        return any(w.id == victim_id and w.last_seen_at.timestamp() > db_restored_at for w in store.workers())

    wait_for(heartbeat_after_restore, 120, 0.05, "the cut-off worker to heartbeat again")
    heartbeating = time.monotonic() - restored_at
    victim.wait_output("lease lost; result discarded", timeout=120)
    discarded = time.monotonic() - restored_at
    assert max(heartbeating, discarded) < RECOVERY_LIMIT, (
        f"back {heartbeating:.1f}s (heartbeat) / {discarded:.1f}s (lease lost) after the restore\n{workers.logs()}"
    )

    # The late writes were fenced off: recorded as rejected, and the task is as the taker left it.
    events = store.events(task_id)
    rejected = rejected_writes(events, victim_id)
    assert rejected, f"no rejected write by the cut-off worker: {events}\n{workers.logs()}"
    print(
        f"\npartition of {PARTITION_SECONDS:.0f}s: the other host finished the task {taken_over:.1f}s after the cut; "
        f"after the restore the cut-off worker heartbeated again in {heartbeating:.1f}s "
        f"and discarded its result in {discarded:.1f}s; its rejected late writes: "
        + ", ".join(str(e.detail["operation"]) for e in rejected)
    )
    for event in rejected:
        assert event.at.timestamp() > db_restored_at
        assert event.lease_token == before.lease_token
        assert (event.detail["current_token"], event.detail["current_status"]) == (done.lease_token, "completed")
    after = store.get(task_id)
    assert after is not None
    assert (after.status, after.result, after.lease_token, after.worker_id) == (
        TaskStatus.COMPLETED,
        done.result,
        done.lease_token,
        taker_id,
    )
    assert store.checkpoints(task_id) == snapshot
    assert [c.seq for c in snapshot] == list(range(PAGES))
    tokens = [c.lease_token for c in snapshot]
    first_taker_page = tokens.index(done.lease_token)
    assert tokens == [before.lease_token] * first_taker_page + [done.lease_token] * (PAGES - first_taker_page)
    assert first_taker_page >= before.progress_done
    assert [e.worker_id for e in events if e.type is EventType.COMPLETED] == [taker_id]
    runs = read_record(record)
    assert [(r.pid, r.what) for r in runs if r.what == "done"] == [(taker.pid, "done")]

    # The cut-off worker carries on: it claims and completes new work next to the other host.
    new_ids = [
        store.submit(TaskSpec("sleep", {"seconds_per_page": 1.0, "record": str(record)})).task.id
        for _ in range(NEW_TASKS)
    ]
    new_tasks = [wait_task(partial(finished, store, i), 60, f"new task {i} to finish") for i in new_ids]
    assert victim_id in {t.worker_id for t in new_tasks}, workers.logs()
    assert victim.alive and taker.alive, workers.logs()

    # Nothing lost, nothing doubled: every task completed once, no lease overlapped another.
    tasks = all_tasks(store)
    assert {t.id: t.status for t in tasks} == dict.fromkeys([task_id, *new_ids], TaskStatus.COMPLETED)
    assert history_problems(store, [t.id for t in tasks]) == {}


def test_a_database_url_overrides_the_network_timeouts() -> None:
    params = conninfo_to_dict(with_network_timeouts("postgresql://u@db:5432/q?connect_timeout=2&keepalives=0"))
    assert (params["connect_timeout"], params["keepalives"]) == ("2", "0")
    assert params["tcp_user_timeout"] == str(NETWORK_TIMEOUTS["tcp_user_timeout"])
    assert (params["host"], params["dbname"]) == ("db", "q")
