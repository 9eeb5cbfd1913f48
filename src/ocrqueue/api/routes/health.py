"""/healthz (the process answers), /readyz (database reachable, schema current), /metrics.

/readyz also reports the model server's circuit breaker (`checks.model_server`: the worst of this
process's and the worker processes' reports in the database) without letting it decide readiness:
this process still accepts uploads and serves results while the model server is down, and tasks
that need it wait (deferred) until it is back.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST

from ocrqueue.api.context import ApiContext
from ocrqueue.service.metrics import NodeMetrics
from ocrqueue.service.schema import schemas_current

router = APIRouter(tags=["health"])
_SCHEMA_CHECK_SECONDS = 30.0
_schema_checked: dict[str, tuple[float, bool]] = {}
_schema_lock = threading.Lock()


def _schemas_current(database_url: str) -> bool:
    """Asks Alembic at most every 30 s: readiness probes come often, upgrades rarely."""
    with _schema_lock:
        cached = _schema_checked.get(database_url)
        if cached and time.monotonic() - cached[0] < _SCHEMA_CHECK_SECONDS:
            return cached[1]
    current = schemas_current(database_url)
    with _schema_lock:
        _schema_checked[database_url] = (time.monotonic(), current)
    return current


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up. No database access, no auth."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "not ready; the body says why"}})
def readyz(request: Request) -> JSONResponse:
    """Ready to serve: the database answers and both schemas are at their newest revision."""
    context: ApiContext = request.app.state.context
    checks: dict[str, Any] = {}
    try:
        context.tasks.ping()
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
    if checks["database"] == "ok":
        current = _schemas_current(context.settings.resolved_database_url)
        checks["migrations"] = "current" if current else "behind: run `ocrqueue db upgrade`"
    checks["model_server"] = context.tasks.model_server()
    ready = all(value in ("ok", "current") for name, value in checks.items() if name != "model_server")
    return JSONResponse(
        {"status": "ready" if ready else "not_ready", "checks": checks}, status_code=200 if ready else 503
    )


@router.get("/metrics", response_class=Response)
def metrics(request: Request) -> Response:
    """Prometheus metrics of this node: this process, its worker processes, the queue depth by kind
    and status, the model server's breaker (docs/operations.md)."""
    node: NodeMetrics = request.app.state.metrics
    return Response(node.exposition(), media_type=CONTENT_TYPE_LATEST)
