"""Shared start-up for commands: logging (Rich for people or JSON lines for log shippers), the test-kinds
switch and the check of asked-for kinds."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.logging import RichHandler

from ocrqueue.service.logs import JsonFormatter, LogFormat, use_json
from ocrqueue.service.runtime import TEST_KINDS, kind_names
from ocrqueue.settings import Settings

TestKinds = Annotated[
    bool,
    typer.Option(
        "--test-kinds",
        help="For the test and chaos harness only: also run the test kinds sleep and parts, "
        "whose payloads crash, hang or write files on demand. Never on a real installation.",
    ),
]


LogFormatOption = Annotated[
    LogFormat | None,
    typer.Option(
        "--log-format",
        help="rich (for people), json (one event per line, for log shippers) or auto: rich on a terminal.",
        show_default="settings.log_format, auto",
    ),
]


def configure_logging(verbose: bool, log_format: LogFormat = "rich") -> bool:
    """Log to stderr in `log_format`; returns whether that is JSON."""
    as_json = use_json(log_format)
    handler: logging.Handler
    if as_json:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
    else:
        handler = RichHandler(show_path=False, rich_tracebacks=True)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, handlers=[handler], force=True)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    return as_json


def children_log_format(as_json: bool) -> LogFormat:
    """What supervised worker processes log in: what their parent decided, not their own guess."""
    return "json" if as_json else "rich"


class Announcer:
    """What a long-running command tells its operator (listening where, which worker): a Rich line
    on the console, or an event among the JSON log lines, so JSON output stays one event per line."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.console = Console()
        self.log = logging.getLogger("ocrqueue")

    def say(self, message: str, *, style: str | None = None, warning: bool = False) -> None:
        if self.as_json:
            self.log.log(logging.WARNING if warning else logging.INFO, "%s", message)
        else:
            self.console.print(message, style=style, markup=False, highlight=False)


def refuse_unknown_kinds(settings: Settings, kinds: Sequence[str], test_kinds: bool) -> None:
    """Exit 2 naming the kinds this installation does not run (a test kind says it needs
    --test-kinds), before a task is written or a worker that could never start is supervised."""
    known = kind_names(settings, test_kinds=test_kinds)
    unknown = [kind for kind in kinds if kind not in known]
    if not unknown:
        return
    hint = "; test kinds run only with --test-kinds" if set(unknown) & set(TEST_KINDS) else ""
    Console().print(f"[red]unknown task kind {', '.join(map(repr, unknown))}; known: {', '.join(known)}{hint}[/red]")
    raise typer.Exit(2)
