"""Who a worker is, and whether a worker on this host is still alive."""

from __future__ import annotations

import os
import secrets
import socket


def host_name() -> str:
    """Where a pid means one process: the host name plus the pid namespace, since containers can
    share a host name while each sees its own pids (a worker must never judge another namespace's
    pids, or it would take live workers' tasks)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return socket.gethostname()
    return f"{socket.gethostname()}/pidns-{namespace}"


def new_worker_id() -> str:
    """Unique per process start: a restarted worker never inherits a dead one's leases."""
    return f"{host_name()}:{os.getpid()}:{secrets.token_hex(3)}"


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists here (a reused pid errs on the safe side: alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
