"""Shared start-up for commands: logging."""

from __future__ import annotations

import logging

from rich.logging import RichHandler


def configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(name)s: %(message)s",
        handlers=[RichHandler(show_path=False, rich_tracebacks=True)],
        force=True,
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)
