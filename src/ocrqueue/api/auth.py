"""Who is calling: a bearer key's tenant when keys exist, or the local operator when none do."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ocrqueue.api.errors import ApiError
from ocrqueue.service.webhooks import key_owner


@dataclass(frozen=True)
class Caller:
    tenant: str | None
    """None in local mode (no key was ever created): the operator sees every task."""
    rate_key: str
    """Whom the submit rate limit counts against and whose secret signs its webhooks: the key (by
    `key_owner`, a hash), or "local"."""

    def can_see(self, task_tenant: str | None) -> bool:
        return self.tenant is None or self.tenant == task_tenant


async def current_caller(request: Request) -> Caller:
    keys = request.app.state.context.keys
    required = keys.cached_auth_required()
    if required is None:
        required = await run_in_threadpool(keys.auth_required)
    if not required:
        return Caller(None, "local")
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401,
            "unauthorized",
            "an API key is required: Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    hit, tenant = keys.cached_tenant_for(token.strip())
    if not hit:
        tenant = await run_in_threadpool(keys.tenant_for, token.strip())
    if tenant is None:
        raise ApiError(401, "unauthorized", "the API key is unknown or revoked", headers={"WWW-Authenticate": "Bearer"})
    return Caller(tenant, key_owner(token))
