"""The real-page evaluation's measures on scripts written without spaces and with combining marks."""

from __future__ import annotations

from data.metrics import bag_of_words_f1, text_cer, tokens

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
