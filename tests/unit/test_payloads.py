"""Each kind's typed payload reads back what it wrote, and a payload that does not read says why."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.service import OcrPayload, ProcessOptions, VisionPayload
from ocrqueue.service.payloads import PayloadError

names = st.text(max_size=40)
keys = st.from_regex(r"uploads/[0-9a-f]{32}", fullmatch=True)
options = st.builds(
    ProcessOptions,
    mode=st.sampled_from(["auto", "ocr", "text"]),
    engine=st.sampled_from(["tesseract", "rapidocr", "vlm"]),
    languages=st.lists(st.sampled_from(["eng", "deu", "chi_sim"]), min_size=1, max_size=3).map(tuple),
    dpi=st.integers(72, 600),
    tables=st.booleans(),
    layout_model=st.booleans(),
    char_boxes=st.booleans(),
)


@given(keys, names, options, st.text(alphabet="0123456789abcdef", max_size=64), st.integers(0, 1 << 40))
def test_ocr_payload_round_trips(key: str, filename: str, chosen: ProcessOptions, sha: str, size: int) -> None:
    payload = OcrPayload(key, filename, chosen, sha256=sha, size=size)
    assert OcrPayload.from_json(payload.to_json()) == payload


@given(keys, names, st.text(min_size=1, max_size=200), st.none() | st.integers(1, 8192))
def test_vision_payload_round_trips(key: str, filename: str, question: str, max_tokens: int | None) -> None:
    payload = VisionPayload(key, filename, question, max_tokens)
    assert VisionPayload.from_json(payload.to_json()) == payload


@pytest.mark.parametrize(
    ("reader", "raw", "words"),
    [
        (OcrPayload.from_json, [], "not a JSON object"),
        (OcrPayload.from_json, {"filename": "a.pdf"}, "'input'"),
        (OcrPayload.from_json, {"input": "uploads/x", "options": {"dpi": 5}}, "options are invalid"),
        (OcrPayload.from_json, {"input": "uploads/x", "options": "ocr"}, "options are not"),
        (VisionPayload.from_json, {"input": "uploads/x"}, "'question'"),
        (VisionPayload.from_json, {"input": "uploads/x", "question": "q", "max_tokens": "9"}, "max_tokens"),
    ],
)
def test_a_payload_that_does_not_read_says_what_is_wrong(reader: object, raw: object, words: str) -> None:
    with pytest.raises(PayloadError, match=words):
        reader(raw)  # type: ignore[operator]
