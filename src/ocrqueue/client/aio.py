"""`AsyncClient`: `Client`'s API for asyncio, on the same calls, answers and retry policy."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, Literal

import httpx

from ocrqueue.client.calls import (
    CHUNK,
    RECONNECTS,
    SSE_HEADERS,
    Call,
    ClientError,
    EventParser,
    ResultFormat,
    Task,
    WaitTimeout,
    attempt_timeout,
    cancel_call,
    check,
    delete_call,
    events_path,
    failure_of,
    followed,
    format_for,
    get_call,
    list_call,
    page_of,
    read_timeout_for,
    reopenable,
    result_call,
    retry_call,
    retry_wait,
    submit_call,
    task_of,
)
from ocrqueue.client.retries import RetryPolicy

Perform = Callable[[Call, httpx.Timeout], Awaitable[httpx.Response]]


class AsyncClient:
    """`Client` for asyncio: the same methods, awaited (`events` is an async iterator); use it as an
    async context manager or await `aclose()`. Uploads are read in chunks on the event loop's thread."""

    def __init__(
        self,
        server: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.retries = retries or RetryPolicy()
        self._rng = random.Random()
        self._http = httpx.AsyncClient(
            base_url=server.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            follow_redirects=False,
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- sending --------------------------------------------------------------------------------

    async def _send(self, call: Call, perform: Perform | None = None) -> httpx.Response:
        """As `Client._send`, awaiting the waits."""
        attempts = call.attempts(self.retries, self._rng)
        while True:
            attempts.begin()
            try:
                response = await (perform or self._request)(
                    call, attempt_timeout(self._http.timeout, attempts.remaining())
                )
            except httpx.TransportError as exc:
                failure = failure_of(exc)
                wait = None if failure is None else attempts.after(failure)
                if wait is None:
                    raise
            else:
                wait = retry_wait(attempts, response)
                if wait is None:
                    return response
            await asyncio.sleep(wait)

    async def _request(self, call: Call, timeout: httpx.Timeout) -> httpx.Response:
        with call.files() as files:
            return await self._http.request(
                call.method,
                call.path,
                params=call.params,
                data=call.data,
                files=files,
                headers=call.headers,
                timeout=timeout,
            )

    # -- tasks ----------------------------------------------------------------------------------

    async def submit(
        self,
        file: str | Path | IO[bytes],
        *,
        filename: str | None = None,
        mode: Literal["auto", "ocr", "text"] | None = None,
        engine: str | None = None,
        languages: Sequence[str] | None = None,
        dpi: int | None = None,
        pages: str | None = None,
        priority: int = 0,
        max_attempts: int | None = None,
        force: bool = False,
        callback_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Task:
        """As `Client.submit`."""
        call = submit_call(
            file, filename=filename, mode=mode, engine=engine, languages=languages, dpi=dpi, pages=pages,
            priority=priority, max_attempts=max_attempts, force=force, callback_url=callback_url,
            idempotency_key=idempotency_key,
        )  # fmt: skip
        return task_of(await self._send(call))

    async def get(self, task_id: str) -> Task:
        return task_of(await self._send(get_call(task_id)))

    async def list(self, status: Sequence[str] = (), kind: Sequence[str] = (), limit: int = 50) -> list[Task]:
        """As `Client.list`."""
        found: list[Task] = []
        cursor: str | None = None
        while len(found) < limit:
            page, cursor = page_of(await self._send(list_call(status, kind, limit - len(found), cursor)))
            found.extend(page)
            if not cursor:
                break
        return found

    async def cancel(self, task_id: str) -> Task:
        return task_of(await self._send(cancel_call(task_id)))

    async def retry(self, task_id: str) -> Task:
        return task_of(await self._send(retry_call(task_id)))

    async def delete(self, task_id: str) -> None:
        check(await self._send(delete_call(task_id)))

    # -- following ------------------------------------------------------------------------------

    async def events(self, task_id: str, *, read_timeout: float = 60.0) -> AsyncIterator[Task]:
        """As `Client.events`."""
        failures = 0
        while True:
            try:
                async for event, data in self._sse(events_path(task_id), read_timeout):
                    failures = 0
                    task = followed(event, data, task_id)
                    if task is not None:
                        yield task
                        if event == "end" or task.terminal:
                            return
            except (httpx.TransportError, ClientError) as exc:
                failures += 1
                if failures > RECONNECTS or not reopenable(exc):
                    raise
                await asyncio.sleep(self.retries.wait(failures - 1, None, self._rng))

    async def _sse(self, path: str, read_timeout: float) -> AsyncIterator[tuple[str, str]]:
        timeout = httpx.Timeout(self._http.timeout.connect, read=read_timeout)
        async with self._http.stream("GET", path, headers=SSE_HEADERS, timeout=timeout) as response:
            if response.status_code >= 400:
                await response.aread()
                check(response)
            parser = EventParser()
            async for line in response.aiter_lines():
                if (event := parser.feed(line)) is not None:
                    yield event

    async def wait(self, task_id: str, timeout: float | None = None) -> Task:
        """As `Client.wait`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last = await self.get(task_id)
        failures = 0
        while not last.terminal:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout(last, timeout or 0.0)
            try:
                async for event, data in self._sse(events_path(task_id), read_timeout_for(remaining)):
                    failures = 0
                    last = followed(event, data, task_id) or last
                    if last.terminal or (deadline is not None and time.monotonic() >= deadline):
                        break
            except httpx.ReadTimeout:
                continue
            except (httpx.TransportError, ClientError) as exc:
                if not reopenable(exc):
                    raise
                await asyncio.sleep(self.retries.wait(failures, None, self._rng))
                failures += 1
                last = await self.get(task_id)
        return last

    # -- results --------------------------------------------------------------------------------

    async def result(self, task_id: str, format: ResultFormat = "markdown") -> bytes:
        response = await self._send(result_call(task_id, format))
        check(response)
        return response.content

    async def download(self, task_id: str, path: str | Path, format: ResultFormat | None = None) -> Path:
        """As `Client.download`."""
        target = Path(path)
        partial = target.with_name(target.name + ".part")

        async def fetch(call: Call, timeout: httpx.Timeout) -> httpx.Response:
            async with self._http.stream(call.method, call.path, params=call.params, timeout=timeout) as response:
                if response.status_code >= 400:
                    await response.aread()
                    return response
                with partial.open("wb") as out:
                    async for chunk in response.aiter_bytes(CHUNK):
                        out.write(chunk)
                return response

        check(await self._send(result_call(task_id, format or format_for(target)), fetch))
        partial.replace(target)
        return target
