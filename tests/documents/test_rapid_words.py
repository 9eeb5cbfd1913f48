"""RapidOCR's pieces split into words from the recogniser's own tokens (no model needed here)."""

from __future__ import annotations

from ocrqueue.documents.engines.rapid import _words


def _token(text: str, x0: float, x1: float) -> tuple[str, float, list[list[float]]]:
    return text, 0.9, [[x0, 0], [x1, 0], [x1, 20], [x0, 20]]


def test_latin_tokens_are_words_already() -> None:
    words = _words(
        "Plot points by lines",
        [_token("Plot", 0, 30), _token("points", 38, 80), _token("by", 88, 100), _token("lines", 108, 140)],
    )
    assert [w.text for w in words] == ["Plot", "points", "by", "lines"]
    assert (words[1].bbox.x0, words[1].bbox.x1) == (38, 80)


def test_characters_join_into_words_at_spaces_and_wide_gaps() -> None:
    """A note in the margin and the item beside it came out of the detector as one piece; the
    recogniser's characters show the gap between them."""
    text = "info/id id = {数字}"
    tokens = [_token("info/id", 0, 60)] + [_token(ch, 100 + 10 * i, 108 + 10 * i) for i, ch in enumerate("id")]
    tokens += [_token("=", 130, 138)] + [_token(ch, 146 + 10 * i, 154 + 10 * i) for i, ch in enumerate("{数字}")]
    assert [w.text for w in _words(text, tokens)] == ["info/id", "id", "=", "{数字}"]
    chinese = [_token(ch, 12 * i, 12 * i + 11) for i, ch in enumerate("学校代码")] + [_token("说明", 200, 224)]
    assert [w.text for w in _words("学校代码说明", chinese)] == ["学校代码", "说明"]


def test_tokens_that_do_not_match_the_text_leave_the_piece_whole() -> None:
    assert _words("abc def", [_token("abc", 0, 30), _token("xyz", 40, 70)]) == ()
    assert _words("abc", [("abc", 0.9, None)]) == ()  # type: ignore[list-item]
