"""Script detection by code point and the one table of script models (documents/scripts.py), and
the languages a page of each script is read with (ocr/engine_choice.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ocrqueue.documents.ocr.detect import osd_script
from ocrqueue.documents.ocr.engine_choice import by_language_models, language_models, languages_to_ask
from ocrqueue.documents.output.languages import bcp47
from ocrqueue.documents.scripts import (
    _VIETNAMESE,
    MIN_LETTERS,
    MIN_SHARE,
    SCRIPT_MODELS,
    VIETNAMESE_SHARE,
    may_be_vietnamese,
    script_counts,
    script_of,
    script_read_by,
    scripts_in,
)

# Letters of each script, for generated text (no Vietnamese: it is Latin letters told by their share).
LETTERS = {
    "Latin": "abcdefghijklmnopqrstuvwxyzéèüöäñç",
    "Cyrillic": "абвгдежзийклмнопрстуфхцчшщыэюяіїєґ",
    "Greek": "αβγδεζηθικλμνξοπρστυφχψωάέή",
    "Armenian": "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ",
    "Georgian": "აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ",
    "Hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
    "Arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهويپچژگکی",
    "Devanagari": "अआइईउऊएऐओऔकखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह",
    "Bengali": "অআইঈউঊএঐওঔকখগঘচছজঝটঠডঢণতথদধনপফবভমযরলশষসহ",
    "Tamil": "அஆஇஈஉஊஎஏஐஒஓஔகஙசஞடணதநபமயரலவழளறன",
    "Thai": "กขคงจฉชซญดตถทธนบปผพฟภมยรลวศษสหอฮ",
    "Lao": "ກຂຄງຈຊຍດຕຖທນບປຜຝພຟມຢຣລວສຫອຮ",
    "Tibetan": "ཀཁགངཅཆཇཉཏཐདནཔཕབམཙཚཛཝཞཟའཡརལཤསཧཨ",
    "Myanmar": "ကခဂဃငစဆဇဈညဋဌဍဎဏတထဒဓနပဖဗဘမယရလဝသဟဠအ",
    "Khmer": "កខគឃងចឆជឈញដឋឌឍណតថទធនបផពភមយរលវសហឡអ",
    "Ethiopic": "ሀለሐመሠረሰሸቀበተቸኀነኘአከኸወዐዘዠየደጀገጠጨጰጸፀፈፐ",
    "Hangul": "가나다라마바사아자차카타파하한국어글",
    "Japanese": "あいうえおかきくけこさしすせそアイウエオカキクケコ",
    "Han": "的一是不了人我在有他这中大来上们到说国和地也",
}


def test_every_script_has_a_model_and_a_package() -> None:
    for script, model in SCRIPT_MODELS.items():
        assert model.package.startswith("tesseract-ocr-script-")
        assert script_read_by(model.model) == script
        assert bcp47(model.model) is not None
    assert script_read_by("HanT") == "Han" and script_read_by("Cyrillic_vert") == "Cyrillic"
    assert script_read_by("rus") == "Cyrillic" and script_read_by("eng") == "Latin"


@pytest.mark.parametrize("script", sorted(LETTERS))
def test_each_script_is_told_by_its_letters(script: str) -> None:
    assert {script_of(char) for char in LETTERS[script]} == {script}


@given(st.sampled_from(sorted(LETTERS)), st.lists(st.integers(0, 200), min_size=8, max_size=200), st.data())
def test_a_text_of_one_script_with_a_few_latin_letters_is_that_script(
    script: str, picks: list[int], data: st.DataObject
) -> None:
    """Latin words (commands, names, numbers) under ``MIN_SHARE`` of the letters never count."""
    letters = LETTERS[script]
    text = " ".join(letters[i % len(letters)] * 2 for i in picks)
    latin = data.draw(st.integers(0, int(MIN_SHARE * len(text.replace(" ", "")) * 0.9)))
    found = scripts_in(text + " " + "x" * latin + " 12345 ")
    assert found[0] == script or (script == "Han" and found == ())
    assert script != "Latin" or found == ("Latin",)
    if script != "Latin":
        assert "Latin" not in found


@given(st.sampled_from(sorted(set(LETTERS) - {"Latin", "Han", "Japanese"})), st.integers(3, 60), st.integers(3, 60))
def test_a_page_that_mixes_two_scripts_has_both(script: str, own: int, latin: int) -> None:
    """A Russian manual quoting English commands, a Korean page with Latin code, most letters first."""
    text = LETTERS[script][:1] * own * 10 + " apt-get " * latin
    assume(latin * 6 >= MIN_SHARE * (own * 10 + latin * 6))
    found = scripts_in(text)
    assert set(found) == {script, "Latin"}
    assert found[0] == (script if own * 10 >= latin * 6 else "Latin")


def test_vietnamese_is_told_by_its_tone_marked_letters() -> None:
    assert scripts_in("Tiếng Việt có dấu thanh điệu rõ ràng trên mỗi nguyên âm") == ("Vietnamese",)
    assert scripts_in("Ông ấy đã đọc hết cuốn sách và viết thư cho người bạn") == ("Vietnamese",)
    # Other Latin-script languages with accents, Croatian đ and Romanian ă included, stay Latin.
    for text in (
        "L'élève français écrit à sa sœur",
        "Die Brücke über den Fluß",
        "Đakovo je grad u Hrvatskoj",
        "În această ţară",
    ):
        assert scripts_in(text) == ("Latin",)


def test_vietnamese_that_lost_its_tone_marks_may_be_vietnamese() -> None:
    """What Tesseract's Latin model read of a Vietnamese page, and other languages' accents."""
    assert may_be_vietnamese(
        "Vi trí máy trên mang - chi tìm kiëém thu mųc hiên tai\nTên tâp tin không duoc phép bắt đầu bằng dâu cách"
    )
    assert not may_be_vietnamese("Příliš žluťoučký kůň úpěl ďábelské ódy a další věty v češtině")
    french = "Au moins une signature non valable a été rencontrée. Le cache est désynchronisé."
    assert not may_be_vietnamese(french + " Impossible de référencer un fichier")  # apt's French catalog
    assert not may_be_vietnamese("The queue keeps every task until a worker completes it.")


def test_kana_make_a_page_japanese_and_hangul_is_not_han() -> None:
    assert scripts_in("日本語の文書をここに書きます") == ("Japanese",)
    # Kanji and kana are one script's letters: together 5 % of a mostly English text's letters.
    english = "Invoices must be submitted within thirty days of delivery. " * 5
    assert scripts_in(english + "標準入力から読み込んだ文字列") == ("Latin", "Japanese")
    assert scripts_in("这是中文的文件") == ("Han",)
    assert scripts_in("한국어 문서를 여기에 씁니다") == ("Hangul",)
    assert scripts_in("ᄀᄁᄂᄃ ㄱㄴㄷㄹ") == ("Hangul",)


def test_osd_names_map_onto_the_table() -> None:
    assert osd_script("Japanese") == "Han" and osd_script("Korean") == "Hangul" and osd_script("Hangul") == "Hangul"
    assert osd_script("Armenian") == "Armenian" and osd_script("Fraktur") == "Latin" and osd_script("Common") == "Latin"


def test_a_script_is_read_with_its_model_and_latin_beside_it() -> None:
    tesseract = frozenset({"eng", "Latin", "chi_sim", "Cyrillic", "Hangul", "Vietnamese", "Hebrew", "Arabic", "osd"})
    assert languages_to_ask(("Cyrillic",), tesseract) == ("Cyrillic", "Latin")
    assert languages_to_ask(("Hangul", "Latin"), tesseract) == ("Hangul", "Latin")
    assert languages_to_ask(("Vietnamese",), tesseract) == ("Vietnamese", "Latin")
    assert languages_to_ask(("Hebrew",), tesseract) == ("Hebrew", "eng")
    assert languages_to_ask(("Arabic", "Latin"), tesseract) == ("Arabic", "eng")
    assert languages_to_ask(("Latin", "Cyrillic"), tesseract) == ("eng", "Cyrillic")
    assert languages_to_ask(("Latin",), tesseract) == ("eng",)
    assert languages_to_ask(("Latin",), tesseract - {"eng"}) == ("Latin",)
    assert languages_to_ask(("Han",), tesseract) == ("chi_sim", "eng")
    # No model for Armenian: the page is read with the Latin model (and the page warns, ocr/page.py).
    assert languages_to_ask(("Armenian",), tesseract) == ("Latin",)
    # A language model where the script model is missing; an engine asked for no languages.
    assert languages_to_ask(("Cyrillic",), frozenset({"eng", "rus"})) == ("rus", "eng")
    assert languages_to_ask(("Greek",), frozenset()) == ("ell", "eng")
    assert languages_to_ask(("Japanese",), frozenset({"chi_sim", "chi_tra", "jpn", "eng"})) == ("jpn", "eng")


def test_thai_is_read_with_the_thai_language_model_where_it_is_installed_and_english() -> None:
    tesseract = frozenset({"eng", "Latin", "Thai", "Cyrillic", "osd"})
    assert languages_to_ask(("Thai",), tesseract | {"tha"}) == ("Thai", "Latin")
    assert language_models(("Thai", "Latin"), tesseract | {"tha"}) == ("tha", "eng")
    assert language_models(("Thai", "Cyrillic", "Latin"), tesseract | {"tha"}) == ("tha", "eng", "Cyrillic")
    assert language_models(("Thai", "Latin"), tesseract) is None
    assert language_models(("Cyrillic", "Thai", "Latin"), tesseract | {"tha"}) is None
    assert by_language_models(("tha", "eng")) and not by_language_models(("Thai", "Latin"))


def _counted_char_by_char(text: str) -> Counter[str]:
    """script_counts as it was written first: one look-up a character (the reference its faster
    counting must agree with, in the order the scripts come too)."""
    counts = Counter(s for s in map(script_of, text) if s is not None)
    vietnamese = sum(1 for char in text if char in _VIETNAMESE)
    if vietnamese >= MIN_LETTERS and vietnamese >= VIETNAMESE_SHARE * counts["Latin"]:
        counts["Vietnamese"] = counts.pop("Latin")
    return counts


_MIXED = "".join(LETTERS.values()) + "ệấờữơư0123 ,.-\u2013\u2019\u0301\n"


@given(
    st.text(alphabet=st.characters(codec="utf-8"))
    | st.text(alphabet=_MIXED)
    | st.text(alphabet=st.characters(codec="ascii"))
)
def test_script_counts_are_those_of_each_character_in_the_order_they_come(text: str) -> None:
    counts = script_counts(text)
    assert list(counts.items()) == list(_counted_char_by_char(text).items())
