# ruff: noqa: RUF001 (Cyrillic and Greek letters are the point)
"""The real-page evaluation's measures on scripts written without spaces and with combining marks."""

from __future__ import annotations

from data.metrics import bag_of_words_f1, full_text, normalise, text_cer, text_cer_nearest, tokens
from hypothesis import given, settings
from hypothesis import strategies as st

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, PageResult, Word, line_text

THAI = "ภาษาไทยเขียนติดกันโดยไม่เว้นวรรคระหว่างคำ"
JAPANESE = "パッケージをビルドするにはこのコマンドを使います"


def test_a_thai_line_is_a_bag_of_characters_not_one_word() -> None:
    one_wrong = THAI.replace("เขียน", "เขียร")
    assert 0.9 < bag_of_words_f1(THAI, one_wrong) < 1.0


def test_kana_are_counted_character_by_character() -> None:
    one_wrong = JAPANESE.replace("ビルド", "ビルト")
    assert 0.9 < bag_of_words_f1(JAPANESE, one_wrong) < 1.0


def test_marks_stay_with_their_letter() -> None:
    assert tokens("ที่นี่") == ["ที่", "นี่"]
    assert tokens("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]
    assert tokens("كَتَبَ الوَلَدُ") == ["كَتَبَ", "الوَلَدُ"]


def test_latin_and_han_tokens_are_as_before() -> None:
    assert tokens("Read 3 pages_of 中文 now") == ["Read", "3", "pages", "of", "中", "文", "now"]


def test_spaces_beside_thai_or_kana_do_not_count() -> None:
    assert text_cer(THAI, "ภาษาไทย เขียนติดกัน โดยไม่เว้นวรรค ระหว่างคำ") == 0.0
    assert text_cer(JAPANESE, "パッケージを ビルドするには") > 0.0
    assert text_cer("パッケージをビルド", "パッケージを ビルド") == 0.0


_text = st.text(alphabet=st.sampled_from(list("abcé Жж ש ก ज़ ि 字 ་ཀ\n-.")), max_size=60)


# The properties below are of pure functions: no time limit per example, so that a loaded
# 2-core machine cannot fail them.


@settings(deadline=None)
@given(_text)
def test_a_text_read_exactly_scores_perfectly(text: str) -> None:
    assert text_cer(text, text) == 0.0
    assert bag_of_words_f1(text, text) == 1.0


@settings(deadline=None)
@given(_text, _text)
def test_the_scores_are_bounded_and_f1_symmetric(reference: str, hypothesis: str) -> None:
    assert 0.0 <= bag_of_words_f1(reference, hypothesis) <= 1.0
    assert bag_of_words_f1(reference, hypothesis) == bag_of_words_f1(hypothesis, reference)
    assert text_cer(reference, hypothesis) >= 0.0


@settings(deadline=None)
@given(_text.filter(lambda t: normalise(t) != ""))
def test_reading_nothing_costs_every_character(reference: str) -> None:
    assert text_cer(reference, "") == 1.0
    assert bag_of_words_f1(reference, "") == (1.0 if not tokens(normalise(reference)) else 0.0)


def test_word_f1_counts_words_and_character_f1_characters() -> None:
    assert bag_of_words_f1("один два три четыре", "один два три") == 2 * 1.0 * 0.75 / 1.75
    assert tokens("བོད་ཡིག") == ["བོ", "ད", "ཡི", "ག"]  # Tibetan: characters with their vowel signs
    assert tokens("ភាសាខ្មែរ")[:2] == ["ភា", "សា"]


def test_a_word_hyphenated_at_a_line_end_is_one_word_in_every_script() -> None:
    # The text layer marks the break (U+FFFE) and the reading keeps "вклю-" over "чват": a Cyrillic or
    # Greek word so broken counted as two wrong words, a Latin one as one right word.
    for broken, whole in (("com-\nmands", "commands"), ("вклю-\nчват", "включват"), ("συλ-\nλαβή", "συλλαβή")):
        assert normalise(broken) == whole
        assert bag_of_words_f1(whole, broken) == 1.0
    assert normalise("Franco-\nGerman") == "Franco- German"
    assert normalise("Северо-\nЗапад") == "Северо- Запад"


def test_a_zero_width_space_is_not_text_but_a_non_joiner_is() -> None:
    assert text_cer("ថាតើ\u200bgedit\u200bគួរ", "ថាតើgeditគួរ") == 0.0
    assert text_cer("می\u200cشود", "میشود") > 0.0


def test_a_reading_in_either_reference_order_scores_as_that_order() -> None:
    across = "left one right one left two right two"
    down = "left one left two right one right two"
    assert text_cer(across, down) > 0.3
    assert text_cer_nearest([across, down], down) == 0.0
    assert text_cer_nearest([across, down], "left one left twa right one right two") == text_cer(
        down, "left one left twa right one right two"
    )


def test_a_drawn_bullet_is_left_out_of_the_scored_text() -> None:
    """A bullet the PDF draws as a shape is a word the reading adds ("role": "bullet"); the text
    layer the reading is scored against has no such character. A bullet set as a character is
    text of the layer, and stays."""
    box = BBox(0, 0, 10, 10)
    drawn = (Word("\u2022", box, 1.0, role="bullet"), Word("Harbour", box, 1.0), Word("works", box, 1.0))
    typed = (Word("\u2022", box, 1.0), Word("Pier", box, 1.0))
    lines = (Line(line_text(drawn), box, 1.0, drawn), Line(line_text(typed), box, 1.0, typed))
    page = PageResult(0, 10, 10, "text_layer", (Block("list", box, "Harbour works\nPier", 1.0, lines),))
    assert full_text(page) == "Harbour works\n\u2022 Pier"


def test_a_drawn_check_box_is_left_out_of_the_scored_text() -> None:
    """A check box is a frame drawn on the page, read as a word "☐" with the role "checkbox"."""
    box = BBox(0, 0, 10, 10)
    words = (Word("\u2610", box, 1.0, role="checkbox"), Word("Cairo", box, 1.0))
    page = PageResult(
        0, 10, 10, "tesseract", (Block("list", box, "\u2610 Cairo", 1.0, (Line("\u2610 Cairo", box, 1.0, words),)),)
    )
    assert full_text(page) == "Cairo"
