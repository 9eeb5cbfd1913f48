"""A client for OpenAI-compatible chat-completions servers that take images (GLM-OCR on vLLM,
SGLang or Ollama; GLM-4.6V-Flash and other vision models).

One client per endpoint per process (`shared_client`), safe to call from any number of threads:
- at most `max_in_flight` requests are in flight at once (a semaphore; callers wait their turn);
- connect and read timeouts;
- 408, 429, 5xx, timeouts, unreachable servers and malformed answers raise `ModelServerUnavailable`
  (with the server's Retry-After), other 4xx raise `ModelRequestRejected`;
- a circuit breaker (breaker.py) stops sending after repeated failures and probes `GET /models`
  after a cool-down; while it is open calls raise `ModelCircuitOpen` without touching the network.

Nothing is retried here: the task queue retries whole attempts with backoff, and defers tasks
without spending attempts while the breaker is open.
"""

from __future__ import annotations

import base64
import email.utils
import io
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from PIL import Image

from ocrqueue.documents.vlm.breaker import BreakerStatus, CircuitBreaker
from ocrqueue.documents.vlm.errors import ModelCircuitOpen, ModelRequestRejected, ModelServerUnavailable

ImageFormat = Literal["png", "jpeg"]
_TRANSIENT_STATUS = (408, 425, 429)
_PROBE_TIMEOUT = 10.0
_MAX_ERROR_TEXT = 300


@dataclass(frozen=True)
class VlmConfig:
    """Where the model server is and how to talk to it."""

    base_url: str
    """Up to and including `/v1`, e.g. http://127.0.0.1:8080/v1."""
    model: str = "glm-ocr"
    api_key: str | None = field(default=None, repr=False)
    max_in_flight: int = 4
    timeout_seconds: float = 120.0
    connect_timeout_seconds: float = 5.0
    max_tokens: int = 8192
    image_format: ImageFormat = "png"
    breaker_failures: int = 5
    breaker_cooldown_seconds: float = 30.0

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"the model server URL must start with http:// or https://, not {self.base_url!r}")
        if self.max_in_flight < 1 or self.max_tokens < 1 or self.breaker_failures < 1:
            raise ValueError("max_in_flight, max_tokens and breaker_failures must be at least 1")

    @property
    def probe_timeout_seconds(self) -> float:
        """The longest a probe (`GET /models`) takes, so the longest a breaker stays half-open."""
        return min(_PROBE_TIMEOUT, self.timeout_seconds)

    @property
    def endpoint(self) -> str:
        """The base URL without credentials or trailing slash: a safe label for logs and metrics."""
        url = httpx.URL(self.base_url)
        port = f":{url.port}" if url.port else ""
        return f"{url.scheme}://{url.host}{port}{url.path.rstrip('/')}"


@dataclass(frozen=True)
class ChatAnswer:
    text: str
    finish_reason: str | None
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def truncated(self) -> bool:
        """The answer stopped at max_tokens (GLM-OCR's repetition loops end like this)."""
        return self.finish_reason == "length"


def encode_image(image: Image.Image, fmt: ImageFormat = "png") -> tuple[bytes, str]:
    """PNG (lossless, best for small text) or JPEG (quality 95, smaller), with its media type."""
    buffer = io.BytesIO()
    if fmt == "jpeg":
        image.convert("RGB").save(buffer, format="JPEG", quality=95)
        return buffer.getvalue(), "image/jpeg"
    if image.mode not in ("1", "L", "LA", "RGB", "RGBA", "P"):
        image = image.convert("RGB")
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue(), "image/png"


def data_uri(data: bytes, media_type: str) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:_MAX_ERROR_TEXT]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:_MAX_ERROR_TEXT]
        for key in ("message", "detail", "error"):
            if body.get(key):
                return str(body[key])[:_MAX_ERROR_TEXT]
    return str(body)[:_MAX_ERROR_TEXT]


def _content(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with content parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    raise TypeError(f"unexpected content type {type(content).__name__}")


class VlmClient:
    def __init__(self, config: VlmConfig, *, transport: httpx.BaseTransport | None = None) -> None:
        self.config = config
        self.endpoint = config.endpoint
        self.breaker = CircuitBreaker(config.breaker_failures, config.breaker_cooldown_seconds)
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._http = httpx.Client(
            base_url=config.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout_seconds, connect=config.connect_timeout_seconds),
            limits=httpx.Limits(
                max_connections=config.max_in_flight + 1, max_keepalive_connections=config.max_in_flight
            ),
            transport=transport,
        )
        self._slots = threading.BoundedSemaphore(config.max_in_flight)
        self._lock = threading.Lock()
        self._outcomes: Counter[str] = Counter()
        self._in_flight = 0

    # -- what callers use ---------------------------------------------------------------------
    def complete(
        self, image: Image.Image | tuple[bytes, str], prompt: str, *, max_tokens: int | None = None
    ) -> ChatAnswer:
        """Send one image and a prompt; the model's answer. `image` is a PIL image or (bytes, media type)."""
        self.check_available()
        data, media_type = encode_image(image, self.config.image_format) if isinstance(image, Image.Image) else image
        body = {
            "model": self.config.model,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": data_uri(data, media_type)}},
                        {"type": "text", "text": prompt},
                    ],
                }
            ],
            "temperature": 0,
            "max_tokens": max_tokens or self.config.max_tokens,
        }
        if not self._slots.acquire(timeout=self.config.timeout_seconds):
            self._count("busy")
            raise ModelServerUnavailable(
                f"all {self.config.max_in_flight} request slots for the model server at {self.endpoint} "
                f"stayed busy for {self.config.timeout_seconds:.0f}s",
                endpoint=self.endpoint,
            )
        try:
            allowed, wait = self.breaker.before_request()
            if not allowed:  # it opened while this call waited for a slot
                self._count("breaker_open")
                raise self._open_error(wait)
            with self._lock:
                self._in_flight += 1
            try:
                return self._send(body)
            finally:
                with self._lock:
                    self._in_flight -= 1
        finally:
            self._slots.release()

    def check_available(self) -> None:
        """Return if requests may be sent; run the probe when one is due; else raise ModelCircuitOpen."""
        allowed, wait = self.breaker.before_request()
        if allowed:
            return
        if wait <= 0 and self.breaker.try_probe():
            if self.probe():
                self.breaker.probe_succeeded()
                return
            wait = self.breaker.status().retry_in
        elif wait <= 0:  # another thread is probing right now
            wait = max(1.0, min(5.0, self.config.breaker_cooldown_seconds))
        self._count("breaker_open")
        raise self._open_error(wait)

    def probe(self) -> bool:
        """GET /models: is the server there? Reports the outcome to the breaker when it fails."""
        try:
            response = self._http.get("models", timeout=self.config.probe_timeout_seconds)
        except httpx.HTTPError as exc:
            self._count("probe_failed")
            self.breaker.record_failure(f"probe failed: {type(exc).__name__}")
            return False
        if response.status_code >= 500 or response.status_code in _TRANSIENT_STATUS:
            self._count("probe_failed")
            self.breaker.record_failure(
                f"probe answered HTTP {response.status_code}", parse_retry_after(response.headers.get("retry-after"))
            )
            return False
        self._count("probe_ok")
        return True

    def status(self) -> BreakerStatus:
        return self.breaker.status()

    def outcomes(self) -> dict[str, int]:
        """Requests by outcome since the process started (ok, rejected, rate_limited, server_error,
        timeout, unreachable, invalid_response, breaker_open, busy, probe_ok, probe_failed)."""
        with self._lock:
            return dict(self._outcomes)

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    def close(self) -> None:
        self._http.close()

    # -- internals ------------------------------------------------------------------------------
    def _count(self, outcome: str) -> None:
        with self._lock:
            self._outcomes[outcome] += 1

    def _open_error(self, wait: float) -> ModelCircuitOpen:
        status = self.breaker.status()
        return ModelCircuitOpen(
            f"model server at {self.endpoint} is failing; circuit breaker {status.describe()}",
            retry_after=wait,
            endpoint=self.endpoint,
        )

    def _fail(self, outcome: str, message: str, retry_after: float | None = None) -> ModelServerUnavailable:
        self._count(outcome)
        self.breaker.record_failure(message, retry_after)
        return ModelServerUnavailable(message, retry_after=retry_after, endpoint=self.endpoint)

    def _send(self, body: dict[str, Any]) -> ChatAnswer:
        where = f"model server at {self.endpoint}"
        try:
            response = self._http.post("chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise self._fail("timeout", f"{where} timed out ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise self._fail("unreachable", f"{where} is unreachable ({type(exc).__name__}: {exc})") from exc
        status = response.status_code
        if status >= 500 or status in _TRANSIENT_STATUS:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            outcome = "rate_limited" if status == 429 else "server_error"
            raise self._fail(outcome, f"{where} answered HTTP {status}: {_error_text(response)}", retry_after)
        if status >= 400:
            self._count("rejected")
            self.breaker.record_success()  # the server is up; this request is what it refused
            raise ModelRequestRejected(
                f"{where} rejected the request with HTTP {status}: {_error_text(response)}", status=status
            )
        try:
            data = response.json()
            choice = data["choices"][0]
            text = _content(choice.get("message"))
            usage = data.get("usage") or {}
            answer = ChatAnswer(
                text=text,
                finish_reason=choice.get("finish_reason"),
                model=str(data.get("model") or self.config.model),
                prompt_tokens=usage.get("prompt_tokens"),
                completion_tokens=usage.get("completion_tokens"),
            )
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise self._fail("invalid_response", f"{where} sent an answer that is not a chat completion") from exc
        self._count("ok")
        self.breaker.record_success()
        return answer


_SHARED: dict[VlmConfig, VlmClient] = {}
_SHARED_LOCK = threading.Lock()


def shared_client(config: VlmConfig) -> VlmClient:
    """The process-wide client (and so semaphore and breaker) for this configuration."""
    with _SHARED_LOCK:
        client = _SHARED.get(config)
        if client is None:
            client = _SHARED[config] = VlmClient(config)
        return client


def shared_clients() -> list[VlmClient]:
    with _SHARED_LOCK:
        return list(_SHARED.values())
