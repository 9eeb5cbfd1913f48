"""Schemathesis (4.x) against the live server's own OpenAPI document, on SQLite.

Every operation gets generated requests, valid and invalid; every response must be free of server
errors (no 5xx) and match the response schema the document declares for its status. Run once with
no API keys (local mode) and once with a key configured and sent (and once without sending it).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance
from support.service import Service, running_service

from ocrqueue.queue import open_store

EXAMPLES = 60
# Follows the caller's task list for as long as the client stays: no response ever ends.
ENDLESS = "/api/v1/tasks/events"


@dataclass
class Live:
    service: Service
    token: str | None = None


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Live]:
    folder = tmp_path_factory.mktemp("fuzz")
    shutil.copy(sqlite_template, folder / "queue.db")
    url = f"sqlite:///{folder / 'queue.db'}"
    store = open_store(url)
    try:
        # A model server that is configured but never answers: vision submits queue instead of 503.
        # No worker runs, so /api/v1/convert waits at most a second for its task before its 202.
        with running_service(
            url,
            store,
            folder,
            submit_rate_per_minute=100_000,
            vlm_base_url="http://127.0.0.1:9/v1",
            convert_wait_seconds=0.2,
            convert_max_wait_seconds=1,
        ) as service:
            yield Live(service)
    finally:
        store.close()


def fuzz(live: Live, tokens: list[str | None]) -> list[str]:
    """Run every operation of the live document for EXAMPLES cases; returns the failures found.

    Schemathesis's pytest plugin is not used: it does not work with the pytest this suite runs on.
    The operations are driven through their Hypothesis strategies instead."""
    loaded = schemathesis.openapi.from_url(f"{live.service.url}/openapi.json").exclude(path=ENDLESS)
    failures: list[str] = []
    operations = 0
    for result in loaded.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: schemathesis.Case) -> None:
            for token in tokens:
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                case.call_and_validate(base_url=live.service.url, headers=headers, checks=CHECKS, timeout=30)

        try:
            run()
        except Exception as exc:  # a check failed: keep going to report every operation at once
            failures.append(f"{operation.label}: {exc}"[:2000])
    assert operations >= 10, operations
    return failures


CHECKS = [not_a_server_error, response_schema_conformance]


def test_without_keys_no_server_errors_and_responses_match_the_schema(live: Live) -> None:
    assert not live.service.keys.auth_required()
    failures = fuzz(live, [None])
    assert not failures, "\n\n".join(failures)


def test_with_a_key_no_server_errors_and_responses_match_the_schema(live: Live) -> None:
    _, token = live.service.keys.create("fuzz-tenant")
    failures = fuzz(live, [token, None])  # with the key, and without sending it (401 as declared)
    assert not failures, "\n\n".join(failures)
