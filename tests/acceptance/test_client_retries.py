"""`Client` and `AsyncClient` against a real `ocrqueue serve` behind a proxy that injects 429s
(Retry-After in seconds and as a date), 502, 503, 504 and connection resets before and after the
server acted: every file becomes exactly one task, with exactly the bytes of the file. Half the
submits use `force=True` (no deduplication by content), where only the Idempotency-Key the client
makes stands between a retried upload and a second task; the others rely on the server's
deduplication by content, which the client leaves in place."""

from __future__ import annotations

import asyncio
import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image
from support.faulty_proxy import FORWARDED, Fault, FaultPlan, faulty_proxy
from support.processes import Processes

from ocrqueue.client import AsyncClient, Client, ClientError, RetryPolicy
from ocrqueue.queue import Store

pytestmark = pytest.mark.acceptance

SYNC_FILES = 200
ASYNC_FILES = 40
ASYNC_AT_ONCE = 8
FAST = RetryPolicy(attempts=10, deadline_seconds=60, base_seconds=0.02, cap_seconds=0.5, retry_after_cap_seconds=2)
"""Short waits, so 240 submits with about 100 faults take seconds; Retry-After (1 s) still honoured."""


def tiny_pngs(folder: Path, count: int, first: int = 0) -> list[Path]:
    """`count` distinct 16x16 PNGs (the number drawn in the pixels), named by their number."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(first, first + count):
        image = Image.new("L", (16, 16), 255)
        image.putdata([255 - ((number >> bit) & 1) * 255 for bit in range(16)] + [255] * (256 - 16))
        path = folder / f"page-{number:04d}.png"
        image.save(path, "PNG")
        paths.append(path)
    return paths


def total_tasks(store: Store) -> int:
    return sum(store.counts_by_status().values())


def submitted_bytes_match(store: Store, submitted: dict[str, str], folder: Path) -> list[str]:
    """The files whose task holds other bytes than the file (a retry that did not rewind)."""
    wrong = []
    for name, task_id in submitted.items():
        task = store.get(task_id)
        data = (folder / name).read_bytes()
        assert task is not None
        if (task.payload["sha256"], task.payload["size"], task.payload["filename"]) != (
            hashlib.sha256(data).hexdigest(),
            len(data),
            name,
        ):
            wrong.append(name)
    return wrong


def test_every_submission_through_a_failing_network_makes_exactly_one_task(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    _, base = workers.start_serve("--no-workers")
    files = tiny_pngs(tmp_path / "sync", SYNC_FILES)
    with faulty_proxy(base, FaultPlan(seed=20261203)) as proxy:
        with Client(proxy.base_url, retries=FAST) as client:
            submitted: dict[str, str] = {}
            for number, path in enumerate(files):
                force = number % 2 == 0
                if number % 3 == 0:  # an open stream, rewound for each attempt
                    with path.open("rb") as stream:
                        submitted[path.name] = client.submit(stream, force=force).id
                else:
                    submitted[path.name] = client.submit(path, force=force).id
            sync_faults = dict(proxy.counts)
            listed = {task.id: task.filename for task in client.list(limit=SYNC_FILES + 50)}

        assert len(set(submitted.values())) == SYNC_FILES, "a file's task was another file's"
        assert total_tasks(store) == SYNC_FILES, "lost or duplicated tasks"
        assert listed == {task_id: name for name, task_id in submitted.items()}
        assert submitted_bytes_match(store, submitted, tmp_path / "sync") == []
        assert all(sync_faults.get(fault.name, 0) > 0 for fault in Fault), sync_faults

        more = tiny_pngs(tmp_path / "async", ASYNC_FILES, first=SYNC_FILES)
        before = proxy.faults()
        concurrent = asyncio.run(_submit_async(proxy.base_url, more))
        async_faults = proxy.faults() - before

    assert len(set(concurrent.values())) == ASYNC_FILES
    assert not set(concurrent.values()) & set(submitted.values())
    assert total_tasks(store) == SYNC_FILES + ASYNC_FILES, "lost or duplicated tasks"
    assert submitted_bytes_match(store, concurrent, tmp_path / "async") == []
    assert async_faults > 0
    print(f"faults injected: sync {sync_faults}, async {async_faults}")


async def _submit_async(base: str, files: list[Path]) -> dict[str, str]:
    gate = asyncio.Semaphore(ASYNC_AT_ONCE)
    async with AsyncClient(base, retries=FAST) as client:

        async def one(number: int, path: Path) -> tuple[str, str]:
            async with gate:
                return path.name, (await client.submit(path, force=number % 2 == 0)).id

        return dict(await asyncio.gather(*(one(number, path) for number, path in enumerate(files))))


def test_a_client_stops_at_its_attempts_and_its_deadline(store: Store, workers: Processes, tmp_path: Path) -> None:
    _, base = workers.start_serve("--no-workers")
    [path] = tiny_pngs(tmp_path, 1)
    with Client(base) as direct:
        task_id = direct.submit(path).id
    always = {"rate": 1.0, "max_in_a_row": 1000}

    gateway = FaultPlan(seed=1, faults=(Fault.BAD_GATEWAY,), **always)  # type: ignore[arg-type]
    with faulty_proxy(base, gateway) as proxy, Client(proxy.base_url, retries=RetryPolicy(attempts=4)) as client:
        with pytest.raises(ClientError) as refused:
            client.get(task_id)
        assert refused.value.status == 502 and proxy.counts[Fault.BAD_GATEWAY.name] == 4
        with pytest.raises(ClientError):  # not idempotent: a 502 may mean it was done
            client.retry(task_id)
        assert proxy.counts[Fault.BAD_GATEWAY.name] == 5

    with faulty_proxy(base, FaultPlan(seed=2, faults=(Fault.RATE_LIMITED,), **always)) as proxy:  # type: ignore[arg-type]
        deadline = RetryPolicy(attempts=50, deadline_seconds=2.9, base_seconds=0.01)
        with Client(proxy.base_url, retries=deadline) as client, pytest.raises(ClientError) as limited:
            client.get(task_id)
        assert limited.value.status == 429
        assert (
            proxy.counts[Fault.RATE_LIMITED.name] == 3
        )  # at 0 s, 1 s and 2 s: one more 1 s Retry-After would pass 2.9 s
        assert proxy.counts[FORWARDED] == 0

    assert total_tasks(store) == 1


def test_the_callers_idempotency_key_is_sent_with_every_attempt(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    """The server makes the task at the first attempt and the answer is lost twice: the third
    attempt, with the same key, gets that task back (200), and so does a later submit with it."""
    _, base = workers.start_serve("--no-workers")
    [path] = tiny_pngs(tmp_path, 1)
    with faulty_proxy(base, FaultPlan(seed=3, faults=(Fault.RESET_AFTER,), rate=1.0, max_in_a_row=2)) as proxy:
        with Client(proxy.base_url, retries=FAST) as client:
            task = client.submit(path, idempotency_key="batch-7/page-1", force=True)
        assert proxy.counts[Fault.RESET_AFTER.name] == 2 and proxy.counts[FORWARDED] == 1
    with Client(base) as direct:
        assert direct.submit(path, idempotency_key="batch-7/page-1", force=True).id == task.id
    assert total_tasks(store) == 1


def test_an_unrewindable_stream_is_sent_once(store: Store, workers: Processes, tmp_path: Path) -> None:
    _, base = workers.start_serve("--no-workers")
    [path] = tiny_pngs(tmp_path, 1)
    unseekable = _Unseekable(path.read_bytes())
    with faulty_proxy(base, FaultPlan(seed=4, faults=(Fault.UNAVAILABLE,), rate=1.0, max_in_a_row=1)) as proxy:
        with Client(proxy.base_url, retries=FAST) as client, pytest.raises(ClientError):
            client.submit(unseekable, filename="piped.png")
        assert proxy.counts[Fault.UNAVAILABLE.name] == 1 and proxy.counts[FORWARDED] == 0
        with Client(proxy.base_url, retries=FAST) as client:
            assert client.submit(path).filename == path.name  # a path: the next attempt gets through
    assert total_tasks(store) == 1


class _Unseekable(io.RawIOBase):
    """A pipe's read end, as far as the client can tell."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)
