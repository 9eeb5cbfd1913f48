"""`make container-check`: deploy/Containerfile's own steps in a fresh Debian root, `ocrqueue serve`
started there as the container starts it, and reached over HTTP from another network namespace.

Slow (a Debian root, its packages and the venv: several minutes) and needs root, so it runs only
with OCRQUEUE_CONTAINER_CHECK=1 (`make container-check`), never in `make test`. It prints what it
saw, for release notes.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from data.generate import ENGLISH, encode, text_page
from support.containerfile import Image, build, mounted
from support.netns import NamespacesUnavailable, PrivateNetwork, private_network
from support.server import free_port
from support.waiting import wait_for

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("OCRQUEUE_CONTAINER_CHECK") != "1", reason="`make container-check` runs it (slow, root)"
    ),
    pytest.mark.timeout(3600),
]

ROOT = Path(__file__).parents[2]
KEY = "oq_" + secrets.token_urlsafe(32)
PACKAGE_SOURCES = ("/opt/wheels", "/opt/pypi", "/opt/pypi-more")
"""This machine's local copies of PyPI, given to the build's pip like a builder's network."""
HOST_CERTIFICATES = "/etc/ssl/certs"
BUILD_CERTIFICATES = "/run/build-certs"
"""The way out to PyPI may present a certificate only this machine's CA bundle knows (PIP_CERT):
the build's pip gets that bundle, read-only and outside the image's own /etc/ssl."""
_CLIENT = """
import httpx, json, sys
base, key, action = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {"Authorization": f"Bearer {key}"} if key else {}
with httpx.Client(base_url=base, headers=headers, timeout=330) as http:
    if action == "get":
        print(json.dumps(http.get(sys.argv[4]).status_code))
    else:  # one request that the server answers once the task is done (it waits on the task, not a timer)
        with open(sys.argv[4], "rb") as f:
            files = {"file": ("page.png", f, "image/png")}
            answer = http.post("/api/v1/convert", files=files, params={"format": "markdown", "wait": 300})
        status = "completed" if answer.status_code == 200 else f"{answer.status_code}: {answer.text[:300]}"
        print(json.dumps({"status": status, "markdown": answer.text}))
"""


def say(text: str) -> None:
    print(f"[container-check] {text}", flush=True)


@pytest.fixture
def network() -> Iterator[PrivateNetwork]:
    try:
        with private_network(1) as made:
            yield made
    except NamespacesUnavailable as exc:
        pytest.fail(f"container-check needs network namespaces: {exc}")


@pytest.fixture
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Image]:
    root = tmp_path_factory.mktemp("image") / "root"
    binds = {path: path for path in PACKAGE_SOURCES if Path(path).is_dir()}
    build_env = {}
    if binds:
        build_env["PIP_FIND_LINKS"] = "/opt/wheels"
        build_env["PIP_EXTRA_INDEX_URL"] = " ".join(f"file://{p}/simple" for p in binds if p != "/opt/wheels")
    pip_cert = os.environ.get("PIP_CERT", "")
    if pip_cert.startswith(HOST_CERTIFICATES + "/") and Path(pip_cert).is_file():
        binds[HOST_CERTIFICATES] = BUILD_CERTIFICATES
        build_env["PIP_CERT"] = BUILD_CERTIFICATES + pip_cert.removeprefix(HOST_CERTIFICATES)
    started = time.monotonic()
    built = build(ROOT / "deploy" / "Containerfile", ROOT, root, build_env, binds, say)
    say(f"built {root} in {time.monotonic() - started:.0f} s ({disk_use(root)})")
    yield built
    for mount in reversed(Path("/proc/mounts").read_text().split("\n")):  # left by an interrupted step
        if len(mount.split()) > 1 and mount.split()[1].startswith(str(root) + "/"):
            subprocess.run(["umount", "-l", mount.split()[1]], check=False)
    subprocess.run(["rm", "-rf", "--one-file-system", str(root)], check=False)


def disk_use(root: Path) -> str:
    return subprocess.run(["du", "-sh", "--one-file-system", str(root)], capture_output=True, text=True).stdout.split()[
        0
    ]


def client(network: PrivateNetwork, *args: str) -> object:
    done = subprocess.run(
        [*network.hosts[0].wrapper, sys.executable, "-c", _CLIENT, *args], capture_output=True, text=True, timeout=400
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_image(image: Image, argv: list[str]) -> str:
    done = subprocess.run(image.command(argv), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_image_serves_with_its_bootstrap_key_to_another_namespace(
    image: Image, network: PrivateNetwork, tmp_path: Path
) -> None:
    with mounted(image.root, {}):  # what a container has: /proc, /dev, /sys
        check_image(image, network, tmp_path)


def check_image(image: Image, network: PrivateNetwork, tmp_path: Path) -> None:
    assert image.cmd == ["ocrqueue", "serve"] and image.user == "ocrqueue"
    assert image.volumes == ["/var/lib/ocrqueue"] and image.env["OCRQUEUE_DATA_DIR"] == "/var/lib/ocrqueue"
    assert image.exposed == ["8000"] and "/healthz" in image.healthcheck
    say("opencv in the image: " + in_image(image, ["sh", "-c", "pip list 2>/dev/null | grep -i opencv"]).strip())
    linked = in_image(image, ["sh", "-c", "ldd /opt/ocrqueue/venv/lib/python3.11/site-packages/cv2/cv2*.so"])
    assert "not found" not in linked and "libGL" not in linked, linked
    say("cv2 links: " + " ".join(line.split()[0] for line in linked.splitlines()))

    refused = subprocess.run(image.command(image.cmd), capture_output=True, text=True, timeout=120)
    said = " ".join((refused.stdout + refused.stderr).split())
    assert refused.returncode == 2, said
    say(f"without a key: exit {refused.returncode}: {said[:400]}")

    port = str(free_port())
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        serve = subprocess.Popen(
            image.command(image.cmd, {"OCRQUEUE_BOOTSTRAP_API_KEY": KEY, "OCRQUEUE_PORT": port}),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        base = f"http://{network.server_address}:{port}"
        wait_for(lambda: serve.poll() is None and b"Uvicorn running on" in log.read_bytes(), 180, 0.2, "serve")
        assert client(network, base, "", "get", "/healthz") == 200
        assert client(network, base, "", "get", "/api/v1/tasks") == 401
        assert client(network, base, KEY, "get", "/api/v1/tasks") == 200
        say(
            f"from namespace {network.hosts[0].namespace}: {base}/healthz 200, /api/v1/tasks 401 without the key, "
            "200 with it"
        )
        checked = subprocess.run(image.command(["sh", "-c", image.healthcheck], {"OCRQUEUE_PORT": port}), timeout=60)
        assert checked.returncode == 0
        say("HEALTHCHECK command inside the image: exit 0")
        page = tmp_path / "page.png"
        page.write_bytes(encode(text_page(ENGLISH[:4], cjk=False), "PNG"))
        result = client(network, base, KEY, "ocr", str(page))
        assert isinstance(result, dict) and result["status"] == "completed", result
        assert ENGLISH[0].split()[0] in result["markdown"], result
        say(f"OCR of a page through the image: {result['status']}, markdown starts {result['markdown'][:80]!r}")
        say("serve's log: " + " / ".join(log.read_text(errors="replace").splitlines()[:4]))
        assert KEY not in log.read_text(errors="replace")
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(60)
