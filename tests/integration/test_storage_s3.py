"""The storage contract on both implementations (a directory and S3), plus what only S3 has.

S3 runs against a real S3-compatible HTTP server (moto in server mode on 127.0.0.1), a bucket per test.
"""

from __future__ import annotations

import io
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import botocore.exceptions
import pytest
from support.s3server import ACCESS_KEY, REGION, SECRET_KEY, S3Server, s3_server

from ocrqueue.queue.errors import ErrorKind, classify
from ocrqueue.storage import InvalidKeyError, LocalStorage, ObjectNotFoundError, Storage, TooLargeUploadError
from ocrqueue.storage.s3 import (
    MIN_PART_SIZE,
    S3Storage,
    S3StorageError,
    S3UnavailableError,
    _translate,
    open_storage_url,
)

MB = 1024 * 1024


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
def bucket(s3: S3Server) -> str:
    return s3.new_bucket()


def _s3_storage(s3: S3Server, bucket: str, **extra: Any) -> S3Storage:
    return S3Storage(**s3.storage_kwargs(bucket, part_size=MIN_PART_SIZE, **extra))


@pytest.fixture(params=["local", "s3", "s3-prefixed"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    if request.param == "local":
        return LocalStorage(tmp_path / "root")
    s3: S3Server = request.getfixturevalue("s3")
    bucket: str = request.getfixturevalue("bucket")
    return _s3_storage(s3, bucket, prefix="tenant/a" if request.param == "s3-prefixed" else "")


class _Calls:
    """Counts S3 operations a storage's client makes, by name (CreateMultipartUpload, UploadPart, …)."""

    def __init__(self, storage: S3Storage) -> None:
        self.counts: dict[str, int] = {}
        storage.client.meta.events.register("before-call.s3", self._seen)

    def _seen(self, model: Any, **_: Any) -> None:
        self.counts[model.name] = self.counts.get(model.name, 0) + 1


# --- the contract, on every implementation ---------------------------------------------------------


def test_put_get_list_delete(storage: Storage) -> None:
    storage.put("results/t1/document.json", b"{}")
    storage.put("results/t1/imgs/page-1.png", b"png")
    storage.put("results/t2/document.json", b"other")
    assert storage.get("results/t1/document.json") == b"{}"
    assert storage.exists("results/t1/document.json")
    assert list(storage.list("results/t1")) == ["results/t1/document.json", "results/t1/imgs/page-1.png"]
    assert storage.delete_prefix("results/t1") == 2
    assert not storage.exists("results/t1/document.json")
    assert list(storage.list("results/t1")) == []
    assert storage.get("results/t2/document.json") == b"other"
    with pytest.raises(ObjectNotFoundError):
        storage.get("results/t1/document.json")


def test_missing_key_is_object_not_found(storage: Storage) -> None:
    with pytest.raises(ObjectNotFoundError):
        storage.get("uploads/never-written")
    assert not storage.exists("uploads/never-written")
    assert list(storage.list("uploads")) == []
    assert storage.delete_prefix("uploads") == 0


def test_list_does_not_match_a_longer_sibling(storage: Storage) -> None:
    storage.put("results/t1/document.md", b"a")
    storage.put("results/t10/document.md", b"b")
    assert list(storage.list("results/t1")) == ["results/t1/document.md"]
    assert storage.delete_prefix("results/t1") == 1
    assert storage.exists("results/t10/document.md")


@pytest.mark.parametrize(
    "key", ["../etc/passwd", "/etc/passwd", "a/../../b", "a//b", ".hidden", "a/./b", "a\\b", "a\x00b", "", "a/"]
)
def test_keys_that_could_escape_the_root_are_refused(storage: Storage, key: str) -> None:
    with pytest.raises(InvalidKeyError):
        storage.get(key)
    with pytest.raises(InvalidKeyError):
        storage.put(key, b"x")
    with pytest.raises(InvalidKeyError):
        storage.put_stream(key, io.BytesIO(b"x"), 10)
    with pytest.raises(InvalidKeyError):
        storage.exists(key)
    with pytest.raises(InvalidKeyError):
        storage.delete_prefix(key)
    with pytest.raises(InvalidKeyError):
        list(storage.list(key))


def test_stream_round_trip_returns_its_size(storage: Storage) -> None:
    data = os.urandom(300_000)
    assert storage.put_stream("uploads/abc", io.BytesIO(data), max_bytes=len(data)) == len(data)
    assert storage.get("uploads/abc") == data
    assert storage.put_stream("uploads/empty", io.BytesIO(b""), max_bytes=0) == 0
    assert storage.get("uploads/empty") == b""


def test_files_go_in_and_come_out_in_chunks(storage: Storage, tmp_path: Path) -> None:
    data = os.urandom(6 * MB + 123)  # more than one S3 part
    source = tmp_path / "result.json"
    source.write_bytes(data)
    assert storage.put_file("results/t/document.json", source) == len(data)
    chunks = list(storage.iter_chunks("results/t/document.json", chunk_size=MB))
    assert max(len(c) for c in chunks) <= MB and b"".join(chunks) == data
    spool = tmp_path / "spool"
    spool.mkdir()
    spooled = storage.download("results/t/document.json", spool)
    assert spooled.parent == spool and spooled.read_bytes() == data
    with pytest.raises(ObjectNotFoundError):
        storage.iter_chunks("results/t/missing.json")
    with pytest.raises(ObjectNotFoundError):
        storage.download("results/t/missing.json", spool)
    assert list(spool.iterdir()) == [spooled]


def test_stream_over_the_limit_leaves_nothing_behind(storage: Storage) -> None:
    with pytest.raises(TooLargeUploadError):
        storage.put_stream("uploads/big", io.BytesIO(b"x" * 3_000_000), max_bytes=2_000_000)
    assert not storage.exists("uploads/big")
    assert list(storage.list("uploads")) == []


def test_overwrite_replaces_the_object(storage: Storage) -> None:
    storage.put("a/b", b"old")
    storage.put("a/b", b"new")
    assert storage.get("a/b") == b"new"
    assert list(storage.list("a")) == ["a/b"]


@pytest.mark.parametrize("storage", ["local", "s3-prefixed"], indirect=True)  # each S3 request costs ms
def test_list_and_delete_prefix_page_through_more_than_1000_objects(storage: Storage) -> None:
    keys = [f"results/many/imgs/p-{i:05d}.png" for i in range(1003)]
    with ThreadPoolExecutor(16) as pool:  # also: one storage (one client) shared by threads
        list(pool.map(lambda key: storage.put(key, b"."), keys))
    storage.put("results/other/document.json", b"{}")
    assert list(storage.list("results/many")) == keys
    assert storage.delete_prefix("results/many") == len(keys)
    assert list(storage.list("results/many")) == []
    assert list(storage.list("results")) == ["results/other/document.json"]


# --- S3 only ---------------------------------------------------------------------------------------


def test_multipart_streaming_of_a_12_mb_upload(s3: S3Server, bucket: str) -> None:
    storage = _s3_storage(s3, bucket)
    calls = _Calls(storage)
    data = os.urandom(12 * MB)
    assert storage.put_stream("uploads/large", io.BufferedReader(io.BytesIO(data)), max_bytes=20 * MB) == len(data)
    assert calls.counts.get("CreateMultipartUpload") == 1
    assert calls.counts.get("UploadPart") == 3  # 5 MB + 5 MB + 2 MB
    assert calls.counts.get("CompleteMultipartUpload") == 1
    assert "PutObject" not in calls.counts
    assert storage.get("uploads/large") == data
    assert s3.client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_a_stream_of_exactly_whole_parts_uploads_no_empty_part(s3: S3Server, bucket: str) -> None:
    storage = _s3_storage(s3, bucket)
    calls = _Calls(storage)
    data = os.urandom(2 * MIN_PART_SIZE)
    assert storage.put_stream("uploads/even", io.BytesIO(data), max_bytes=len(data)) == len(data)
    assert calls.counts.get("UploadPart") == 2
    assert storage.get("uploads/even") == data


def test_over_the_limit_aborts_the_multipart_upload(s3: S3Server, bucket: str) -> None:
    storage = _s3_storage(s3, bucket)
    calls = _Calls(storage)
    with pytest.raises(TooLargeUploadError):
        storage.put_stream("uploads/big", io.BytesIO(b"x" * (12 * MB)), max_bytes=7 * MB)
    assert calls.counts.get("CreateMultipartUpload") == 1  # the limit was passed after a part went up
    assert calls.counts.get("AbortMultipartUpload") == 1
    assert "CompleteMultipartUpload" not in calls.counts
    raw = s3.client
    assert raw.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert raw.list_objects_v2(Bucket=bucket).get("KeyCount") == 0
    assert not storage.exists("uploads/big")


class _FailingStream(io.RawIOBase):
    """Gives `good` bytes, then fails like a client that hung up mid-upload."""

    def __init__(self, good: int) -> None:
        self.left = good

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left <= 0:
            raise ConnectionResetError("client went away")
        n = min(len(buffer), self.left)
        buffer[:n] = b"y" * n
        self.left -= n
        return n


def test_a_failing_stream_aborts_the_multipart_upload(s3: S3Server, bucket: str) -> None:
    storage = _s3_storage(s3, bucket)
    with pytest.raises(ConnectionResetError):
        storage.put_stream("uploads/cut", io.BufferedReader(_FailingStream(7 * MB)), max_bytes=20 * MB)
    raw = s3.client
    assert raw.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert not storage.exists("uploads/cut")


def test_large_put_goes_through_multipart(s3: S3Server, bucket: str) -> None:
    storage = _s3_storage(s3, bucket)
    calls = _Calls(storage)
    data = os.urandom(MIN_PART_SIZE + 10)
    storage.put("results/t/imgs/huge.png", data)
    assert calls.counts.get("UploadPart") == 2
    assert storage.get("results/t/imgs/huge.png") == data


def test_prefix_keeps_installations_apart_in_one_bucket(s3: S3Server, bucket: str) -> None:
    first = _s3_storage(s3, bucket, prefix="/one/")
    second = _s3_storage(s3, bucket, prefix="two")
    first.put("uploads/x", b"1")
    second.put("uploads/x", b"2")
    assert first.get("uploads/x") == b"1"
    assert list(first.list("uploads")) == ["uploads/x"]
    keys = [item["Key"] for item in s3.client.list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == ["one/uploads/x", "two/uploads/x"]
    assert first.delete_prefix("uploads") == 1
    assert second.get("uploads/x") == b"2"


@pytest.mark.parametrize("prefix", ["../up", "a//b", ".x"])
def test_an_invalid_prefix_is_refused(s3: S3Server, prefix: str) -> None:
    with pytest.raises(InvalidKeyError):
        S3Storage(**s3.storage_kwargs("some-bucket", prefix=prefix))


def test_small_parts_are_refused(s3: S3Server) -> None:
    with pytest.raises(ValueError, match="part_size"):
        S3Storage(**s3.storage_kwargs("some-bucket", part_size=MB))


def test_missing_bucket_is_a_storage_error_not_a_missing_object(s3: S3Server) -> None:
    storage = S3Storage(**s3.storage_kwargs("no-such-bucket-here"))
    with pytest.raises(S3StorageError) as caught:
        storage.get("uploads/x")
    assert not isinstance(caught.value, ObjectNotFoundError | S3UnavailableError)
    assert caught.value.code == "NoSuchBucket"


def test_unreachable_server_is_transient_for_the_queue(s3: S3Server) -> None:
    with socket.socket() as bound_not_listening:  # connections to it are refused at once
        bound_not_listening.bind(("127.0.0.1", 0))
        port = bound_not_listening.getsockname()[1]
        storage = S3Storage(
            "bucket",
            endpoint_url=f"http://127.0.0.1:{port}",
            region=REGION,
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            max_attempts=1,
            session=s3.session,
        )
        with pytest.raises(S3UnavailableError) as caught:
            storage.put("uploads/x", b"x")
    assert isinstance(caught.value, ConnectionError)
    assert classify(caught.value).kind is ErrorKind.TRANSIENT


def _client_error(status: int, code: str) -> botocore.exceptions.ClientError:
    return botocore.exceptions.ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}, "PutObject"
    )


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (503, "SlowDown", True),
        (500, "InternalError", True),
        (429, "TooManyRequests", True),
        (400, "RequestTimeout", True),
        (403, "AccessDenied", False),
        (404, "NoSuchBucket", False),
    ],
)
def test_server_errors_are_classified_by_type(status: int, code: str, retryable: bool) -> None:
    error = _translate(_client_error(status, code), "put x")
    assert isinstance(error, S3UnavailableError) is retryable
    assert (error.code, error.status) == (code, status)
    assert (classify(error).kind is ErrorKind.TRANSIENT) is retryable


def test_botocore_retries_in_standard_mode(s3: S3Server, bucket: str) -> None:
    retries = _s3_storage(s3, bucket, max_attempts=4).client.meta.config.retries
    assert retries is not None
    assert retries["mode"] == "standard"
    assert retries.get("total_max_attempts", retries.get("max_attempts")) == 4


# --- open_storage_url ------------------------------------------------------------------------------


def test_url_names_an_s3_bucket_prefix_endpoint_and_region() -> None:
    storage = open_storage_url(
        "s3://ocr-bucket/prod/ocr?endpoint=http://127.0.0.1:9000&region=eu-central-1", Path("/unused")
    )
    assert isinstance(storage, S3Storage)
    assert (storage.bucket, storage.prefix) == ("ocr-bucket", "prod/ocr")
    assert storage.client.meta.endpoint_url == "http://127.0.0.1:9000"
    assert storage.client.meta.region_name == "eu-central-1"
    assert storage.client.meta.config.s3 == {"addressing_style": "path"}


def test_url_without_endpoint_is_aws_with_botocore_addressing() -> None:
    storage = open_storage_url("s3://ocr-bucket?region=us-west-2&addressing=virtual", Path("/unused"))
    assert isinstance(storage, S3Storage)
    assert storage.prefix == ""
    assert "amazonaws.com" in storage.client.meta.endpoint_url
    assert storage.client.meta.config.s3 == {"addressing_style": "virtual"}


def test_empty_url_file_url_and_path_are_directories(tmp_path: Path) -> None:
    default = open_storage_url("", tmp_path / "default")
    assert isinstance(default, LocalStorage) and default.root == (tmp_path / "default").resolve()
    by_url = open_storage_url(f"file://{tmp_path}/by-url", tmp_path / "default")
    assert isinstance(by_url, LocalStorage) and by_url.root == (tmp_path / "by-url").resolve()
    by_path = open_storage_url(str(tmp_path / "plain"), tmp_path / "default")
    assert isinstance(by_path, LocalStorage) and by_path.root == (tmp_path / "plain").resolve()


@pytest.mark.parametrize(
    ("url", "complaint"),
    [
        ("s3://key:secret@bucket/p", "AWS_ACCESS_KEY_ID"),
        ("s3:///p", "no bucket"),
        ("s3://bucket?endpiont=http://x", "unknown"),
        ("s3://bucket?addressing=dns", "addressing"),
        ("gs://bucket", "scheme"),
        ("file://host/path", "file:///"),
    ],
)
def test_bad_urls_are_refused(url: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        open_storage_url(url, Path("/unused"))


def test_url_storage_reads_credentials_from_the_environment(
    s3: S3Server, bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    storage = open_storage_url(f"s3://{bucket}/inst?endpoint={s3.endpoint_url}&region={REGION}", Path("/unused"))
    storage.put("uploads/abc", b"hello")
    assert storage.get("uploads/abc") == b"hello"
    assert s3.client.get_object(Bucket=bucket, Key="inst/uploads/abc")["Body"].read() == b"hello"
