"""Hyphenation marks and invisible characters: a word broken at a line end is one word again, and
no control character reaches JSON or Markdown, on generated and real (R manual) pages."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from generate import PdfBuilder
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents.text import (
    _MARK_AT_END,
    HYPHEN_MARKS,
    MAX_WIDE_SHARE_IN_CODE,
    clean_text,
    composed,
    is_unwanted,
    is_wide,
    join_lines,
    mostly_wide,
)

from .helpers import run

R_INTRO_PAGE = Path(__file__).resolve().parents[1] / "data" / "r-intro-page44.pdf"


def _invisible(text: str) -> list[str]:
    return [ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf", "Cs") and ch not in "\n\t\u200c\u200d"]


def _hyphenated_pdf() -> bytes:
    pdf = PdfBuilder()
    pdf.add_page(
        [
            PdfBuilder.text(72, 100, 11, "The worker runs the com-"),
            PdfBuilder.text(72, 114, 11, "mands it was given, in"),
            PdfBuilder.text(72, 128, 11, "troduced by a Franco-"),
            PdfBuilder.text(72, 142, 11, "German team."),
        ]
    )
    return pdf.build()


@pytest.mark.parametrize("char_boxes", [False, True])
def test_word_hyphenated_across_a_line_end_is_one_word(char_boxes: bool) -> None:
    result = run(_hyphenated_pdf(), char_boxes=char_boxes)
    (block,) = result.pages[0].blocks
    assert block.text == "The worker runs the commands it was given, in troduced by a Franco- German team."
    assert [ln.text for ln in block.lines][:2] == ["The worker runs the com-", "mands it was given, in"]
    assert block.lines[1].bbox.y0 > block.lines[0].bbox.y1  # the broken word is not one box over two lines
    if char_boxes:
        assert all(len(w.chars) == len(w.text) for ln in block.lines for w in ln.words)
    assert "commands" in result.to_markdown()
    assert not _invisible(result.to_json()) and not _invisible(result.to_markdown())


def test_real_manual_page_has_no_control_characters() -> None:
    """R-intro.pdf (Debian's r-doc-pdf), page 44: PDFium marks "right-" at a line end with U+FFFE."""
    result = run(R_INTRO_PAGE.read_bytes())
    text = json.dumps(result.to_dict(), ensure_ascii=False)
    assert "\ufffe" not in text and "\x02" not in text
    assert not _invisible(text) and not _invisible(result.to_markdown())


@given(st.text())
def test_clean_text_leaves_nothing_invisible(text: str) -> None:
    cleaned = clean_text(text)
    assert not _invisible(cleaned)
    assert "\ufffe" not in cleaned and "\uffff" not in cleaned
    assert clean_text(cleaned) == cleaned


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "Zs"])))
def test_clean_text_keeps_visible_text(text: str) -> None:
    """Kept, in the composed form (NFC) every path gives."""
    assert clean_text(text) == composed("".join(" " if ch.isspace() else ch for ch in text))


@given(st.lists(st.text(alphabet="abcAB- \x02\ufffe", min_size=1), max_size=6))
def test_joined_lines_hold_no_marks(lines: list[str]) -> None:
    joined = join_lines([clean_text(line) for line in lines])
    assert "\x02" not in joined and "\ufffe" not in joined


def test_printable_ascii_comes_back_as_it_is_and_other_ascii_is_cleaned() -> None:
    assert clean_text("Reading cost: 1.0x (eng), 200 dpi!") == "Reading cost: 1.0x (eng), 200 dpi!"
    assert clean_text("hyphen\x02") == "hyphen-"
    assert clean_text("a\tb\x07c") == "a bc"


def _cleaned_char_by_char(text: str) -> str:
    """clean_text as it was written first: every character looked at (the reference its fast paths
    must agree with)."""
    text = _MARK_AT_END.sub("-", text)
    kept = [(" " if ch.isspace() else ch) for ch in text if ch.isspace() or not (is_unwanted(ch) or ch in HYPHEN_MARKS)]
    return composed("".join(kept))


_ANY = st.text(alphabet=st.characters(codec="utf-8")) | st.text(
    alphabet="aé\u0301\u0e4d\u0e32 \t\x02\ufffe\u00ad\u200c\u4e2d"
)


@given(_ANY)
def test_clean_text_is_what_looking_at_every_character_gives(text: str) -> None:
    """Printable text (not ASCII: Cyrillic, Chinese, accented letters) skips the look at each
    character: it holds nothing that look would drop, and comes back composed."""
    assert clean_text(text) == _cleaned_char_by_char(text)


@given(_ANY)
def test_mostly_wide_counts_every_visible_character(text: str) -> None:
    visible = [ch for ch in text if not ch.isspace()]
    assert mostly_wide(text) == (sum(map(is_wide, visible)) > MAX_WIDE_SHARE_IN_CODE * len(visible))
