"""Where uploads, page images and results live: behind one interface, addressed by keys we make."""

from ocrqueue.storage.base import (
    InvalidKeyError,
    ObjectNotFoundError,
    Storage,
    StorageFullError,
    TooLargeUploadError,
    validate_key,
)
from ocrqueue.storage.local import LocalStorage

__all__ = [
    "InvalidKeyError",
    "LocalStorage",
    "ObjectNotFoundError",
    "Storage",
    "StorageFullError",
    "TooLargeUploadError",
    "validate_key",
]
