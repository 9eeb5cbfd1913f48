"""`ocrqueue serve`: the HTTP API and web page, with supervised worker processes unless told otherwise."""

from __future__ import annotations

from typing import Annotated

import typer
import uvicorn

from ocrqueue.api import ApiContext, create_app
from ocrqueue.api.ratelimit import RateLimiter
from ocrqueue.cli.runtime import (
    Announcer,
    LogFormatOption,
    TestKinds,
    children_log_format,
    configure_logging,
    refuse_unknown_kinds,
)
from ocrqueue.service import ServiceError
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.exposure import open_listener
from ocrqueue.service.runtime import (
    MetricsRun,
    NodeMetrics,
    Supervisor,
    default_worker_processes,
    open_tasks,
    serve_metrics,
    start_metrics_run,
    supervisor,
)
from ocrqueue.settings import Settings


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
    log_format: LogFormatOption = None,
    test_kinds: TestKinds = False,
) -> None:
    """Run the API, the web page and (unless --no-workers) workers, on the configured database.

    Workers run in child processes, one task each at a time, replaced when they grow past
    max_rss_mb or max_tasks_per_process or crash: the API never carries a document's memory, and a
    page that crashes its engine fails its task ("crashed") instead of taking the API down.

    /metrics counts the work of the worker processes too. With --log-format json every line is a
    JSON event (the access log included) carrying the request, task and worker ids it is about.

    Listening beyond loopback needs an API key first (`ocrqueue keys create`, or
    OCRQUEUE_BOOTSTRAP_API_KEY, stored hashed at start); without one serve refuses (exit 2).
    Examples: ocrqueue serve | ocrqueue serve --host 0.0.0.0 --no-workers --log-format json
    """
    settings = Settings()
    as_json = configure_logging(verbose, log_format or settings.log_format)
    announce = Announcer(as_json)
    refuse_unknown_kinds(settings, settings.worker_kinds, test_kinds)
    tasks = open_tasks(settings)
    keys = ApiKeys(settings.resolved_database_url)
    listen_host = host or settings.host
    bootstrap = settings.bootstrap_api_key.get_secret_value() if settings.bootstrap_api_key else None
    try:
        if open_listener(keys, listen_host, bootstrap, settings.bootstrap_tenant):
            announce.say(f"stored the bootstrap API key for tenant {settings.bootstrap_tenant}")
    except ServiceError as exc:
        keys.close()
        tasks.close()
        announce.say(exc.message, style="red", warning=True)
        raise typer.Exit(2) from None
    if not keys.auth_required():
        announce.say("no API key exists: local mode, nobody is asked for a key", style="yellow", warning=True)
    listen_port = port or settings.port
    supervising: Supervisor | None = None
    run: MetricsRun | None = None
    if not no_workers:
        processes = workers or default_worker_processes()
        run = start_metrics_run(settings)
        supervising = supervisor(
            tasks,
            settings,
            processes,
            1,
            settings.worker_kinds,
            verbose,
            log_format=children_log_format(as_json),
            metrics=run,
            test_kinds=test_kinds,
        )
    metrics = NodeMetrics(tasks, run)
    context = ApiContext(settings, tasks, keys, RateLimiter(settings.submit_rate_per_minute), metrics)
    serve_metrics(settings, metrics)
    if supervising is not None:
        supervising.start()
    shown = f"[{listen_host}]" if ":" in listen_host else listen_host
    announce.say(
        f"ocrqueue is running: open http://{shown}:{listen_port}/ "
        f"({'no workers' if supervising is None else f'{supervising.processes} worker processes'}, "
        f"database {tasks.backend}); Ctrl-C stops"
    )
    app = create_app(context)
    if as_json:  # uvicorn's loggers, the access log on, go through this process's JSON handler
        config = uvicorn.Config(app, host=listen_host, port=listen_port, log_level="info", log_config=None)
    else:
        config = uvicorn.Config(app, host=listen_host, port=listen_port, log_level="info", access_log=False)
    try:
        uvicorn.Server(config).run()
    finally:
        if supervising is not None:
            supervising.stop()
            supervising.wait_stopped(supervising.stop_timeout + 15)
        if run is not None:
            run.close()
        keys.close()
        tasks.close()
