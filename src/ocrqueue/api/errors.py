"""Every error leaves as JSON with a stable code: {"error": {"code", "message", "field"?}}."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ocrqueue.service import (
    Conflict,
    InvalidInput,
    NotConfigured,
    NotFound,
    ServiceError,
    StorageFullError,
    TooLarge,
    UnsupportedInput,
)

log = logging.getLogger(__name__)

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    503: "unavailable",
    507: "insufficient_storage",
}


_SERVICE_STATUS: dict[type[ServiceError], int] = {
    NotFound: 404,
    Conflict: 409,
    TooLarge: 413,
    UnsupportedInput: 415,
    InvalidInput: 422,
    NotConfigured: 503,
}


def service_status(exc: ServiceError) -> int:
    return next((status for kind, status in _SERVICE_STATUS.items() if isinstance(exc, kind)), 500)


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, *, field: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field, self.headers = status, code, message, field, headers


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return {"error": error}


def error_response(status: int, code: str, message: str, field: str | None = None, **kw: Any) -> JSONResponse:
    return JSONResponse(error_body(code, message, field), status_code=status, **kw)


def _validation_field(error: dict[str, Any]) -> str:
    location = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path", "header")]
    return ".".join(location) or "request"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.field, headers=exc.headers)

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return error_response(service_status(exc), exc.code, exc.message, exc.field)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"msg": "invalid request", "loc": ()}
        field = _validation_field(first)
        return error_response(422, "invalid_request", f"{field}: {first.get('msg', 'invalid')}", field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "error")
        return error_response(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))

    @app.exception_handler(StorageFullError)
    async def storage_full(request: Request, exc: StorageFullError) -> JSONResponse:
        # Nothing was kept (no partial file, no task row): the client may retry once space is freed.
        log.error("no space left on %s %s: %s", request.method, request.url.path, exc.strerror)
        return error_response(
            507, "insufficient_storage", "the server has no space left to store this; try again later"
        )

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "internal server error; the server log has the details")
