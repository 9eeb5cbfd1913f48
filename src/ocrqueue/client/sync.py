"""`Client`: the synchronous client (see the package docstring)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
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


class Client:
    """One connection pool to one server; use it as a context manager or call `close()`.

    Every call is retried under `retries` (see `RetryPolicy`: 8 attempts within 300 s by default)."""

    def __init__(
        self,
        server: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.retries = retries or RetryPolicy()
        self._rng = random.Random()
        self._http = httpx.Client(
            base_url=server.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            follow_redirects=False,
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- sending --------------------------------------------------------------------------------

    def _send(
        self, call: Call, perform: Callable[[Call, httpx.Timeout], httpx.Response] | None = None
    ) -> httpx.Response:
        """The answer to `call`, tried again while the retry policy allows; raises the last
        transport error when it gives up, or returns the last (retryable) answer."""
        attempts = call.attempts(self.retries, self._rng)
        while True:
            attempts.begin()
            try:
                response = (perform or self._request)(call, attempt_timeout(self._http.timeout, attempts.remaining()))
            except httpx.TransportError as exc:
                failure = failure_of(exc)
                wait = None if failure is None else attempts.after(failure)
                if wait is None:
                    raise
            else:
                wait = retry_wait(attempts, response)
                if wait is None:
                    return response
            time.sleep(wait)

    def _request(self, call: Call, timeout: httpx.Timeout) -> httpx.Response:
        with call.files() as files:
            return self._http.request(
                call.method,
                call.path,
                params=call.params,
                data=call.data,
                files=files,
                headers=call.headers,
                timeout=timeout,
            )

    # -- tasks ----------------------------------------------------------------------------------

    def submit(
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
        """Upload a PDF or image for OCR (streamed, never read whole; sent again from its start on a
        retry): the new task, or the existing one when the server already has this file with these
        options (unless `force`). `pages` reads only those pages, numbered from 1 (e.g. "1-5,9").
        Every attempt carries one `Idempotency-Key` (yours, or a new one): one task, however often
        the request arrives."""
        call = submit_call(
            file, filename=filename, mode=mode, engine=engine, languages=languages, dpi=dpi, pages=pages,
            priority=priority, max_attempts=max_attempts, force=force, callback_url=callback_url,
            idempotency_key=idempotency_key,
        )  # fmt: skip
        return task_of(self._send(call))

    def get(self, task_id: str) -> Task:
        return task_of(self._send(get_call(task_id)))

    def list(self, status: Sequence[str] = (), kind: Sequence[str] = (), limit: int = 50) -> list[Task]:
        """The newest tasks first, up to `limit` (following the server's pages)."""
        found: list[Task] = []
        cursor: str | None = None
        while len(found) < limit:
            page, cursor = page_of(self._send(list_call(status, kind, limit - len(found), cursor)))
            found.extend(page)
            if not cursor:
                break
        return found

    def cancel(self, task_id: str) -> Task:
        return task_of(self._send(cancel_call(task_id)))

    def retry(self, task_id: str) -> Task:
        return task_of(self._send(retry_call(task_id)))

    def delete(self, task_id: str) -> None:
        check(self._send(delete_call(task_id)))

    # -- following ------------------------------------------------------------------------------

    def events(self, task_id: str, *, read_timeout: float = 60.0) -> Iterator[Task]:
        """The task on every change, from the server-sent events, ending with it in its terminal state.
        A dropped or refused (429, 502-504) stream is opened again after a jittered wait (the server
        sends the current state first); after `RECONNECTS` failed tries in a row the error is raised."""
        failures = 0
        while True:
            try:
                for event, data in self._sse(events_path(task_id), read_timeout):
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
                time.sleep(self.retries.wait(failures - 1, None, self._rng))

    def _sse(self, path: str, read_timeout: float) -> Iterator[tuple[str, str]]:
        """(event, data) for each event of the stream, and ("keep-alive", "") for each comment line."""
        timeout = httpx.Timeout(self._http.timeout.connect, read=read_timeout)
        with self._http.stream("GET", path, headers=SSE_HEADERS, timeout=timeout) as response:
            if response.status_code >= 400:
                response.read()
                check(response)
            parser = EventParser()
            for line in response.iter_lines():
                if (event := parser.feed(line)) is not None:
                    yield event

    def wait(self, task_id: str, timeout: float | None = None) -> Task:
        """Block until the task ends (told by its event stream) and return it; WaitTimeout after `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last = self.get(task_id)
        failures = 0
        while not last.terminal:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout(last, timeout or 0.0)
            try:
                for event, data in self._sse(events_path(task_id), read_timeout_for(remaining)):
                    failures = 0
                    last = followed(event, data, task_id) or last
                    if last.terminal or (deadline is not None and time.monotonic() >= deadline):
                        break
            except httpx.ReadTimeout:
                continue  # quiet for read_timeout: the loop checks the deadline and listens again
            except (httpx.TransportError, ClientError) as exc:
                if not reopenable(exc):
                    raise
                time.sleep(self.retries.wait(failures, None, self._rng))
                failures += 1
                last = self.get(task_id)
        return last

    # -- results --------------------------------------------------------------------------------

    def result(self, task_id: str, format: ResultFormat = "markdown") -> bytes:
        """A completed OCR task's result in memory; use `download` for big ones."""
        response = self._send(result_call(task_id, format))
        check(response)
        return response.content

    def download(self, task_id: str, path: str | Path, format: ResultFormat | None = None) -> Path:
        """Stream a completed OCR task's result to `path` (format from its suffix unless given);
        the file appears whole or not at all (a broken transfer starts again from the beginning)."""
        target = Path(path)
        partial = target.with_name(target.name + ".part")

        def fetch(call: Call, timeout: httpx.Timeout) -> httpx.Response:
            with self._http.stream(call.method, call.path, params=call.params, timeout=timeout) as response:
                if response.status_code >= 400:
                    response.read()
                    return response
                with partial.open("wb") as out:
                    for chunk in response.iter_bytes(CHUNK):
                        out.write(chunk)
                return response

        check(self._send(result_call(task_id, format or format_for(target)), fetch))
        partial.replace(target)
        return target
