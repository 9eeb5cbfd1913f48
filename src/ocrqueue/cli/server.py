"""`ocrqueue serve`: the HTTP API and web page, with supervised worker processes unless told otherwise."""

from __future__ import annotations

import ipaddress
import logging
import os
from typing import Annotated

import typer
import uvicorn
from rich.console import Console

from ocrqueue.api import ApiContext, create_app
from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.cli.runtime import TestKinds, configure_logging, refuse_unknown_kinds
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.runtime import Supervisor, open_tasks, serve_metrics, supervisor
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
        int | None,
        typer.Option(
            min=1,
            help="Worker processes started under this one, one task slot each.",
            show_default="the number of CPUs",
        ),
    ] = None,
    no_workers: Annotated[
        bool, typer.Option("--no-workers", help="API and web page only (workers run elsewhere).")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
    test_kinds: TestKinds = False,
) -> None:
    """Run the API, the web page and (unless --no-workers) workers, on the configured database.

    Workers run in child processes, one task each at a time, replaced when they grow past
    max_rss_mb or max_tasks_per_process or crash: the API never carries a document's memory, and a
    page that crashes its engine fails its task ("crashed") instead of taking the API down.

    With no API key created the service listens on 127.0.0.1 only.
    Examples: ocrqueue serve | ocrqueue serve --host 0.0.0.0 --no-workers
    """
    configure_logging(verbose)
    settings = Settings()
    refuse_unknown_kinds(settings, settings.worker_kinds, test_kinds)
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
    supervising: Supervisor | None = None
    if not no_workers:
        processes = workers or os.cpu_count() or 1
        supervising = supervisor(tasks, settings, processes, 1, settings.worker_kinds, verbose, test_kinds=test_kinds)
    serve_metrics(settings, tasks)
    if supervising is not None:
        supervising.start()
    shown = f"[{listen_host}]" if ":" in listen_host else listen_host
    console.print(
        f"ocrqueue is running: open http://{shown}:{listen_port}/ "
        f"({'no workers' if supervising is None else f'{supervising.processes} worker processes'}, "
        f"database {tasks.backend}); Ctrl-C stops"
    )
    server = uvicorn.Server(
        uvicorn.Config(create_app(context), host=listen_host, port=listen_port, log_level="info", access_log=False)
    )
    try:
        server.run()
    finally:
        if supervising is not None:
            supervising.stop()
            supervising.wait_stopped(supervising.stop_timeout + 15)
        keys.close()
        tasks.close()
