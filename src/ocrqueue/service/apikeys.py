"""API keys: random tokens shown once, stored as SHA-256 hashes, each belonging to one tenant.

The tokens carry 256 bits of randomness, so a fast hash is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from ocrqueue.queue.urls import parse_database_url
from ocrqueue.service.webhooks import WebhookStore, key_owner

TOKEN_PREFIX = "oq_"
_CACHE_SECONDS = 5.0

metadata = sa.MetaData()
api_keys = sa.Table(
    "ocrq_api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("tenant", sa.String(200), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True)),
)


@dataclass(frozen=True)
class ApiKey:
    id: str
    tenant: str
    name: str
    created_at: datetime
    revoked_at: datetime | None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _aware(value: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were written in UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _key_from_row(row: Any) -> ApiKey:
    revoked = _aware(row.revoked_at) if row.revoked_at is not None else None
    return ApiKey(row.id, row.tenant, row.name, _aware(row.created_at), revoked)


class ApiKeys:
    """Create, list, revoke and check keys; `tenant_for` caches lookups for a few seconds (a revoked
    key works that much longer); whether auth is on is never cached as "no"."""

    def __init__(self, database_url: str) -> None:
        url = parse_database_url(database_url)
        self._engine = sa.create_engine(url.sqlalchemy, pool_pre_ping=True)
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, str | None]] = {}
        self._required = False
        """Set once a key was seen: it stays so, as keys are revoked but never deleted."""

    def create(self, tenant: str, name: str = "") -> tuple[ApiKey, str]:
        """Returns the key and its token; the token is not stored and cannot be shown again."""
        key, token, _ = self.create_with_webhook_secret(tenant, name)
        return key, token

    def create_with_webhook_secret(self, tenant: str, name: str = "") -> tuple[ApiKey, str, str]:
        """The key, its token and the secret that signs its tasks' webhooks, made in one transaction.
        Show the token once; the secret can be shown again only by making a new key."""
        if not tenant.strip():
            raise ValueError("a key needs a tenant name")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        key = ApiKey(secrets.token_hex(8), tenant.strip(), name, datetime.now(UTC), None)
        with self._engine.begin() as conn:
            conn.execute(
                api_keys.insert().values(
                    id=key.id, tenant=key.tenant, name=name, key_hash=_hash(token), created_at=key.created_at
                )
            )
            webhook_secret = WebhookStore.create_secret_in(conn, key_owner(token))
        self._forget_cache()
        return key, token, webhook_secret

    def ensure(self, token: str, tenant: str, name: str) -> bool:
        """Store `token` (hashed) for `tenant` unless a key with that token exists, revoked or not:
        True when it was stored now. A key given through the environment is applied on every start,
        so this is what makes the restarts after the first change nothing (and keeps a revoked one
        revoked)."""
        if not tenant.strip():
            raise ValueError("a key needs a tenant name")
        digest = _hash(token)
        if self._stored(digest):
            return False
        try:
            with self._engine.begin() as conn:
                conn.execute(
                    api_keys.insert().values(
                        id=secrets.token_hex(8),
                        tenant=tenant.strip(),
                        name=name,
                        key_hash=digest,
                        created_at=datetime.now(UTC),
                    )
                )
                WebhookStore.create_secret_in(conn, key_owner(token))
        except sa.exc.IntegrityError:
            if not self._stored(digest):
                raise
            return False  # another process starting with the same key stored it first
        self._forget_cache()
        return True

    def _stored(self, digest: str) -> bool:
        with self._engine.connect() as conn:
            return conn.execute(sa.select(api_keys.c.id).where(api_keys.c.key_hash == digest)).first() is not None

    def list(self) -> list[ApiKey]:
        query = sa.select(
            api_keys.c.id, api_keys.c.tenant, api_keys.c.name, api_keys.c.created_at, api_keys.c.revoked_at
        ).order_by(api_keys.c.created_at)
        with self._engine.connect() as conn:
            return [_key_from_row(row) for row in conn.execute(query)]

    def revoke(self, key_id: str) -> bool:
        with self._engine.begin() as conn:
            changed = conn.execute(
                api_keys.update()
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=datetime.now(UTC))
            ).rowcount
        self._forget_cache()
        return changed > 0

    def cached_auth_required(self) -> bool | None:
        """True once a key was seen; None while none was: then every request asks the database,
        because `ocrqueue keys create` in another process turns auth on at once, and a cached "no"
        would leave the API open to anyone for as long as it is kept."""
        return True if self._required else None

    def auth_required(self) -> bool:
        """Whether auth is on: from the first key ever created, revoked or not. Revoking every key
        locks the API until a new key is made; it never falls back to the open local mode."""
        if self._required:
            return True
        with self._engine.connect() as conn:
            found = conn.execute(sa.select(api_keys.c.id).limit(1)).first() is not None
        if found:
            self._required = True
        return found

    def cached_tenant_for(self, token: str) -> tuple[bool, str | None]:
        """(True, `tenant_for(token)`) from the cache, or (False, None) when it must ask the database."""
        with self._lock:
            cached = self._cache.get(_hash(token))
            if cached and time.monotonic() - cached[0] < _CACHE_SECONDS:
                return True, cached[1]
        return False, None

    def tenant_for(self, token: str) -> str | None:
        """The tenant of an active key, or None; compares hashes in constant time."""
        hit, tenant = self.cached_tenant_for(token)
        if hit:
            return tenant
        digest = _hash(token)
        query = sa.select(api_keys.c.tenant, api_keys.c.key_hash).where(
            api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None)
        )
        with self._engine.connect() as conn:
            row = conn.execute(query).first()
        tenant = row.tenant if row is not None and hmac.compare_digest(row.key_hash, digest) else None
        with self._lock:
            self._cache[digest] = (time.monotonic(), tenant)
        return tenant

    def _forget_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def close(self) -> None:
        self._engine.dispose()
