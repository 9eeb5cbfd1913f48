"""Shared start-up for commands: logging, the test-kinds switch and the check of asked-for kinds."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.logging import RichHandler

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


def configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(name)s: %(message)s",
        handlers=[RichHandler(show_path=False, rich_tracebacks=True)],
        force=True,
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)


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
