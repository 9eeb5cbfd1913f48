"""Sending one webhook request to a URL a user gave us, without letting it reach inside our network.

The host is resolved once; every address must be public unless private networks are allowed, and
the connection goes to that checked address (the Host header and TLS name stay the URL's), so a
DNS answer that changes between check and connect (rebinding) cannot redirect it. Redirects are
not followed, connecting, sending and each read have a timeout, and at most `_MAX_RESPONSE_BYTES` of the answer
are read.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

_MAX_RESPONSE_BYTES = 64 * 1024
_PORTS = {"http": 80, "https": 443}
MAX_URL_LENGTH = 2000


class WebhookRefused(Exception):
    """The URL may never be called (bad form, or an address we do not send to): retrying is useless."""


class WebhookFailed(Exception):
    """This attempt failed (no connection, timeout, an answer other than 2xx): a later one may not."""


@dataclass(frozen=True)
class Delivered:
    status_code: int
    response_excerpt: str


def check_url(url: str) -> None:
    """Raise WebhookRefused unless `url` is an absolute http(s) URL with a host and no credentials."""
    if len(url) > MAX_URL_LENGTH:
        raise WebhookRefused(f"callback_url is longer than {MAX_URL_LENGTH} characters")
    parts = urlsplit(url)
    if parts.scheme not in _PORTS or not parts.hostname:
        raise WebhookRefused("callback_url must be an absolute http:// or https:// URL")
    if parts.username or parts.password:
        raise WebhookRefused("callback_url must not carry a user name or password")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise WebhookRefused(f"callback_url has an invalid port: {exc}") from exc


def _refused_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    checked = mapped or address
    if checked.is_loopback:
        return "a loopback address"
    if checked.is_link_local:
        return "a link-local address"
    if checked.is_private:
        return "a private address"
    if checked.is_multicast or checked.is_reserved or checked.is_unspecified or not checked.is_global:
        return "a non-public address"
    return None


def resolve(host: str, port: int, allow_private: bool) -> str:
    """The address to connect to: the first the host resolves to, every one of them checked."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise WebhookFailed(f"cannot resolve {host}: {exc.strerror}") from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not addresses:
        raise WebhookFailed(f"{host} has no address")
    if not allow_private:
        for address in addresses:
            reason = _refused_address(address)
            if reason is not None:
                raise WebhookRefused(
                    f"{host} resolves to {address}, {reason}; set OCRQUEUE_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true "
                    "to allow it"
                )
    return str(addresses[0])


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> Delivered:
    """POST `body` to `url` once; returns on a 2xx answer, raises WebhookFailed/WebhookRefused otherwise."""
    check_url(url)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or _PORTS[parts.scheme]
    address = resolve(host, port, allow_private)
    literal = f"[{address}]" if ":" in address else address
    pinned = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path or "/", parts.query, ""))
    host_header = host if parts.port is None else f"{host}:{parts.port}"
    sent_headers = {**headers, "host": host_header, "user-agent": "ocrqueue-webhooks"}
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False) as client,
            client.stream("POST", pinned, content=body, headers=sent_headers, extensions=extensions) as response,
        ):
            excerpt = b""
            for chunk in response.iter_bytes():
                excerpt += chunk
                if len(excerpt) >= _MAX_RESPONSE_BYTES:
                    break
    except httpx.HTTPError as exc:
        raise WebhookFailed(f"POST {host} failed: {type(exc).__name__}: {exc}") from exc
    text = excerpt[:200].decode("utf-8", "replace")
    if not 200 <= response.status_code < 300:
        raise WebhookFailed(f"{host} answered {response.status_code}: {text}")
    return Delivered(response.status_code, text)
