"""Whether a page in the Arabic script is in the Arabic language, told by its letters before it is read.

Tesseract's ``Arabic`` script model reads Arabic and Persian alike; Debian's ``ara`` language model
(tesseract-ocr-ara) reads Arabic-language pages much better beside it but has no Persian letters
(bench/accuracy.py --corpus scripts --split dev, gedit-ar: ``Arabic+eng`` clean 0.079 / 0.089 /
0.075, scan 0.036 / 0.100 / 0.101; ``Arabic+ara`` clean 0.031 / 0.034 / 0.050, scan 0.051 /
0.035 / 0.058; ``ara`` alone and ``ara+eng`` read the scans worse, 0.11-0.21), at about the same
CPU a page. So once the first look says Arabic, a band across the middle of the straightened
page's text is read with ``Arabic`` alone (a tenth to a fifth of a page's reading), and a band
whose letters are Arabic's own (ي ك ة) and not Persian's or Urdu's (پ چ ژ گ, Persian ی and ک,
ۀ, Urdu's ٹ ڈ ڑ ں ھ ہ ے) has the page read with ``Arabic+ara`` (``arabic_language_models``)
instead of ``Arabic+eng``: a page is read once either way. Read with ``Arabic+eng``, the dev
Arabic pages held 78-115 of Arabic's letters and 2-6 of Persian's (misread), the Persian ones
40-250 of Persian's and 0-19 of Arabic's (ة for a misread ه).

A band whose letters are Persian's (``MIN_PERSIAN_LETTERS`` or more of پ چ ژ گ ی ک ۀ, at least as
many as Arabic's own, and no more than a few of Urdu's) has the page read with Debian's ``fas``
(tesseract-ocr-fas) between the Arabic model and English (``persian_language_models``): read with
``Arabic+eng``, Persian came back with Arabic letters where Persian has its own ("پایانهٔ" as
"پايانة": ي for ی, ة for هٔ), "،" as "," and its words' zero-width non-joiners lost. Dev
gnome-terminal-fa, CER clean / scan: ``Arabic+eng`` p. 1 0.099 / 0.088, p. 2 0.070 / 0.163;
``Arabic+fas+eng`` 0.052 / 0.053 and 0.047 / 0.091; ``fas+eng`` 0.24 / 0.22 and 0.17 / 0.21
(Arabic-script Latin junk); ``Arabic+fas`` 0.108 / 0.096 and 0.083 / 0.080 (Latin words lost).
``fas`` is not read beside an Arabic page (gedit-ar p. 1 and 2 read with ``Arabic+fas+eng``:
bag-of-words F1 0.875 / 0.910 -> 0.801 / 0.837 against ``Arabic+eng``, ي read as ی) nor on a
page whose band cannot tell (it keeps ``Arabic+eng``).
"""

# ruff: noqa: RUF002 (Arabic, Persian and Urdu letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

from PIL import Image

from ocrqueue.documents.arabic_letters import (
    ARABIC_LANGUAGE,
    ARABIC_PER_PERSIAN,
    MIN_ARABIC_LETTERS,
    PERSIAN_LANGUAGE,
    language_of,
    letters,
    reads_as_arabic_language,
)
from ocrqueue.documents.engines import OcrEngine, RecognitionRequest

__all__ = ["ARABIC_LANGUAGE", "PERSIAN_LANGUAGE", "language_of", "reads_as_arabic_language"]

ARABIC_MODEL = "Arabic"
# The band read for the language: inches of text across the middle of the page's content.
BAND_IN = 1.5


def arabic_language_models(languages: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...] | None:
    """The models for an Arabic-language page chosen ``languages`` led by the Arabic script model:
    ``ara`` right after it, the rest as chosen (``Arabic+ara+eng``: without English the Latin
    words of such pages came back as junk, "Vim و Kate و Emacs" as "۷1 € 8030365"); None when
    the page is not led by it or ``ara`` is not installed (then it is read with ``languages`` as
    chosen)."""
    if not languages or languages[0] != ARABIC_MODEL or ARABIC_LANGUAGE not in offered:
        return None
    return tuple(dict.fromkeys((ARABIC_MODEL, ARABIC_LANGUAGE, *languages[1:])))


def persian_language_models(languages: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...] | None:
    """The models for a Persian page chosen ``languages`` led by the Arabic script model: ``fas``
    right after it, the rest as chosen (``Arabic+fas+eng``); None when the page is not led by it
    or ``fas`` is not installed."""
    if not languages or languages[0] != ARABIC_MODEL or PERSIAN_LANGUAGE not in offered:
        return None
    return tuple(dict.fromkeys((ARABIC_MODEL, PERSIAN_LANGUAGE, *languages[1:])))


def page_language(
    engine: OcrEngine, image: Image.Image, content: tuple[int, int, int, int] | None, dpi: int
) -> str | None:
    """The language of the page ``image`` (upright, straightened; ``content`` its text's box),
    ``ara``, ``fas`` or None (``language_of``): a band ``BAND_IN`` tall across the middle of its
    text read with the ``Arabic`` model alone, and the whole of its text when that band was too
    short to tell (too few of Arabic's letters and nothing against them: a page of a few lines
    spaced apart)."""
    box = content or (0, 0, image.width, image.height)
    band = _band(box, round(BAND_IN * dpi))
    text = _read(engine, image, band, dpi)
    arabic, persian = letters(text)
    if arabic < MIN_ARABIC_LETTERS and arabic >= ARABIC_PER_PERSIAN * persian and band != box:
        text = _read(engine, image, box, dpi)
    return language_of(text)


def _band(box: tuple[int, int, int, int], height: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    middle = (y0 + y1) // 2
    return (x0, max(y0, middle - height // 2), x1, min(y1, middle + height // 2))


def _read(engine: OcrEngine, image: Image.Image, box: tuple[int, int, int, int], dpi: int) -> str:
    if box[2] <= box[0] or box[3] <= box[1]:
        return ""
    out = engine.recognize(image.crop(box), RecognitionRequest((ARABIC_MODEL,), "text", dpi))
    return "\n".join(ln.text for ln in out.lines)
