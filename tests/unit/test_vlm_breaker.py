"""The circuit breaker's states with a fake clock, and the pure helpers of the vlm engine."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.vlm.breaker import BreakerState, CircuitBreaker
from ocrqueue.documents.vlm.client import VlmConfig, parse_retry_after
from ocrqueue.documents.vlm.lines import place_lines
from ocrqueue.documents.vlm.prompts import PROMPTS, clean_formula, strip_fence, table_lines, text_lines


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_consecutive_failures_and_a_success_resets_the_count() -> None:
    breaker = CircuitBreaker(failure_threshold=3, cooldown_seconds=30, clock=Clock())
    breaker.record_failure("503")
    breaker.record_failure("503")
    breaker.record_success()
    assert not breaker.record_failure("503") and not breaker.record_failure("503")
    assert breaker.status().state is BreakerState.CLOSED
    assert breaker.record_failure("HTTP 503")
    status = breaker.status()
    assert status.state is BreakerState.OPEN and status.retry_in == 30 and status.opened_count == 1
    assert status.describe() == "open: HTTP 503; next probe in 30s"
    assert breaker.before_request() == (False, 30)


def test_one_probe_after_the_cooldown_and_a_failed_probe_reopens() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=10, clock=clock)
    breaker.record_failure("timeout", retry_after=25)  # a longer Retry-After stretches the cool-down
    clock.now += 10
    assert not breaker.try_probe()
    clock.now += 15
    assert breaker.try_probe() and not breaker.try_probe()  # exactly one caller probes
    assert breaker.status().state is BreakerState.HALF_OPEN and breaker.is_open
    assert breaker.record_failure("probe failed")
    assert breaker.status().state is BreakerState.OPEN and breaker.status().retry_in == 10


def test_a_successful_probe_closes_it_but_the_next_failure_reopens_it_at_once() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=5, cooldown_seconds=1, clock=clock)
    for _ in range(5):
        breaker.record_failure("503")
    clock.now += 1
    assert breaker.try_probe()
    breaker.probe_succeeded()
    assert breaker.before_request() == (True, 0.0)
    assert breaker.record_failure("503")  # fragile: one failure is enough
    clock.now += 1
    assert breaker.try_probe()
    breaker.probe_succeeded()
    breaker.record_success()  # a real answer makes it robust again
    assert not breaker.record_failure("503")


def test_retry_after_is_read_as_seconds_or_a_date() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past


def test_config_endpoint_hides_credentials_and_bad_urls_are_refused() -> None:
    config = VlmConfig("http://user:secret@gpu:8080/v1/", api_key="sk-123")
    assert config.endpoint == "http://gpu:8080/v1" and "sk-123" not in repr(config)
    with pytest.raises(ValueError, match="http"):
        VlmConfig("gpu:8080/v1")


def test_prompts_and_answer_cleaning() -> None:
    assert PROMPTS == {
        "text": "Text Recognition:",
        "cell": "Text Recognition:",
        "line": "Text Recognition:",
        "table": "Table Recognition:",
        "formula": "Formula Recognition:",
    }
    assert strip_fence("```html\n<table></table>\n```") == "<table></table>"
    assert clean_formula("$$\\frac{a}{b}$$") == "\\frac{a}{b}"
    assert clean_formula("\\[ x^2 \\]") == "x^2"
    assert text_lines("## Title\n\n**Bold** words\n- item") == ["Title", "Bold words", "- item"]
    assert table_lines("<table><tr><th>A</th><td>1 &amp; 2</td></tr><tr><td></td></tr></table>") == ["A 1 & 2"]
    assert table_lines("| A | B |\n|---|---|\n| 1 | 2 |") == ["A B", "1 2"]


def test_answer_lines_are_placed_on_the_rows_of_ink() -> None:
    image = Image.new("L", (600, 200), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28)
    draw.text((20, 20), "First line here", font=font, fill=0)
    draw.text((20, 120), "Second", font=font, fill=0)
    first, second = place_lines(image, ["First line here", "Second"])
    assert first.bbox.y1 < 70 and second.bbox.y0 > 110
    assert second.bbox.x1 < first.bbox.x1  # each line gets its own row's width
    assert [w.text for w in first.words] == ["First", "line", "here"]
    assert first.words[0].bbox.x1 <= first.words[1].bbox.x0
    three = place_lines(image, ["a", "b", "c"])  # more lines than rows: the ink area is shared evenly
    assert len(three) == 3 and three[0].bbox.y1 <= three[1].bbox.y0
