"""A real S3-compatible HTTP server for tests: moto in server mode, on a free port of 127.0.0.1 only.

It runs in a thread of the test process, speaks the S3 REST protocol over TCP like MinIO or AWS,
and keeps its objects in memory. Each test gets a bucket of its own.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from moto.server import ThreadedMotoServer

ACCESS_KEY = "testing"
SECRET_KEY = "testing"
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    endpoint_url: str

    @functools.cached_property
    def session(self) -> boto3.session.Session:
        """One session for every client of the tests: botocore's models are loaded once, not per test."""
        return boto3.session.Session()

    @functools.cached_property
    def client(self) -> Any:
        """A plain boto3 client for looking behind the storage's back (multipart uploads, raw keys)."""
        return self.session.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=Config(s3={"addressing_style": "path"}),
        )

    def storage_kwargs(self, bucket: str, **extra: Any) -> dict[str, Any]:
        return {
            "bucket": bucket,
            "endpoint_url": self.endpoint_url,
            "region": REGION,
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            "session": self.session,
            **extra,
        }

    def new_bucket(self) -> str:
        name = f"test-{uuid.uuid4().hex[:20]}"
        self.client.create_bucket(Bucket=name)
        return name


@contextlib.contextmanager
def s3_server() -> Iterator[S3Server]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield S3Server(f"http://{host}:{port}")
    finally:
        server.stop()
