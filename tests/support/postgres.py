"""A PostgreSQL server for tests: the local one when it answers, else a throwaway cluster.

The throwaway cluster is built from Debian's `postgresql` binaries with initdb; as root it runs
as the `postgres` system user, since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _reachable(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"PostgreSQL binary {name} not found: apt-get install postgresql")
    return found[-1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """A PostgreSQL cluster this test process owns and may stop and start at will."""

    data_dir: Path
    port: int
    run_as: str | None
    listen_addresses: tuple[str, ...] = ("127.0.0.1",)

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url_at(self, address: str, database: str = "postgres") -> str:
        """The cluster reached through another of its listen addresses."""
        return f"postgresql://postgres@{address}:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        log = self.data_dir.parent / "server.log"
        listen = ",".join(self.listen_addresses)
        self._run(
            _bin("pg_ctl"), "-D", str(self.data_dir), "-l", str(log), "-w", "-t", "60",
            "-o", f"-p {self.port} -k {self.data_dir.parent} -c listen_addresses={listen} -c fsync=off",
            "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data_dir), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()


@contextlib.contextmanager
def throwaway_cluster(
    extra_listen_addresses: Sequence[str] = (), trusted_networks: Sequence[str] = ()
) -> Iterator[Cluster]:
    """A new cluster on 127.0.0.1 (and `extra_listen_addresses`), trusting local connections and
    clients from `trusted_networks` (CIDR); stopped and deleted afterwards."""
    root = Path(tempfile.mkdtemp(prefix="ocrq-pg-"))
    run_as = "postgres" if os.geteuid() == 0 else None
    if run_as:
        shutil.chown(root, user=run_as)
    cluster = Cluster(root / "data", _free_port(), run_as, ("127.0.0.1", *extra_listen_addresses))
    cluster._run(_bin("initdb"), "-D", str(cluster.data_dir), "-U", "postgres", "--auth=trust", "-E", "UTF8")
    with open(cluster.data_dir / "pg_hba.conf", "a") as hba:
        hba.writelines(f"host all all {network} trust\n" for network in trusted_networks)
    cluster.start()
    try:
        yield cluster
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            cluster.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def admin_server() -> Iterator[str]:
    """An admin URL: $OCRQUEUE_TEST_PG_ADMIN_URL, the local server, or a throwaway cluster."""
    url = os.environ.get("OCRQUEUE_TEST_PG_ADMIN_URL", DEFAULT_ADMIN_URL)
    if _reachable(url):
        yield url
        return
    with throwaway_cluster() as cluster:
        yield cluster.admin_url


def with_database(admin_url: str, name: str) -> str:
    base, _, _ = admin_url.rpartition("/")
    return f"{base}/{name}"


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new empty database for one test session (or one xdist worker), dropped afterwards."""
    name = f"ocrq_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(admin_url, name)
    finally:
        for _ in range(50):
            try:
                with psycopg.connect(admin_url, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                break
            except psycopg.OperationalError:
                time.sleep(0.2)
