"""Shared start-up for commands: logging, the test-kinds switch."""

from __future__ import annotations

import logging
from typing import Annotated

import typer
from rich.logging import RichHandler

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
