"""Who a worker is, and whether a worker on this host is still alive."""

from __future__ import annotations

import os
import secrets
import socket


def host_name() -> str:
    return socket.gethostname()


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
