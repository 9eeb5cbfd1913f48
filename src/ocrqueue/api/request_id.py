"""Every request gets an id: the client's `X-Request-ID` when it is well-formed, else a new one.

It is returned in the response's `X-Request-ID`, carried by every log line of the request (the
access line too), and handed to the service by the routes that submit, cancel or retry a task,
which records it on the task's event: one id ties the client's call, the API's lines and the task.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ocrqueue.service.logs import REQUEST_ID_HEADER, accepted_request_id, bound_request_id

_STATE_KEY = "request_id"


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = next(
            (value for name, value in scope.get("headers", []) if name == REQUEST_ID_HEADER.lower().encode()), None
        )
        request_id = accepted_request_id(raw.decode("latin-1") if raw is not None else None)
        scope.setdefault("state", {})[_STATE_KEY] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        with bound_request_id(request_id):
            await self.app(scope, receive, send_with_id)


async def request_id(request: Request) -> str:
    """The id `RequestIdMiddleware` gave this request (async: no threadpool hop for a lookup)."""
    value: str = request.state.request_id
    return value


RequestIdDep = Annotated[str, Depends(request_id)]
