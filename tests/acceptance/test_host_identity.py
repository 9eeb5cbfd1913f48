"""Start-up recovery must only take tasks of workers that are really dead.

`Worker.recover` treats a worker registered under this host name as dead when its pid does not
exist here. Two pid namespaces under one host name (containers with host networking, or a
container next to a worker on the host itself) see different pids: a worker starting in one
namespace would take the running tasks of live workers in the other.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from support.processes import Processes, registered_worker_id
from support.waiting import wait_for

from ocrqueue.queue import EventType, Store, TaskSpec, TaskStatus

pytestmark = pytest.mark.acceptance

NEW_PID_NAMESPACE = ["unshare", "--pid", "--fork"]


def _can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run([*NEW_PID_NAMESPACE, "true"], capture_output=True, timeout=10)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs root and unshare(1) to make a pid namespace")
def test_worker_in_another_pid_namespace_leaves_live_workers_tasks_alone(store: Store, workers: Processes) -> None:
    owner = workers.start_worker(1, name="owner")
    owner_id = registered_worker_id(store, owner)
    task_id = store.submit(TaskSpec("sleep", {"pages": 40, "seconds_per_page": 0.25})).task.id

    def running_on_owner() -> bool:
        task = store.get(task_id)
        return task is not None and task.worker_id == owner_id and task.progress_done >= 1

    wait_for(running_on_owner, 30, 0.05, "the owner to run its task")

    # Same host name, own pid namespace: the owner's pid does not exist in there.
    newcomer = workers.start_worker(1, name="newcomer", wrapper=NEW_PID_NAMESPACE)
    newcomer_id = newcomer.logged_worker_id()

    def newcomer_beating() -> bool:
        """Its heartbeat runs only after start-up recovery and the first reaper run are done."""
        info = [w for w in store.workers() if w.id == newcomer_id]
        return bool(info) and info[0].last_seen_at > info[0].started_at

    wait_for(newcomer_beating, 30, 0.05, "the newcomer to finish start-up")
    task = store.get(task_id)
    assert task is not None
    assert (task.status, task.worker_id, task.lease_token) == (TaskStatus.RUNNING, owner_id, 1), newcomer.output()
    assert not [e for e in store.events(task_id) if e.type is EventType.LEASE_LOST]
    assert owner.alive
