"""Latin words a script model took for its own, told from the script's words and read again.

Read with ``Cyrillic+Latin``, Tesseract asks the Cyrillic model first for every word of a Russian
or Bulgarian page, and keeps its reading when that model is content with it: the Latin words of a
LaTeX manual came back in Cyrillic letters ("TEXMFSYSVAR" as "ТЕХМЕЅҮЅУАК", "\\usepackage" as
"\\иѕераскаре", "pdfjam" as "рађат", "UTF-8" as "ОТЕ-8"), which no search for the word finds. Such a
word is read again alone with English (``TesseractEngine._latin_taken_read_again``), and the
English reading kept when this module says so. Measured in docs/benchmarks.md ("Latin words read
in Cyrillic letters").

On the dev pages (texlive-ru, lshort-bg, Russian GNOME help; scanned), the Cyrillic model read its
own words at 0.91-0.97 but for a handful (figures' junk, broken italics), and the Latin words it
took at 0.00-0.90; read again alone, those Latin words came back at 0.85-0.96 with ``eng``, the
Russian words under 0.85 but for short ones that look the same in both alphabets ("на" as "Ha",
"в" as "B") and one hyphenated Bulgarian word in a poor line ("Матема-" as "Marema-", 0.84).
The Greek model reads its own words less surely (0.5-0.9 on the same scans) and ``eng`` reads
short Greek words as Latin ones with confidence ("Οἱ" as "Oi", "οι" as "ou"): Greek is not
listed.
"""

# ruff: noqa: RUF002, RUF003 (Cyrillic look-alikes of Latin letters are the point)

from __future__ import annotations

from ocrqueue.documents.scripts import script_of

# Script models whose words are checked, and the model that reads such a word again.
LATIN_TAKEN_MODELS = frozenset({"Cyrillic"})
REREAD_WITH = "eng"
# A word the script model read under this is a candidate; its English reading is kept at or over
# ``LATIN_KEPT`` and when surer than the script model's reading.
TAKEN_BELOW = 0.9
LATIN_KEPT = 0.85
# Latin letters (and digits) and the Cyrillic letters drawn the same: a word read either way alike
# stays in the page's script ("ТЕХ" read again as "TEX", "на" as "Ha", "Сброс" as "C6poc" in a bold
# menu label of a dev Russian help page): no reading can tell them apart.
_LOOKALIKES = str.maketrans(
    "AaBbCcEeHhIiJjKkMOoPpSsTXxYy63",
    "АаВьСсЕеНһІіЈјКкМОоРрЅѕТХхУубз",
)


def is_taken_candidate(text: str, script: str, confidence: float | None) -> bool:
    """Whether a word read as ``text`` may be a Latin word the ``script`` model took: its letters
    all of that script (at least one), and read under ``TAKEN_BELOW``."""
    letters = [c for c in text if c.isalpha()]
    return (
        bool(letters)
        and all(script_of(c) == script for c in letters)
        and (confidence if confidence is not None else 0.0) < TAKEN_BELOW
    )


def latin_reading_kept(taken: str, taken_confidence: float | None, latin: str, latin_confidence: float) -> bool:
    """Whether ``latin``, a word read again alone with ``REREAD_WITH``, replaces ``taken``, its
    reading by the script model: Latin letters and no others, read at ``LATIN_KEPT`` or more and
    surer than ``taken``, and not the same word in look-alike letters."""
    letters = [c for c in latin if c.isalpha()]
    if not letters or not all(c.isascii() for c in letters):
        return False
    if latin_confidence < LATIN_KEPT or latin_confidence <= (taken_confidence or 0.0):
        return False
    return latin.translate(_LOOKALIKES).casefold() != taken.casefold()
