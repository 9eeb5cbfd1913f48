"""A small client for an ocrqueue server, over HTTP only (no database, no storage), sync or asyncio.

::

    from ocrqueue.client import Client

    with Client("http://ocr.example.com:8000", api_key="oq_…") as client:
        task = client.submit("scan.pdf", languages=["eng", "chi_sim"])
        for update in client.events(task.id):          # live, from the server-sent events
            print(update.status, update.progress_done, "/", update.progress_total)
        done = client.wait(task.id, timeout=600)        # or just wait
        client.download(done.id, "scan.md")             # format from the suffix: .md, .json, .pdf
        client.download(done.id, "scan.searchable.pdf")

`AsyncClient` has the same methods, awaited. Both survive the network: connection failures, 429
(after its Retry-After) and 502/503/504 are retried with jittered backoff within a deadline
(`RetryPolicy`), and a submit sends one `Idempotency-Key` with all its attempts, so it makes one
task. Errors from the server raise `ClientError` with its HTTP status, stable error code and message.
It depends on httpx alone and imports nothing else of ocrqueue, so it runs anywhere.
"""

from ocrqueue.client.aio import AsyncClient
from ocrqueue.client.calls import TERMINAL, ClientError, ResultFormat, Task, WaitTimeout, format_for
from ocrqueue.client.retries import RetryPolicy
from ocrqueue.client.sync import Client

__all__ = [
    "TERMINAL",
    "AsyncClient",
    "Client",
    "ClientError",
    "ResultFormat",
    "RetryPolicy",
    "Task",
    "WaitTimeout",
    "format_for",
]
