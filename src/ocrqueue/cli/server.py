"""`ocrqueue serve`: the HTTP API and web page, with supervised worker processes unless told otherwise."""

from __future__ import annotations

import logging
from typing import Annotated

import typer
import uvicorn
from rich.console import Console

from ocrqueue.api import ApiContext, create_app
from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.cli.runtime import configure_logging
from ocrqueue.service import ServiceError
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.exposure import open_listener
from ocrqueue.service.runtime import Supervisor, default_worker_processes, open_tasks, serve_metrics, supervisor
from ocrqueue.settings import Settings

console = Console()
log = logging.getLogger("ocrqueue")


def serve(
    host: Annotated[str | None, typer.Option(help="Listen address.", show_default="settings.host, 127.0.0.1")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port.", show_default="settings.port, 8000")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Worker processes started under this one, one task slot each.",
            show_default="the CPUs this process may use (affinity, cgroup quota)",
        ),
    ] = None,
    no_workers: Annotated[
        bool, typer.Option("--no-workers", help="API and web page only (workers run elsewhere).")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Run the API, the web page and (unless --no-workers) workers, on the configured database.

    Workers run in child processes, one task each at a time, replaced when they grow past
    max_rss_mb or max_tasks_per_process or crash: the API never carries a document's memory, and a
    page that crashes its engine fails its task ("crashed") instead of taking the API down.

    Listening beyond loopback needs an API key first (`ocrqueue keys create`, or
    OCRQUEUE_BOOTSTRAP_API_KEY, stored hashed at start); without one serve refuses (exit 2).
    Examples: ocrqueue serve | ocrqueue serve --host 0.0.0.0 --no-workers
    """
    configure_logging(verbose)
    settings = Settings()
    tasks = open_tasks(settings)
    keys = ApiKeys(settings.resolved_database_url)
    listen_host = host or settings.host
    bootstrap = settings.bootstrap_api_key.get_secret_value() if settings.bootstrap_api_key else None
    try:
        if open_listener(keys, listen_host, bootstrap, settings.bootstrap_tenant):
            console.print(f"stored the bootstrap API key for tenant {settings.bootstrap_tenant}")
    except ServiceError as exc:
        keys.close()
        tasks.close()
        console.print(f"[red]{exc.message}[/red]", highlight=False)
        raise typer.Exit(2) from None
    if not keys.auth_required():
        console.print("[yellow]no API key exists: local mode, nobody is asked for a key[/yellow]")
    listen_port = port or settings.port
    context = ApiContext(settings, tasks, keys, RateLimiter(settings.submit_rate_per_minute))
    supervising: Supervisor | None = None
    if not no_workers:
        processes = workers or default_worker_processes()
        supervising = supervisor(tasks, settings, processes, 1, settings.worker_kinds, verbose)
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
