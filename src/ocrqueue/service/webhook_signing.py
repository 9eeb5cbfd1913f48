"""Standard Webhooks signatures (https://www.standardwebhooks.com): what a receiver checks.

A secret is `whsec_` + base64 of 32 random bytes. Each request carries `webhook-id` (the same on
every retry of one message, so a receiver can drop duplicates), `webhook-timestamp` (Unix seconds)
and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" under the secret's bytes>`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
_TOLERANCE_SECONDS = 300


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest()).decode()


def signed_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, message_id, timestamp, body),
        "content-type": "application/json",
    }


def verify(secret: str, headers: dict[str, str], body: bytes, now: int) -> bool:
    """What a receiver does: a matching v1 signature on a timestamp within five minutes of `now`."""
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        timestamp = int(lowered["webhook-timestamp"])
        expected = signature(secret, lowered["webhook-id"], timestamp, body)
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > _TOLERANCE_SECONDS:
        return False
    given = lowered.get("webhook-signature", "").split()
    return any(hmac.compare_digest(candidate, expected) for candidate in given)
