"""`ocrqueue serve --host 0.0.0.0` as a container starts it: refused without a key, saying what to set;
with OCRQUEUE_BOOTSTRAP_API_KEY reachable from another network namespace, only with that key, the
key stored once however often it restarts and never written to the log."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections.abc import Iterator

import pytest
from support.netns import NamespacesUnavailable, PrivateNetwork, private_network
from support.processes import Processes

pytestmark = pytest.mark.acceptance

BOOTSTRAP = "oq_" + secrets.token_urlsafe(32)
_GET = """
import httpx, json, sys
url, key = sys.argv[1], sys.argv[2]
headers = {"Authorization": f"Bearer {key}"} if key else {}
print(json.dumps(httpx.get(url, headers=headers, timeout=10).status_code))
"""


@pytest.fixture
def network() -> Iterator[PrivateNetwork]:
    try:
        with private_network(1) as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.skip(f"needs network namespaces: {exc}")


def status_from_other_host(network: PrivateNetwork, url: str, key: str = "") -> int:
    wrapper = network.hosts[0].wrapper
    done = subprocess.run([*wrapper, sys.executable, "-c", _GET, url, key], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout))


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_without_a_key_serve_on_all_interfaces_refuses_and_says_what_to_set(workers: Processes) -> None:
    refused = workers.start(["serve", "--host", "0.0.0.0", "--no-workers"], name="open")
    assert refused.wait_exit(60) == 2
    said = " ".join(refused.output().split())
    assert "will not listen on 0.0.0.0 while no API key exists" in said
    assert "Set OCRQUEUE_BOOTSTRAP_API_KEY to a secret of at least 32 characters" in said


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_the_bootstrap_key_opens_all_interfaces_once_and_is_never_logged(
    workers: Processes, network: PrivateNetwork
) -> None:
    env = {"OCRQUEUE_HOST": "0.0.0.0", "OCRQUEUE_BOOTSTRAP_API_KEY": BOOTSTRAP, "OCRQUEUE_BOOTSTRAP_TENANT": "acme"}
    workers.env.update(env)
    first, base = workers.start_serve("--no-workers", name="first")
    port = base.rsplit(":", 1)[1]
    remote = f"http://{network.server_address}:{port}"
    assert status_from_other_host(network, f"{remote}/healthz") == 200
    assert status_from_other_host(network, f"{remote}/api/v1/tasks") == 401
    assert status_from_other_host(network, f"{remote}/api/v1/tasks", BOOTSTRAP) == 200
    first.terminate()
    again, _ = workers.start_serve("--no-workers", name="again")
    again.terminate()
    listed = workers.run("keys", "list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("acme") == 1, listed.stdout
    assert "stored the bootstrap API key for tenant acme" in first.output()
    assert "stored the bootstrap API key" not in again.output()
    assert all(BOOTSTRAP not in process.output() for process in (first, again))
