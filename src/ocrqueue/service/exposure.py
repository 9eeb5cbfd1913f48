"""Who may reach `ocrqueue serve`: machines other than this one only once API keys are on.

Without a key every caller is the local operator, who sees every tenant's tasks, so a service
that other machines can reach must have a key before it listens. A container has no terminal to
run `ocrqueue keys create` in before its first start: its key comes through
OCRQUEUE_BOOTSTRAP_API_KEY instead, stored hashed like any other key, applied on every start and
changing nothing after the first.
"""

from __future__ import annotations

import ipaddress
import string

from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.errors import InvalidInput, NotConfigured

BOOTSTRAP_KEY_VARIABLE = "OCRQUEUE_BOOTSTRAP_API_KEY"
BOOTSTRAP_KEY_NAME = "bootstrap"
MIN_BOOTSTRAP_KEY_CHARS = 32
"""A bootstrap key is stored with the same fast hash as a generated one, which is safe only for a
key with as little to guess as a generated one."""
_KEY_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~+/=")
MAKE_A_KEY = "python3 -c \"import secrets; print('oq_' + secrets.token_urlsafe(32))\""


class ExposureRefused(NotConfigured):
    """`serve` was asked to listen beyond loopback while no API key exists."""


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def exposure_refusal(host: str, keys_exist: bool) -> str | None:
    """Why `serve` may not listen on `host`, or None when it may."""
    if keys_exist or is_loopback(host):
        return None
    return (
        f"ocrqueue serve will not listen on {host} while no API key exists (anyone who reaches it "
        f"would see every task). Set {BOOTSTRAP_KEY_VARIABLE} to a secret of at least "
        f"{MIN_BOOTSTRAP_KEY_CHARS} characters (e.g. from `{MAKE_A_KEY}`), or run "
        "`ocrqueue keys create --tenant NAME` once, or listen on 127.0.0.1."
    )


def bootstrap_key_problem(token: str) -> str | None:
    """What is wrong with a key given through the environment, or None."""
    if len(token) < MIN_BOOTSTRAP_KEY_CHARS:
        return f"{BOOTSTRAP_KEY_VARIABLE} must be at least {MIN_BOOTSTRAP_KEY_CHARS} characters long"
    if not set(token) <= _KEY_CHARACTERS:
        return f"{BOOTSTRAP_KEY_VARIABLE} may hold only letters, digits and -._~+/="
    return None


def open_listener(keys: ApiKeys, host: str, bootstrap_key: str | None, bootstrap_tenant: str) -> bool:
    """Store the bootstrap key if one is given, then allow `host` or raise `ExposureRefused`.
    True when the bootstrap key was stored by this call (its first start)."""
    stored = False
    if bootstrap_key is not None:
        problem = bootstrap_key_problem(bootstrap_key)
        if problem is not None:
            raise InvalidInput("invalid_bootstrap_key", problem, field=BOOTSTRAP_KEY_VARIABLE)
        stored = keys.ensure(bootstrap_key, bootstrap_tenant, BOOTSTRAP_KEY_NAME)
    refusal = exposure_refusal(host, keys.auth_required())
    if refusal is not None:
        raise ExposureRefused("api_key_required", refusal, field=BOOTSTRAP_KEY_VARIABLE)
    return stored
