"""The model-server client and the vlm engine against the stand-in server (real HTTP, no model)."""

from __future__ import annotations

import base64
import io
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PIL import Image, ImageDraw, ImageFont
from prometheus_client import REGISTRY
from support.vlm_standin import FORMULA_LATEX, TABLE_HTML, StandIn, running_standin
from support.waiting import wait_for

from ocrqueue.documents.engines import RecognitionRequest, unregister_engine
from ocrqueue.documents.engines.vlm import VlmEngine
from ocrqueue.documents.vlm import (
    BreakerState,
    ModelCircuitOpen,
    ModelRequestRejected,
    ModelServerUnavailable,
    VlmClient,
    VlmConfig,
)
from ocrqueue.queue import TransientError, classify
from ocrqueue.queue.errors import ErrorKind
from ocrqueue.service.engines import VLM_ENGINE, ModelGate, configure_vlm

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def words_image(*lines: str) -> Image.Image:
    image = Image.new("RGB", (900, 70 * len(lines) + 40), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 70 * i), line, font=ImageFont.truetype(FONT, 36), fill="black")
    return image


@pytest.fixture(autouse=True)
def _vlm_engine_unregistered() -> Iterator[None]:
    """configure_vlm registers the process-wide `vlm` engine; each test takes it away again."""
    yield
    unregister_engine(VLM_ENGINE)


@pytest.fixture(scope="module")
def module_standin() -> Iterator[StandIn]:
    with running_standin() as standin:
        yield standin


@pytest.fixture
def standin(module_standin: StandIn) -> StandIn:
    module_standin.reset()
    return module_standin


@pytest.fixture
def client(standin: StandIn) -> Iterator[VlmClient]:
    opened = VlmClient(VlmConfig(standin.base_url, breaker_failures=3, breaker_cooldown_seconds=0.3))
    yield opened
    opened.close()


def test_a_request_has_the_glm_ocr_shape(standin: StandIn) -> None:
    config = VlmConfig(standin.base_url, model="glm-ocr-test", api_key="sk-1", max_tokens=321)
    engine = VlmEngine(VlmClient(config))
    out = engine.recognize(words_image("Invoices are paid monthly"), RecognitionRequest(("eng",), "text"))
    assert [line.text for line in out.lines] == ["Invoices are paid monthly"] and out.markup is None
    (body,) = standin.bodies
    assert body["model"] == "glm-ocr-test" and body["temperature"] == 0 and body["max_tokens"] == 321
    (message,) = body["messages"]
    assert message["role"] == "user"
    image_part, text_part = message["content"]
    assert text_part == {"type": "text", "text": "Text Recognition:"}
    url = image_part["image_url"]["url"]
    assert image_part["type"] == "image_url" and url.startswith("data:image/png;base64,")
    assert Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size == (900, 110)
    jpeg = VlmEngine(VlmClient(replace(config, image_format="jpeg")))
    jpeg.recognize(words_image("x"), RecognitionRequest(("eng",), "cell"))
    assert standin.bodies[-1]["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/jpeg;base64,")


def test_tables_come_back_as_markup_and_formulas_as_latex(client: VlmClient) -> None:
    engine = VlmEngine(client)
    table = engine.recognize(words_image("Item Quantity Price"), RecognitionRequest(("eng",), "table"))
    assert table.markup == TABLE_HTML and table.lines[0].text == "Item Quantity Price"
    formula = engine.recognize(words_image("E = mc2"), RecognitionRequest(("eng",), "formula"))
    assert formula.markup == FORMULA_LATEX and [ln.text for ln in formula.lines] == [FORMULA_LATEX]


def test_429_with_retry_after_is_transient_with_that_wait(standin: StandIn, client: VlmClient) -> None:
    standin.fail_next(1, 429, retry_after=7)
    with pytest.raises(ModelServerUnavailable) as raised:
        client.complete(words_image("x"), "Text Recognition:")
    assert raised.value.retry_after == 7 and "HTTP 429" in str(raised.value)
    assert classify(raised.value).kind is ErrorKind.TRANSIENT

    def handler(ctx: object) -> None:
        raise raised.value

    with pytest.raises(TransientError) as mapped:
        ModelGate(handler, client, lambda payload: False)(_Ctx())  # type: ignore[arg-type]
    assert classify(mapped.value).kind is ErrorKind.TRANSIENT and classify(mapped.value).retry_after == 7


def test_500_and_timeouts_are_transient_and_400_is_permanent(standin: StandIn, standin_timeout: VlmClient) -> None:
    standin.fail_next(1, 500)
    with pytest.raises(ModelServerUnavailable, match="HTTP 500"):
        standin_timeout.complete(words_image("x"), "Text Recognition:")
    standin.stall(5)
    with pytest.raises(ModelServerUnavailable, match="timed out") as timed_out:
        standin_timeout.complete(words_image("x"), "Text Recognition:")
    assert classify(timed_out.value).kind is ErrorKind.TRANSIENT
    standin.recover()
    standin.fail_next(1, 400)
    with pytest.raises(ModelRequestRejected, match="HTTP 400: image is not valid for this model") as rejected:
        standin_timeout.complete(words_image("x"), "Text Recognition:")
    assert rejected.value.code == "model_rejected"
    assert standin_timeout.outcomes() == {"server_error": 1, "timeout": 1, "rejected": 1}
    assert standin_timeout.status().consecutive_failures == 0  # a 400 comes from a healthy server


@pytest.fixture
def standin_timeout(standin: StandIn) -> Iterator[VlmClient]:
    opened = VlmClient(VlmConfig(standin.base_url, timeout_seconds=0.5, breaker_failures=10))
    yield opened
    opened.close()


def test_requests_in_flight_never_exceed_the_bound(standin: StandIn) -> None:
    client = VlmClient(VlmConfig(standin.base_url, max_in_flight=2))
    engine = VlmEngine(client)
    standin.stall(0.15)
    results: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            out = engine.recognize(words_image("Bravo continues"), RecognitionRequest(("eng",), "text"))
            results.append(out.lines[0].text)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors and results == ["Bravo continues"] * 8
    assert standin.completions == 8 and standin.peak_in_flight == 2
    client.close()


def test_the_breaker_opens_fails_fast_probes_and_closes_when_the_server_recovers(
    standin: StandIn, client: VlmClient
) -> None:
    standin.go_down()
    for _ in range(3):
        with pytest.raises(ModelServerUnavailable) as failed:
            client.complete(words_image("x"), "Text Recognition:")
        assert not isinstance(failed.value, ModelCircuitOpen)
    assert client.status().state is BreakerState.OPEN
    with pytest.raises(ModelCircuitOpen) as fast:
        client.complete(words_image("x"), "Text Recognition:")
    assert 0 < (fast.value.retry_after or 0) <= 0.3 and "circuit breaker open" in str(fast.value)
    assert standin.completions == 3  # nothing was sent while open

    def probe_due() -> bool:
        try:
            client.check_available()
        except ModelCircuitOpen:
            return False
        return True

    wait_for(lambda: probe_due() or standin.model_listings >= 1, timeout=5, what="a probe")
    assert client.status().state is BreakerState.OPEN  # the probe failed: still down
    standin.recover()
    wait_for(probe_due, timeout=5, what="the breaker to close")
    assert client.complete(words_image("Echo"), "Text Recognition:").text == "Echo"
    assert client.status().state is BreakerState.CLOSED
    outcomes = client.outcomes()
    assert outcomes["server_error"] == 3 and outcomes["probe_ok"] == 1 and outcomes["probe_failed"] >= 1


def test_metrics_show_the_breaker_and_requests_by_outcome(standin: StandIn) -> None:
    config = VlmConfig(standin.base_url, model="metrics-test", breaker_failures=1, breaker_cooldown_seconds=60)
    client = configure_vlm(config)
    assert client is not None
    endpoint = config.endpoint
    standin.fail_next(1, 503)
    with pytest.raises(ModelServerUnavailable):
        client.complete(words_image("x"), "Text Recognition:")
    labels = {"endpoint": endpoint}
    assert REGISTRY.get_sample_value("ocrqueue_model_breaker_open", labels) == 1
    assert REGISTRY.get_sample_value("ocrqueue_model_requests_total", labels | {"outcome": "server_error"}) == 1


class _Ctx:
    payload: dict[str, object] = {}
