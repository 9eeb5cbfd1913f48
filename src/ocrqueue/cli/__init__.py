"""The `ocrqueue` command line."""

from ocrqueue.cli.app import app, main

__all__ = ["app", "main"]
