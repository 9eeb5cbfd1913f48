"""A directory on disk (or a shared mount for several machines)."""

from __future__ import annotations

import errno
import io
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ocrqueue.storage.base import ObjectNotFoundError, Storage, StorageFullError, TooLargeUploadError, validate_key

_CHUNK = 1 << 20
_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


def _raise_if_full(exc: OSError, key: str) -> None:
    """A full disk becomes `StorageFullError`, which the API answers with 507; other OS errors stay."""
    if exc.errno in _NO_SPACE:
        raise StorageFullError(f"no space left on the storage device for {key}") from exc


class LocalStorage(Storage):
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        path = (self.root / validate_key(key)).resolve()
        if not path.is_relative_to(self.root):
            raise ObjectNotFoundError(key)
        return path

    def put(self, key: str, data: bytes) -> None:
        self.put_stream(key, io.BytesIO(data), len(data))

    def put_stream(self, key: str, stream: BinaryIO, max_bytes: int) -> int:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        except OSError as exc:
            _raise_if_full(exc, key)
            raise
        size = 0
        try:
            with os.fdopen(fd, "wb") as handle:
                while chunk := stream.read(_CHUNK):
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLargeUploadError(max_bytes)
                    handle.write(chunk)
            os.replace(tmp, path)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                _raise_if_full(exc, key)
            raise
        return size

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError as exc:
            raise ObjectNotFoundError(key) from exc

    def iter_chunks(self, key: str, chunk_size: int = _CHUNK) -> Iterator[bytes]:
        try:
            handle = self._path(key).open("rb")
        except FileNotFoundError as exc:
            raise ObjectNotFoundError(key) from exc
        return _read_and_close(handle, chunk_size)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete_prefix(self, prefix: str) -> int:
        path = self._path(prefix)
        if path.is_file():
            path.unlink()
            return 1
        if not path.is_dir():
            return 0
        count = sum(1 for p in path.rglob("*") if p.is_file())
        shutil.rmtree(path)
        return count

    def list(self, prefix: str) -> Iterator[str]:
        base = self._path(prefix)
        if not base.is_dir():
            return
        for path in sorted(base.rglob("*")):
            if path.is_file() and not path.name.startswith(".tmp-"):
                yield path.relative_to(self.root).as_posix()


def _read_and_close(handle: BinaryIO, chunk_size: int) -> Iterator[bytes]:
    with handle:
        while chunk := handle.read(chunk_size):
            yield chunk
