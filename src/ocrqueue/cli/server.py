"""`ocrqueue serve`: the HTTP API and web page, with embedded workers unless told otherwise."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
from typing import Annotated

import typer
import uvicorn
from rich.console import Console

from ocrqueue.api import ApiContext, create_app
from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.cli.runtime import configure_logging
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.runtime import Worker, keep_page_buffers, new_worker, open_tasks, serve_metrics, webhook_outbox
from ocrqueue.settings import Settings

console = Console()
log = logging.getLogger("ocrqueue")


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve(
    host: Annotated[str | None, typer.Option(help="Listen address.", show_default="settings.host, 127.0.0.1")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port.", show_default="settings.port, 8000")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Embedded task slots.", show_default="the number of CPUs")
    ] = None,
    no_workers: Annotated[
        bool, typer.Option("--no-workers", help="API and web page only (workers run elsewhere).")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Run the API, the web page and (unless --no-workers) workers, on the configured database.

    With no API key created the service listens on 127.0.0.1 only.
    Examples: ocrqueue serve | ocrqueue serve --host 0.0.0.0 --no-workers
    """
    configure_logging(verbose)
    settings = Settings()
    tasks = open_tasks(settings)
    keys = ApiKeys(settings.resolved_database_url)
    listen_host = host or settings.host
    if not keys.auth_required():
        asked = "" if _is_loopback(listen_host) else f", not {listen_host}"
        console.print(
            f"[yellow]no API key exists, so ocrqueue listens on 127.0.0.1 only{asked} and asks nobody for a key; "
            "create one with `ocrqueue keys create --tenant NAME` to serve other machines[/yellow]"
        )
        listen_host = "127.0.0.1"
    listen_port = port or settings.port
    context = ApiContext(settings, tasks, keys, RateLimiter(settings.submit_rate_per_minute))
    runners: list[Worker] = []
    if not no_workers:
        keep_page_buffers(settings.page_buffer_keep_mb)
        runners.append(new_worker(tasks, settings, concurrency=workers or os.cpu_count() or 1))
    serve_metrics(settings, tasks)
    for runner in runners:
        runner.start()
    shown = f"[{listen_host}]" if ":" in listen_host else listen_host
    console.print(
        f"ocrqueue is running: open http://{shown}:{listen_port}/ "
        f"({'no workers' if not runners else f'{runners[0].config.concurrency} task slots'}, "
        f"database {tasks.backend}); Ctrl-C stops"
    )
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host=listen_host, port=listen_port, log_level="info", access_log=False)
    )
    try:
        with webhook_outbox(settings, tasks.store) if runners else contextlib.nullcontext():
            server.run()
    finally:
        for runner in runners:
            runner.stop()
        for runner in runners:
            runner.wait_stopped(settings.shutdown_grace_seconds + 15)
        keys.close()
        tasks.close()
