"""A call that started while PostgreSQL was down returns soon after the server is back.

Found by the chaos run: after a restart that kept the server down for 2-3 s, workers made no
progress for about 10 s, and heartbeats stalled past short leases. A statement issued while the
server is down finds the pool empty; the pool (reconnect_timeout=0) gives up its one reconnection
attempt at once, and the caller then waits in `getconn` for the pool's full `timeout` even after the
server is back, because only a new `getconn` starts a new connection attempt. The store's retry loop
handles the PoolTimeout, so the pool timeout bounds how late a reconnect can be.
"""

from __future__ import annotations

import threading
import time

import pytest
from support.postgres import throwaway_cluster

from ocrqueue.queue import open_store

pytestmark = [pytest.mark.acceptance, pytest.mark.slow]

DOWN_SECONDS = 2.0


def test_a_call_made_during_a_restart_returns_soon_after_the_server_is_back() -> None:
    with throwaway_cluster() as cluster:
        store = open_store(cluster.admin_url)
        try:
            store.now()  # a pooled connection, which the restart will break
            cluster.stop()
            returned: list[float] = []
            errors: list[BaseException] = []

            def call() -> None:
                try:
                    store.now()
                    returned.append(time.monotonic())
                except BaseException as exc:
                    errors.append(exc)

            caller = threading.Thread(target=call, daemon=True)
            caller.start()
            time.sleep(DOWN_SECONDS)
            cluster.start()
            back = time.monotonic()
            caller.join(timeout=60)
            assert not errors, errors
            assert returned, "the call never returned"
            late = returned[0] - back
            print(f"returned {late:.1f}s after the server was back")
            assert late < 5.0, f"the call returned {late:.1f}s after the server was back"
        finally:
            store.close()
