"""The PostgreSQL server restarts mid-drain: workers reconnect and finish, nothing lost or doubled."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.postgres import throwaway_cluster
from support.proc_history import all_tasks, counts, history_problems
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import Store, TaskSpec, TaskStatus, open_store, upgrade

pytestmark = [pytest.mark.acceptance, pytest.mark.slow]

TASKS = 300
PAGES = 3
ENV = {
    "OCRQUEUE_LEASE_SECONDS": "4",
    "OCRQUEUE_HEARTBEAT_SECONDS": "1",
    "OCRQUEUE_REAPER_SECONDS": "1",
    "OCRQUEUE_POLL_SECONDS": "0.2",
}


def test_workers_survive_a_postgresql_restart_mid_drain(tmp_path: Path) -> None:
    with throwaway_cluster() as cluster:
        url = cluster.admin_url
        upgrade(url)
        store: Store = open_store(url)
        try:
            with Processes(tmp_path, url, ENV) as workers:
                started = [workers.start_worker(3) for _ in range(4)]
                for process in started:
                    registered_worker_id(store, process)
                payload = {"pages": PAGES, "seconds_per_page": 0.05}
                ids = [r.task.id for r in store.submit_many([TaskSpec("sleep", payload) for _ in range(TASKS)])]

                wait_for(lambda: counts(store).get(TaskStatus.COMPLETED, 0) >= TASKS // 4, 60, 0.05, "a quarter done")
                t0 = time.monotonic()
                cluster.stop()
                # Down until every worker has noticed (no reply, retrying), then back.
                wait_for(
                    lambda: all("database unavailable" in p.output() for p in started), 30, 0.05, "workers to notice"
                )
                cluster.start()
                restarted = time.monotonic() - t0
                done_at_restart = counts(store).get(TaskStatus.COMPLETED, 0)  # reconnects, too
                assert done_at_restart < TASKS, "the restart must come mid-drain"

                wait_for(
                    lambda: counts(store).get(TaskStatus.COMPLETED) == TASKS or workers.alive() != started,
                    90,
                    0.2,
                    "every task to complete after the restart",
                )
                assert workers.alive() == started, workers.logs()
                logs = workers.logs()
            assert counts(store) == {TaskStatus.COMPLETED: TASKS}, logs
            assert history_problems(store, ids) == {}
            for task in all_tasks(store):
                assert [p["page"] for p in task.result["pages"]] == list(range(PAGES))
            print(f"restart took {restarted:.1f}s with {done_at_restart}/{TASKS} done")
        finally:
            store.close()
