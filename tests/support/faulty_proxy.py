"""A failure-injecting HTTP proxy on 127.0.0.1, between a client under test and a real server.

Each request arrives on its own connection (the proxy answers `Connection: close`). A seeded draw
decides its fate: forwarded untouched, or one of the faults a network and its gateways inflict —
429 with a Retry-After (seconds or an HTTP date), 502, 503, 504, or a TCP reset either before the
request reaches the server or after the server answered (so the server acted and the client never
heard). Faults are bounded: at most `max_faults`, none after `until_seconds`, and never more than
`max_in_a_row` in a row for one request (same method, path and Idempotency-Key), so a client that
retries always gets through. `counts` says what was done, for the test to check every fault ran.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import email.utils
import enum
import random
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from support.server import free_port
from support.waiting import wait_for

_IO_TIMEOUT = 60.0
_HOP_BY_HOP = {b"connection", b"keep-alive", b"proxy-connection"}


class Fault(enum.Enum):
    RATE_LIMITED = "429, Retry-After in seconds"
    RATE_LIMITED_UNTIL = "429, Retry-After as an HTTP date"
    BAD_GATEWAY = "502"
    UNAVAILABLE = "503"
    GATEWAY_TIMEOUT = "504"
    RESET_BEFORE = "reset before forwarding"
    RESET_AFTER = "reset after the server answered"


FORWARDED = "forwarded"
_STATUS = {
    Fault.RATE_LIMITED: b"429 Too Many Requests",
    Fault.RATE_LIMITED_UNTIL: b"429 Too Many Requests",
    Fault.BAD_GATEWAY: b"502 Bad Gateway",
    Fault.UNAVAILABLE: b"503 Service Unavailable",
    Fault.GATEWAY_TIMEOUT: b"504 Gateway Timeout",
}


@dataclass(frozen=True)
class FaultPlan:
    seed: int
    rate: float = 0.3
    """Share of requests that get a fault (while faults are left)."""
    max_faults: int = 1000
    until_seconds: float = 600.0
    max_in_a_row: int = 3
    retry_after_seconds: int = 1
    faults: tuple[Fault, ...] = tuple(Fault)


@dataclass
class _Request:
    head: bytes
    body: bytes
    key: str
    """Method, target and Idempotency-Key: what makes two attempts the same request."""


class FaultyProxy:
    """Runs on its own thread and event loop; `base_url` is what the client talks to."""

    def __init__(self, upstream_port: int, plan: FaultPlan) -> None:
        self.upstream_port = upstream_port
        self.plan = plan
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.counts: collections.Counter[str] = collections.Counter()
        self._rng = random.Random(plan.seed)
        self._streaks: collections.Counter[str] = collections.Counter()
        self._faults = 0
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._run, name="faulty-proxy", daemon=True)

    def start(self) -> None:
        self._thread.start()
        wait_for(lambda: self._server is not None, 10, 0.01, "the proxy to listen")

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _shutdown(self) -> None:
        """Stop listening and end the connections still open (a client that gave up leaves some)."""
        assert self._server is not None
        self._server.close()
        handlers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    def faults(self) -> int:
        return sum(n for name, n in self.counts.items() if name != FORWARDED)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port))
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    def _choose(self, key: str) -> Fault | None:
        """This request's fault, or None to forward it untouched."""
        with self._lock:
            plan = self.plan
            allowed = (
                self._faults < plan.max_faults
                and time.monotonic() - self._started < plan.until_seconds
                and self._streaks[key] < plan.max_in_a_row
            )
            if not allowed or self._rng.random() >= plan.rate:
                self._streaks.pop(key, None)
                self.counts[FORWARDED] += 1
                return None
            fault = self._rng.choice(plan.faults)
            self._faults += 1
            self._streaks[key] += 1
            self.counts[fault.name] += 1
            return fault

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(_read_request(reader), _IO_TIMEOUT)
            if request is None:
                return
            fault = self._choose(request.key)
            if fault is Fault.RESET_BEFORE:
                _reset(writer)
            elif fault is Fault.RESET_AFTER:
                await self._forward(request, None)
                _reset(writer)
            elif fault is not None:
                writer.write(self._refusal(fault))
                await writer.drain()
            else:
                await self._forward(request, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            _reset(writer)
        finally:
            if not writer.transport.is_closing():
                writer.close()

    def _refusal(self, fault: Fault) -> bytes:
        headers = [b"HTTP/1.1 " + _STATUS[fault], b"Content-Type: text/plain", b"Connection: close"]
        if fault is Fault.RATE_LIMITED:
            headers.append(b"Retry-After: %d" % self.plan.retry_after_seconds)
        elif fault is Fault.RATE_LIMITED_UNTIL:
            when = email.utils.formatdate(time.time() + self.plan.retry_after_seconds, usegmt=True)
            headers.append(b"Retry-After: " + when.encode())
        body = f"planted fault: {fault.value}\n".encode()
        headers.append(b"Content-Length: %d" % len(body))
        return b"\r\n".join(headers) + b"\r\n\r\n" + body

    async def _forward(self, request: _Request, client: asyncio.StreamWriter | None) -> None:
        """Send the request to the server on a fresh connection and relay its answer to `client`
        as it comes (None: read it whole and drop it)."""
        upstream_reader, upstream_writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", self.upstream_port), _IO_TIMEOUT
        )
        try:
            upstream_writer.write(request.head + request.body)
            await upstream_writer.drain()
            while chunk := await asyncio.wait_for(upstream_reader.read(1 << 16), _IO_TIMEOUT):
                if client is not None:
                    client.write(chunk)
                    await client.drain()
        finally:
            upstream_writer.close()


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    """One whole request (head and body, raw), its head rewritten to close after the answer."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None  # a connection opened and closed without a request
        raise
    request_line, *lines = head[:-4].split(b"\r\n")
    method, target, _ = request_line.decode("latin-1").split(" ", 2)
    headers = [line.split(b":", 1) for line in lines]
    named = {name.strip().lower(): value.strip() for name, value in headers}
    if named.get(b"transfer-encoding", b"").lower() == b"chunked":
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(named.get(b"content-length", b"0")))
    kept = [b"%s:%s" % (name, value) for name, value in headers if name.strip().lower() not in _HOP_BY_HOP]
    rewritten = b"\r\n".join([request_line, *kept, b"Connection: close"]) + b"\r\n\r\n"
    key = f"{method} {target} {named.get(b'idempotency-key', b'').decode('latin-1')}"
    return _Request(rewritten, body, key)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body as it came (sizes and trailer included), to forward unchanged."""
    raw = bytearray()
    while True:
        size_line = await reader.readuntil(b"\r\n")
        raw += size_line
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while (trailer := await reader.readuntil(b"\r\n")) != b"\r\n":
                raw += trailer
            raw += b"\r\n"
            return bytes(raw)
        raw += await reader.readexactly(size + 2)


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST (SO_LINGER 0), as a crashed peer or a middlebox dropping state would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


@contextlib.contextmanager
def faulty_proxy(upstream_base: str, plan: FaultPlan) -> Iterator[FaultyProxy]:
    """A proxy in front of `upstream_base` (http://127.0.0.1:PORT) until the block ends."""
    proxy = FaultyProxy(int(upstream_base.rsplit(":", 1)[1]), plan)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
