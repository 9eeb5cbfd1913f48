"""S3-compatible object storage (AWS S3, MinIO, Ceph RGW, …) through boto3, and `open_storage_url`.

Keys are the same validated keys as the local directory, optionally under a prefix inside the bucket.
Uploads stream in parts: a stream that fits in one part is one PUT; a larger one is a multipart
upload that is aborted on any error, including going over `max_bytes`, so nothing partial is left.

botocore retries throttling, 5xx and connection errors itself (standard mode). What still fails
afterwards is raised as `S3UnavailableError` (a `ConnectionError`, so the task queue classifies it
as transient) or, for answers retrying cannot change (access denied, no such bucket), `S3StorageError`.
"""

from __future__ import annotations

import builtins
import io
import logging
import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import parse_qs, unquote, urlsplit

import boto3
import botocore.exceptions
from botocore.config import Config

from ocrqueue.storage.base import ObjectNotFoundError, Storage, TooLargeUploadError, validate_key
from ocrqueue.storage.local import LocalStorage

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef

log = logging.getLogger(__name__)

MIN_PART_SIZE = 5 * 1024 * 1024  # S3's smallest part but the last
DEFAULT_PART_SIZE = 8 * 1024 * 1024
_MAX_PARTS = 10_000  # S3's largest part count
_DELETE_BATCH = 1000  # S3's largest DeleteObjects request
_READ_CHUNK = 1 << 20

# Error codes that mean "try again later" whatever the status code says.
_RETRYABLE_CODES = frozenset(
    {
        "RequestTimeout",
        "RequestTimeoutException",
        "InternalError",
        "ServiceUnavailable",
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "RequestThrottled",
        "XMinioServerNotInitialized",
    }
)
_NOT_FOUND_CODES = frozenset({"NoSuchKey", "404", "NotFound"})


class S3StorageError(Exception):
    """An S3 request failed in a way retrying will not change (access denied, no such bucket, …)."""

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


class S3UnavailableError(S3StorageError, ConnectionError):
    """The server could not be reached, was throttling or failed (5xx) after botocore's own retries.

    A `ConnectionError`, so the task queue's `classify` calls it transient and retries the task later.
    """


def _client_error_parts(exc: botocore.exceptions.ClientError) -> tuple[str, int | None]:
    error = exc.response.get("Error", {})
    status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return str(error.get("Code", "")), status if isinstance(status, int) else None


def _is_not_found(exc: botocore.exceptions.ClientError) -> bool:
    code, status = _client_error_parts(exc)
    return code in _NOT_FOUND_CODES or (status == 404 and code not in ("NoSuchBucket", "NoSuchUpload"))


def _translate(exc: Exception, what: str) -> S3StorageError:
    """botocore's exception for a failed request, as ours: retryable ones recognisable by type."""
    if isinstance(exc, botocore.exceptions.ClientError):
        code, status = _client_error_parts(exc)
        message = f"S3 {what} failed: {code or status} {exc}"
        if code in _RETRYABLE_CODES or status in (408, 429) or (status is not None and status >= 500):
            return S3UnavailableError(message, code=code, status=status)
        return S3StorageError(message, code=code, status=status)
    if isinstance(
        exc,
        botocore.exceptions.ConnectionError
        | botocore.exceptions.HTTPClientError
        | botocore.exceptions.IncompleteReadError,
    ):
        return S3UnavailableError(f"S3 {what} failed: {exc}")
    return S3StorageError(f"S3 {what} failed: {exc}")


_BOTO_ERRORS = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError)


class S3Storage(Storage):
    """Objects in one bucket, optionally under `prefix/`. One client, shared safely by threads."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        endpoint_url: str | None = None,
        region: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        *,
        session_token: str | None = None,
        part_size: int = DEFAULT_PART_SIZE,
        max_attempts: int = 5,
        path_style: bool | None = None,
        max_pool_connections: int = 32,
        session: boto3.session.Session | None = None,
    ) -> None:
        """Credentials left out come from boto3's usual chain (AWS_* variables, profile, instance role),
        or from `session` when one is given (e.g. `boto3.session.Session(profile_name=...)`).

        `path_style` (`http://host/bucket/key` rather than `http://bucket.host/key`) defaults to True
        when `endpoint_url` is set (MinIO, Ceph and most self-hosted servers have no per-bucket DNS
        names) and to botocore's choice otherwise. `max_attempts` counts every try, the first included.
        """
        if not bucket:
            raise ValueError("S3Storage needs a bucket name")
        if part_size < MIN_PART_SIZE:
            raise ValueError(f"part_size must be at least {MIN_PART_SIZE} bytes (S3's smallest part)")
        prefix = prefix.strip("/")
        self.bucket = bucket
        self.prefix = validate_key(prefix) if prefix else ""
        self.part_size = part_size
        if path_style is None and endpoint_url is not None:
            path_style = True
        config = Config(
            # Attempts in all, the first one included: botocore's standard mode retries throttling,
            # 5xx, timeouts and connection errors with exponential backoff and jitter.
            retries={"mode": "standard", "total_max_attempts": max_attempts},
            connect_timeout=10,
            read_timeout=60,
            max_pool_connections=max_pool_connections,
            s3=None if path_style is None else {"addressing_style": "path" if path_style else "virtual"},
        )
        # A session of our own unless given one: boto3's default session is not safe to create
        # clients from in threads. Sharing a session saves loading botocore's models again.
        session = session or boto3.session.Session()
        self.client: S3Client = session.client(
            "s3",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            aws_session_token=session_token,
            config=config,
        )
        # Match s3transfer: when botocore adds checksums to every request, declare one for multipart too.
        calculation = getattr(self.client.meta.config, "request_checksum_calculation", None)
        self._multipart_checksum = calculation == "when_supported"

    def __repr__(self) -> str:
        return f"S3Storage(bucket={self.bucket!r}, prefix={self.prefix!r}, endpoint={self.client.meta.endpoint_url!r})"

    def _full(self, key: str) -> str:
        validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _short(self, full: str) -> str:
        return full[len(self.prefix) + 1 :] if self.prefix else full

    def put(self, key: str, data: bytes) -> None:
        """One PUT (S3 replaces objects atomically); large data goes through a multipart upload."""
        full = self._full(key)
        if len(data) > self.part_size:
            self.put_stream(key, io.BytesIO(data), len(data))
            return
        try:
            self.client.put_object(Bucket=self.bucket, Key=full, Body=data)
        except _BOTO_ERRORS as exc:
            raise _translate(exc, f"put {full}") from exc

    def put_stream(self, key: str, stream: BinaryIO, max_bytes: int) -> int:
        """Read at most one part into memory at a time; refuse more than `max_bytes`.

        The object appears whole when the upload completes, or not at all: the multipart upload is
        aborted on any error (ours, the server's or the stream's), so no parts are left billed.
        """
        full = self._full(key)
        # Parts grow for very large limits so that `max_bytes` fits in S3's 10,000 parts.
        part_size = max(self.part_size, math.ceil(max(max_bytes, 0) / _MAX_PARTS))
        first, eof = self._read_part(stream, part_size, 0, max_bytes)
        if eof:
            try:
                self.client.put_object(Bucket=self.bucket, Key=full, Body=first)
            except _BOTO_ERRORS as exc:
                raise _translate(exc, f"put {full}") from exc
            return len(first)
        return self._multipart(full, stream, first, part_size, max_bytes)

    def _read_part(self, stream: BinaryIO, part_size: int, already: int, max_bytes: int) -> tuple[bytes, bool]:
        """Up to `part_size` bytes and whether the stream ended; raises as soon as the total passes the limit."""
        buffer = bytearray()
        while len(buffer) < part_size:
            chunk = stream.read(min(_READ_CHUNK, part_size - len(buffer)))
            if not chunk:
                return bytes(buffer), True
            buffer += chunk
            if already + len(buffer) > max_bytes:
                raise TooLargeUploadError(max_bytes)
        return bytes(buffer), False

    def _multipart(self, full: str, stream: BinaryIO, first: bytes, part_size: int, max_bytes: int) -> int:
        extra: dict[str, Any] = {"ChecksumAlgorithm": "CRC32"} if self._multipart_checksum else {}
        try:
            upload_id = self.client.create_multipart_upload(Bucket=self.bucket, Key=full, **extra)["UploadId"]
        except _BOTO_ERRORS as exc:
            raise _translate(exc, f"start multipart upload of {full}") from exc
        parts: list[CompletedPartTypeDef] = []
        size = 0
        try:
            data, eof = first, False
            while True:
                if data or not parts:
                    number = len(parts) + 1
                    answer = self.client.upload_part(
                        Bucket=self.bucket, Key=full, UploadId=upload_id, PartNumber=number, Body=data
                    )
                    part: CompletedPartTypeDef = {"ETag": answer["ETag"], "PartNumber": number}
                    if "ChecksumCRC32" in answer:
                        part["ChecksumCRC32"] = answer["ChecksumCRC32"]
                    parts.append(part)
                    size += len(data)
                if eof:
                    break
                data, eof = self._read_part(stream, part_size, size, max_bytes)
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=full, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
        except BaseException as exc:
            self._abort(full, upload_id)
            if isinstance(exc, _BOTO_ERRORS):
                raise _translate(exc, f"multipart upload of {full}") from exc
            raise
        return size

    def _abort(self, full: str, upload_id: str) -> None:
        try:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=full, UploadId=upload_id)
        except _BOTO_ERRORS:
            # The original error matters more; a bucket lifecycle rule cleans up what is left.
            log.warning(
                "could not abort multipart upload %s of s3://%s/%s", upload_id, self.bucket, full, exc_info=True
            )

    def get(self, key: str) -> bytes:
        full = self._full(key)
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=full)["Body"]
            try:
                return body.read()
            finally:
                body.close()
        except botocore.exceptions.ClientError as exc:
            if _is_not_found(exc):
                raise ObjectNotFoundError(key) from exc
            raise _translate(exc, f"get {full}") from exc
        except botocore.exceptions.BotoCoreError as exc:
            raise _translate(exc, f"get {full}") from exc

    def iter_chunks(self, key: str, chunk_size: int = _READ_CHUNK) -> Iterator[bytes]:
        """One GET whose body is read a chunk at a time (the request is made before the first chunk,
        so a missing object raises ObjectNotFoundError at once)."""
        full = self._full(key)
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=full)["Body"]
        except botocore.exceptions.ClientError as exc:
            if _is_not_found(exc):
                raise ObjectNotFoundError(key) from exc
            raise _translate(exc, f"get {full}") from exc
        except botocore.exceptions.BotoCoreError as exc:
            raise _translate(exc, f"get {full}") from exc
        return self._read_body(body, full, chunk_size)

    @staticmethod
    def _read_body(body: Any, full: str, chunk_size: int) -> Iterator[bytes]:
        try:
            while chunk := body.read(chunk_size):
                yield chunk
        except botocore.exceptions.BotoCoreError as exc:
            raise _translate(exc, f"get {full}") from exc
        finally:
            body.close()

    def exists(self, key: str) -> bool:
        full = self._full(key)
        try:
            self.client.head_object(Bucket=self.bucket, Key=full)
        except botocore.exceptions.ClientError as exc:
            if _is_not_found(exc):
                return False
            raise _translate(exc, f"head {full}") from exc
        except botocore.exceptions.BotoCoreError as exc:
            raise _translate(exc, f"head {full}") from exc
        return True

    def _list_full(self, prefix: str) -> Iterator[str]:
        """Full keys under `prefix/`, in S3's (byte-wise) order, page by page."""
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self._full(prefix) + "/"):
                for item in page.get("Contents", []):
                    yield item["Key"]
        except _BOTO_ERRORS as exc:
            raise _translate(exc, f"list {prefix}") from exc

    def list(self, prefix: str) -> Iterator[str]:
        for full in self._list_full(prefix):
            yield self._short(full)

    def delete_prefix(self, prefix: str) -> int:
        """Delete the object named `prefix`, if any, and every object under `prefix/`, 1000 per request."""
        deleted = 0
        batch: builtins.list[str] = []
        if self.exists(prefix):
            batch.append(self._full(prefix))
        for full in self._list_full(prefix):
            batch.append(full)
            if len(batch) == _DELETE_BATCH:
                deleted += self._delete_batch(batch)
                batch = []
        if batch:
            deleted += self._delete_batch(batch)
        return deleted

    def _delete_batch(self, keys: builtins.list[str]) -> int:
        try:
            answer = self.client.delete_objects(
                Bucket=self.bucket, Delete={"Objects": [{"Key": k} for k in keys], "Quiet": True}
            )
        except _BOTO_ERRORS as exc:
            raise _translate(exc, f"delete {len(keys)} objects") from exc
        errors = answer.get("Errors", [])
        if errors:
            first = errors[0]
            code = first.get("Code")
            message = f"S3 delete failed for {len(errors)} of {len(keys)} objects, e.g. {first.get('Key')}: {code}"
            if code in _RETRYABLE_CODES:
                raise S3UnavailableError(message, code=code)
            raise S3StorageError(message, code=code)
        return len(keys)


def open_storage_url(url: str | None, local_root_default: Path) -> Storage:
    """The storage a URL names; empty means a directory at `local_root_default`.

    - `s3://bucket[/prefix][?endpoint=URL&region=NAME&addressing=path|virtual]`: an S3Storage.
      Credentials are not taken from the URL: boto3 reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
      (and AWS_SESSION_TOKEN, AWS_PROFILE, an instance role, …) as usual.
    - `file:///absolute/path` or a plain path: a LocalStorage there.
    """
    if not url:
        return LocalStorage(local_root_default)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "s3":
        if parts.username is not None or parts.password is not None:
            raise ValueError("put S3 credentials in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, not in the URL")
        bucket = parts.hostname
        if not bucket:
            raise ValueError(f"storage URL {url!r} names no bucket: use s3://bucket/prefix")
        query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=False)
        unknown = set(query) - {"endpoint", "region", "addressing"}
        if unknown:
            raise ValueError(
                f"unknown storage URL parameter(s) {sorted(unknown)}: known are endpoint, region, addressing"
            )

        def one(name: str) -> str | None:
            values = query.get(name)
            return values[-1] if values else None

        addressing = one("addressing")
        if addressing not in (None, "path", "virtual"):
            raise ValueError(f"addressing must be 'path' or 'virtual', not {addressing!r}")
        return S3Storage(
            bucket,
            prefix=unquote(parts.path).strip("/"),
            endpoint_url=one("endpoint") or None,
            region=one("region") or None,
            path_style=None if addressing is None else addressing == "path",
        )
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"file storage URL {url!r} must be file:///absolute/path")
        return LocalStorage(Path(unquote(parts.path)))
    if scheme and len(scheme) > 1:  # one letter is a Windows drive, not a scheme
        raise ValueError(f"unsupported storage URL scheme {parts.scheme!r}: use s3://, file:// or a path")
    return LocalStorage(Path(url))
