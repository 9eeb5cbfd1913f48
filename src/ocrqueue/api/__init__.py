"""The HTTP API (FastAPI): validation, auth, limits, and nothing a worker needs."""

from ocrqueue.api.app import create_app
from ocrqueue.api.context import ApiContext

__all__ = ["ApiContext", "create_app"]
