"""Whether a page read with Tesseract's ``eng`` model needs its model for the whole Latin script.

``eng`` reads English prose at about two thirds of the Latin model's cost (and at about 100 MB
less on a poster's huge lines), but it has no accents: "Brücke" comes back as "Bricke" or
"Briicke", "à" as "a". So a page whose script is Latin is read with ``eng`` first, and again with
the Latin model when the first reading is not English: either ``eng`` itself put accented letters
on the page (it knows a few: "é" of French and Spanish), or the page's commonest short words are
another language's ("und", "der", "les", "que", "nie": read well without their accents, if any).
Low word confidence would not tell: on English manual pages (dev split) 1 to 37 % of the words
read under 0.7 (commands, formulas), on a German page 6 %. Both tests ask for several words, so
one name with an accent or one quoted phrase on an English page does not pay for a second
reading.

A Vietnamese page read with ``eng`` shows accents too; read with the Latin model it would only be
told Vietnamese afterwards (script_recheck.script_to_reread) and read a third time, with the
Vietnamese model. When ``eng``'s reading already holds many of Vietnamese's commonest syllables
(``reads_as_vietnamese``), the page is read with the Vietnamese model straight away (ocr/page.py).
"""

from __future__ import annotations

import unicodedata

from ocrqueue.documents.model import Block

MIN_ACCENTED_WORDS = 2
ACCENTED_SHARE = 0.01
MIN_FOREIGN_WORDS = 3
# Vietnamese syllables as ``eng`` reads them, tone marks dropped ("các" -> "cac", "không" ->
# "khong"; ``eng`` reads "được" as "dugc" or "duge", "của" as "cia"), left out where they are
# words of English or another Latin-script language ("se", "va", "de", "the", "ban", "can").
# On the dev scans of the nine Vietnamese pages (LaTeX manual, GNOME messages) read with ``eng``:
# 18-90 of them a page (8-24 words of other languages' lists, 1-14 of English's).
MIN_VIETNAMESE_WORDS = 8
VIETNAMESE_SHARE = 0.05
# Of them in the first look's band of a few lines (``band_reads_as_vietnamese``).
BAND_VIETNAMESE_WORDS = 3
# Function words as ``eng`` reads them (accents dropped), of English and of the languages that
# Latin covers; words common to English and another ("in", "a", "die", "on") are left out.


def _words(*groups: str) -> frozenset[str]:
    return frozenset(word for group in groups for word in group.split())


ENGLISH_WORDS = _words(
    "the and of to is that for it with as are this be by or from", "an which not you can was were has have"
)
OTHER_WORDS = _words(
    "der das und ist nicht mit den dem des ein eine einen auf sich auch fur uber oder wird sind",  # German
    "le la les des et est une pour dans que qui pas sur du au aux avec ce cette sont",  # French
    "el los las del por con una para como es lo se al",  # Spanish
    "il che di della per non sono gli nel",  # Italian
    "os do da em um uma com nao ao",  # Portuguese
    "het een van en niet op voor zijn ook",  # Dutch
    "je se na ve ze jako pro jsou nebo",  # Czech
    "nie sie jest do jak lub oraz przez",  # Polish
    "och att som pa ett av har med",  # Swedish
    "ja ei ole mutta",  # Finnish
    "bir ve ile bu icin",  # Turkish
    "si sau pentru care este",  # Romanian
)


VIETNAMESE_WORDS = _words(
    "cac trong nay lenh nhu khong khi mot thi viec tren neu nhung cach dung duoc dugc duge cua cia",
    "nguoi ngudi hoac thay vao hinh phan khac tap cung theo tinh phai thiet nhieu duoi hien chon dang",
)


def needs_latin_model(blocks: tuple[Block, ...]) -> bool:
    """Whether a page read with ``eng`` should be read again with the Latin script model."""
    words = [w.text for b in blocks for ln in b.lines for w in ln.words]
    accented = sum(1 for w in words if any(_accented(c) for c in w))
    if accented >= MIN_ACCENTED_WORDS and accented >= ACCENTED_SHARE * len(words):
        return True
    bare = [w.strip(".,;:!?()[]\"'«»").lower() for w in words]
    foreign = sum(1 for w in bare if w in OTHER_WORDS)
    return foreign >= MIN_FOREIGN_WORDS and foreign > sum(1 for w in bare if w in ENGLISH_WORDS)


def _accented(char: str) -> bool:
    return not char.isascii() and char.isalpha() and "LATIN" in unicodedata.name(char, "")


def reads_as_vietnamese(blocks: tuple[Block, ...]) -> bool:
    """Whether a page read with ``eng`` holds ``MIN_VIETNAMESE_WORDS`` or more of Vietnamese's
    commonest syllables, ``VIETNAMESE_SHARE`` of its words at least, and more of them than of
    English's or other languages' commonest words."""
    words = [w.text for b in blocks for ln in b.lines for w in ln.words]
    vietnamese, english, other = _syllable_counts(words)
    return (
        vietnamese >= MIN_VIETNAMESE_WORDS
        and vietnamese >= VIETNAMESE_SHARE * len(words)
        and vietnamese > max(english, other)
    )


def band_reads_as_vietnamese(words: list[str]) -> bool:
    """Whether the few lines of the first look's band (ocr/detect.py), read with ``eng``, hold
    ``BAND_VIETNAMESE_WORDS`` or more of Vietnamese's commonest syllables, more than other
    languages' commonest words and no fewer than English's (a Vietnamese LaTeX manual quotes
    English). On the dev split (bench/accuracy.py pages, every script, two pages a document,
    clean and scanned: 98 pages) the bands of the Vietnamese pages held 3 to 7 of them (0 on one
    page of two short messages), every other band 1 or none."""
    vietnamese, english, other = _syllable_counts(words)
    return vietnamese >= BAND_VIETNAMESE_WORDS and vietnamese > other and vietnamese >= english


def _syllable_counts(words: list[str]) -> tuple[int, int, int]:
    """Words of ``words`` that are Vietnamese's commonest syllables (tone marks dropped),
    English's commonest words, and other Latin-script languages' commonest words."""
    bare = [_without_marks(w.strip(".,;:!?()[]\"'«»“”").lower()) for w in words]
    return (
        sum(1 for w in bare if w in VIETNAMESE_WORDS),
        sum(1 for w in bare if w in ENGLISH_WORDS),
        sum(1 for w in bare if w in OTHER_WORDS),
    )


def _without_marks(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
