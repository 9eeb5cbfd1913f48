"""The load benchmark's HTTP client (bench/load.py) against a server that closes a kept-alive
connection left idle, as uvicorn does after 5 s: a client that followed its task by events on
another connection came back to a closed one, and its GET of the result failed with
"IncompleteReadError: 0 bytes read" (CI under load). A GET that gets not one byte back on a
reused connection is sent again on a new one; a POST is not (it may have been done).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from support.bench_scripts import load_bench_script

IDLE_CLOSE = 0.05  # seconds the server keeps an idle connection


load = load_bench_script("load")


def _server(closed: asyncio.Event) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
    """A handler that answers each request with "ok", kept alive, and closes the connection once
    it sits idle ``IDLE_CLOSE``, then sets ``closed``."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                async with asyncio.timeout(IDLE_CLOSE):
                    head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    ),
                    0,
                )
                await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError):
            writer.close()
            await writer.wait_closed()
            closed.set()

    return serve


async def _twice(method: str) -> tuple[int, bytes]:
    closed = asyncio.Event()
    server = await asyncio.start_server(_server(closed), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = load.Connection("127.0.0.1", port, timeout=5)
    try:
        assert await conn.request(method, "/first") == (200, b"ok")
        async with asyncio.timeout(5):
            await closed.wait()  # the server has closed the kept-alive connection
        return await conn.request(method, "/second")
    finally:
        conn.close()
        server.close()
        await server.wait_closed()


def test_a_get_on_a_connection_the_server_closed_while_idle_is_sent_again() -> None:
    assert asyncio.run(_twice("GET")) == (200, b"ok")


def test_a_post_on_a_connection_the_server_closed_while_idle_is_not() -> None:
    with pytest.raises(load.RequestFailed):
        asyncio.run(_twice("POST"))
