"""The storage interface. Keys are built by ocrqueue itself (never taken from a client) and are
checked anyway, so no key can name anything outside the storage root."""

from __future__ import annotations

import abc
import errno
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_KEY = re.compile(r"^[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_\-][A-Za-z0-9_.\-]*)*$")


class InvalidKeyError(ValueError):
    pass


class ObjectNotFoundError(KeyError):
    pass


def validate_key(key: str) -> str:
    """Slash-separated segments of letters, digits, `_`, `-` and `.`; no `..`, no leading dot or slash."""
    if len(key) > 512 or not _KEY.match(key) or any(part in (".", "..") for part in key.split("/")):
        raise InvalidKeyError(f"invalid storage key {key!r}")
    return key


class Storage(abc.ABC):
    @abc.abstractmethod
    def put(self, key: str, data: bytes) -> None:
        """Write atomically: readers see the old object or the new one, never a part."""

    @abc.abstractmethod
    def put_stream(self, key: str, stream: BinaryIO, max_bytes: int) -> int:
        """Copy a stream in chunks, refusing more than `max_bytes`; returns the size written."""

    def put_file(self, key: str, path: Path) -> int:
        """Copy a local file in chunks (a multipart upload on S3); returns the size written."""
        with path.open("rb") as handle:
            return self.put_stream(key, handle, max(1, path.stat().st_size))

    @abc.abstractmethod
    def get(self, key: str) -> bytes: ...

    @abc.abstractmethod
    def iter_chunks(self, key: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        """The object's bytes, a chunk at a time, so a large result never sits whole in memory.
        Raises ObjectNotFoundError before yielding anything when the object does not exist."""

    def download(self, key: str, directory: Path) -> Path:
        """Copy the object to a new file in `directory` (a spool file its caller deletes)."""
        chunks = self.iter_chunks(key)
        fd, name = tempfile.mkstemp(dir=directory, prefix="spool-")
        try:
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Path(name)

    @abc.abstractmethod
    def exists(self, key: str) -> bool: ...

    @abc.abstractmethod
    def delete_prefix(self, prefix: str) -> int:
        """Delete every object under `prefix/`; returns how many."""

    @abc.abstractmethod
    def list(self, prefix: str) -> Iterator[str]: ...


class TooLargeUploadError(ValueError):
    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"upload is larger than the limit of {max_bytes} bytes")
        self.max_bytes = max_bytes


class StorageFullError(OSError):
    """No space left for an upload or a result: on the storage's disk (ENOSPC, EDQUOT), or for a
    submit, in the database. An `OSError` with errno ENOSPC, so the task queue retries a worker's
    write as a transient failure, and the API answers 507 instead of a bare 500."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.ENOSPC, message)
