"""The bind-and-key rule: `serve` listens beyond loopback only once a key exists, and a key given
through the environment is stored hashed, once, whatever the number of restarts."""

from __future__ import annotations

import secrets

import pytest
import sqlalchemy as sa

from ocrqueue.service import InvalidInput
from ocrqueue.service.apikeys import ApiKeys, api_keys
from ocrqueue.service.exposure import (
    BOOTSTRAP_KEY_VARIABLE,
    ExposureRefused,
    bootstrap_key_problem,
    exposure_refusal,
    open_listener,
)

BOOTSTRAP = "oq_" + secrets.token_urlsafe(32)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_needs_no_key(host: str) -> None:
    assert exposure_refusal(host, keys_exist=False) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "ocr.example.com"])
def test_beyond_loopback_without_a_key_is_refused_saying_what_to_set(host: str) -> None:
    refusal = exposure_refusal(host, keys_exist=False)
    assert refusal is not None
    assert BOOTSTRAP_KEY_VARIABLE in refusal and "ocrqueue keys create" in refusal and host in refusal
    assert exposure_refusal(host, keys_exist=True) is None


@pytest.mark.parametrize(
    ("token", "wrong"), [("short", "at least 32"), ("a" * 31, "at least 32"), ("a" * 40 + " b", "only letters")]
)
def test_a_weak_or_malformed_bootstrap_key_is_refused(token: str, wrong: str) -> None:
    problem = bootstrap_key_problem(token)
    assert problem is not None and wrong in problem
    assert bootstrap_key_problem(BOOTSTRAP) is None


def test_the_bootstrap_key_is_stored_hashed_once_and_opens_any_host(db_url: str) -> None:
    keys = ApiKeys(db_url)
    try:
        with pytest.raises(ExposureRefused):
            open_listener(keys, "0.0.0.0", None, "acme")
        assert open_listener(keys, "0.0.0.0", BOOTSTRAP, "acme") is True
        assert [open_listener(keys, "0.0.0.0", BOOTSTRAP, "acme") for _ in range(3)] == [False] * 3
        assert [(k.tenant, k.name) for k in keys.list()] == [("acme", "bootstrap")]
        assert keys.tenant_for(BOOTSTRAP) == "acme"
        with sa.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://")).connect() as conn:
            stored = [tuple(row) for row in conn.execute(sa.select(api_keys))]
        assert BOOTSTRAP not in repr(stored)
    finally:
        keys.close()


def test_a_revoked_bootstrap_key_stays_revoked_across_restarts(db_url: str) -> None:
    keys = ApiKeys(db_url)
    try:
        open_listener(keys, "0.0.0.0", BOOTSTRAP, "acme")
        assert keys.revoke(keys.list()[0].id)
        assert open_listener(keys, "0.0.0.0", BOOTSTRAP, "acme") is False
        assert keys.tenant_for(BOOTSTRAP) is None
    finally:
        keys.close()


def test_an_invalid_bootstrap_key_is_not_stored(db_url: str) -> None:
    keys = ApiKeys(db_url)
    try:
        with pytest.raises(InvalidInput) as raised:
            open_listener(keys, "127.0.0.1", "too-short", "acme")
        assert raised.value.field == BOOTSTRAP_KEY_VARIABLE
        assert keys.list() == []
    finally:
        keys.close()
