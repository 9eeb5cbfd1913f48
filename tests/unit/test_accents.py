"""When a page read with ``eng`` is read again with the Latin script model (ocr/accents.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, Word
from ocrqueue.documents.ocr.accents import ENGLISH_WORDS, OTHER_WORDS, needs_latin_model

BOX = BBox(0, 0, 10, 10)


def _page(text: str) -> tuple[Block, ...]:
    words = tuple(Word(w, BOX, 0.9) for w in text.split())
    line = Line(text, BOX, 0.9, words)
    return (Block("text", BOX, text, 0.9, (line,)),)


def test_english_prose_is_not_read_again() -> None:
    assert not needs_latin_model(_page("The committee reviewed the report and approved the budget for the year."))
    assert not needs_latin_model(())


def test_german_read_without_its_umlauts_is_read_again() -> None:
    """What eng made of a German paragraph: no accent left, but its function words are German."""
    eng_read = "Die Bricke tuber den Fluss wurde im Fruhjahr eroffnet und die Strafenbahn fahrt nun haufiger."
    assert needs_latin_model(_page(eng_read + " Fur Kinder gibt es ermafsigte Fahrkarten mit der Karte."))


def test_accents_that_eng_read_send_the_page_to_the_latin_model() -> None:
    assert needs_latin_model(_page("Le comité a étudié le rapport annuel et approuvé le budget prévu."))


def test_one_accented_name_or_one_quoted_phrase_on_an_english_page_is_not_enough() -> None:
    english = "The library in Zürich has the books. " + "It is open for all of the others that are here. " * 5
    assert not needs_latin_model(_page(english))
    assert not needs_latin_model(_page(english + " as the French say, c'est la vie, for it is so"))


ascii_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9).filter(
    lambda w: w not in OTHER_WORDS
)


@given(st.lists(st.one_of(ascii_words, st.sampled_from(sorted(ENGLISH_WORDS))), max_size=200))
def test_a_page_of_unaccented_words_none_of_another_language_is_never_read_again(words: list[str]) -> None:
    assert not needs_latin_model(_page(" ".join(words)))


@given(st.lists(st.sampled_from(sorted(OTHER_WORDS)), min_size=3, max_size=50), st.integers(0, 2))
def test_more_foreign_function_words_than_english_ones_always_are(foreign: list[str], english: int) -> None:
    words = foreign + ["the"] * min(english, len(foreign) - 1)
    assert needs_latin_model(_page(" ".join(words)))
