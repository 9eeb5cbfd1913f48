"""Whether Arabic-script text is in the Arabic language or in Persian, told by its letters.

Arabic writes ي, ك and ة; Persian writes ی and ک and its own پ چ ژ گ, and Urdu those with its own
beside. The OCR path asks this of a band read with the ``Arabic`` model before it reads a page
(ocr/arabic_language.py); the text-layer path of a page's own text, to name its language.
"""

# ruff: noqa: RUF003 (Arabic, Persian and Urdu letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

ARABIC_LANGUAGE = "ara"
PERSIAN_LANGUAGE = "fas"
# ي (yeh), ك (kaf), ة (teh marbuta): Arabic writes them, Persian and Urdu write ی, ک and rarely ة.
ARABIC_LETTERS = frozenset("\u064a\u0643\u0629")
# پ چ ژ گ, Persian yeh ی and keheh ک, heh with yeh above ۀ; Urdu's tteh ٹ, ddal ڈ, rreh ڑ, noon
# ghunna ں, heh doachashmee ھ, heh goal ہ, yeh barree ے.
PERSIAN_LETTERS = frozenset("\u067e\u0686\u0698\u06af\u06cc\u06a9\u06c0\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2")
# Persian's own among them (Urdu writes them too, with its own beside: ``URDU_LETTERS``).
PERSIAN_OWN = frozenset("\u067e\u0686\u0698\u06af\u06cc\u06a9\u06c0")
URDU_LETTERS = PERSIAN_LETTERS - PERSIAN_OWN
MIN_ARABIC_LETTERS = 8
MIN_PERSIAN_LETTERS = 4
# Arabic's letters needed for each Persian or Urdu one (the Arabic model misreads a few: ڈ, ک).
ARABIC_PER_PERSIAN = 4


def language_of(text: str) -> str | None:
    """The language of Arabic-script ``text`` (a page's text layer, or read with the ``Arabic``
    model): ``ara`` when
    ``reads_as_arabic_language``, ``fas`` when it holds ``MIN_PERSIAN_LETTERS`` or more of
    Persian's own letters, at least as many as Arabic's own and ``ARABIC_PER_PERSIAN`` of them
    for each of Urdu's; None when its letters do not tell."""
    if reads_as_arabic_language(text):
        return ARABIC_LANGUAGE
    arabic = sum(1 for c in text if c in ARABIC_LETTERS)
    persian = sum(1 for c in text if c in PERSIAN_OWN)
    urdu = sum(1 for c in text if c in URDU_LETTERS)
    if persian >= MIN_PERSIAN_LETTERS and persian >= arabic and persian >= ARABIC_PER_PERSIAN * urdu:
        return PERSIAN_LANGUAGE
    return None


def reads_as_arabic_language(text: str) -> bool:
    """Whether Arabic-script ``text`` read with the ``Arabic`` model is Arabic, not Persian or
    Urdu: ``MIN_ARABIC_LETTERS`` or more of Arabic's own letters and ``ARABIC_PER_PERSIAN`` of
    them for each Persian or Urdu letter."""
    arabic, persian = letters(text)
    return arabic >= MIN_ARABIC_LETTERS and arabic >= ARABIC_PER_PERSIAN * persian


def letters(text: str) -> tuple[int, int]:
    """(Arabic's own letters, Persian and Urdu ones) in ``text``."""
    return sum(1 for c in text if c in ARABIC_LETTERS), sum(1 for c in text if c in PERSIAN_LETTERS)


def languages_named(languages: tuple[str, ...], text: str) -> tuple[str, ...]:
    """A page's ``languages`` (those of its scripts) with the Persian language's code for the
    Arabic one when its ``text`` is Persian (``language_of``)."""
    if ARABIC_LANGUAGE not in languages or language_of(text) != PERSIAN_LANGUAGE:
        return languages
    return tuple(PERSIAN_LANGUAGE if lang == ARABIC_LANGUAGE else lang for lang in languages)
