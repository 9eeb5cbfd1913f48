"""The FastAPI application: API under /api/v1, health and metrics, the web page at /."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from ocrqueue import __version__
from ocrqueue.api.body_limit import BodyLimitMiddleware
from ocrqueue.api.context import ApiContext
from ocrqueue.api.errors import install_error_handlers
from ocrqueue.api.request_id import RequestIdMiddleware
from ocrqueue.api.routes import convert, health, tasks, vision
from ocrqueue.service.engines import configure_vlm
from ocrqueue.service.live import Live
from ocrqueue.service.metrics import NodeMetrics

STATIC_DIR = Path(__file__).with_name("static")
_MULTIPART_OVERHEAD = 1 << 20


def freeze_startup_objects() -> None:
    """Take every object that exists once the app is built out of the cyclic garbage collector's
    sight: the modules, routes and models (about 200,000 objects here) live as long as the process.

    Without it each full (generation 2) collection walked them all again: every 5-6 s under load it
    stopped the API for 100-200 ms with the GIL held, and every request in flight waited, which was
    the whole status-read p99 in bench/load.py (docs/chaos.md, "HTTP load benchmark"). Garbage is
    collected first so that none is frozen; objects made later are collected as before."""
    gc.collect()
    gc.freeze()


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    freeze_startup_objects()
    yield
    app.state.live.close()


def create_app(context: ApiContext) -> FastAPI:
    app = FastAPI(
        lifespan=_lifespan,
        title="ocrqueue",
        version=__version__,
        description="Self-hosted document OCR on a durable task queue. Errors are JSON: "
        '{"error": {"code": "...", "message": "...", "field": "..."}}.',
    )
    app.state.context = context
    app.state.live = Live(context.tasks)
    app.state.metrics = context.metrics or NodeMetrics(context.tasks)
    configure_vlm(context.settings.vlm_config())  # the `vlm` engine is then a valid choice on submit
    install_error_handlers(app)
    app.include_router(tasks.router)
    app.include_router(convert.router)
    app.include_router(vision.router)
    app.include_router(health.router)
    app.add_middleware(BodyLimitMiddleware, max_bytes=context.settings.max_upload_bytes + _MULTIPART_OVERHEAD)
    if context.settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=context.settings.cors_origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Request-ID"],
            expose_headers=["X-Request-ID"],
        )
    app.add_middleware(RequestIdMiddleware)  # outermost: even a refused body gets its id
    app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="web")
    return app
