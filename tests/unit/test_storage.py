from __future__ import annotations

import io
from pathlib import Path

import pytest

from ocrqueue.storage import InvalidKeyError, LocalStorage, ObjectNotFoundError, TooLargeUploadError


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "root")


def test_put_get_list_delete(storage: LocalStorage) -> None:
    storage.put("results/t1/document.json", b"{}")
    storage.put("results/t1/imgs/page-1.png", b"png")
    assert storage.get("results/t1/document.json") == b"{}"
    assert list(storage.list("results/t1")) == ["results/t1/document.json", "results/t1/imgs/page-1.png"]
    assert storage.delete_prefix("results/t1") == 2
    assert not storage.exists("results/t1/document.json")
    with pytest.raises(ObjectNotFoundError):
        storage.get("results/t1/document.json")


@pytest.mark.parametrize(
    "key", ["../etc/passwd", "/etc/passwd", "a/../../b", "a//b", ".hidden", "a/./b", "a\\b", "a\x00b", "", "a/"]
)
def test_keys_that_could_escape_the_root_are_refused(storage: LocalStorage, key: str) -> None:
    with pytest.raises(InvalidKeyError):
        storage.get(key)
    with pytest.raises(InvalidKeyError):
        storage.put(key, b"x")


def test_stream_over_the_limit_leaves_nothing_behind(storage: LocalStorage) -> None:
    with pytest.raises(TooLargeUploadError):
        storage.put_stream("uploads/big", io.BytesIO(b"x" * 3_000_000), max_bytes=2_000_000)
    assert not storage.exists("uploads/big")
    assert list(storage.list("uploads")) == []


def test_overwrite_is_atomic_replacement(storage: LocalStorage) -> None:
    storage.put("a/b", b"old")
    storage.put("a/b", b"new")
    assert storage.get("a/b") == b"new"
    assert [p.name for p in (storage.root / "a").iterdir()] == ["b"]
