"""Which writing systems a text holds, and the OCR languages that read them.

Scripts are told apart by code point. A script counts as present when it holds at least
``MIN_SHARE`` of a text's letters and ``MIN_LETTERS`` of them, so a Greek letter in an English
formula or a Latin product name in a Chinese sentence is not taken for a language of the page;
a page that really mixes them (a Chinese manual with English terms and commands) has both.
"""

from __future__ import annotations

from collections import Counter

# Script name (Tesseract OSD's names) -> the Tesseract language that reads it.
SCRIPT_LANGUAGES: dict[str, str] = {
    "Latin": "eng",
    "Han": "chi_sim",
    "Cyrillic": "rus",
    "Greek": "ell",
    "Arabic": "ara",
    "Hangul": "kor",
    "Japanese": "jpn",
    "Devanagari": "hin",
}
LANGUAGE_SCRIPTS: dict[str, str] = {lang: script for script, lang in SCRIPT_LANGUAGES.items()} | {
    "chi_tra": "Han",
    "deu": "Latin",
    "fra": "Latin",
    "spa": "Latin",
    "ita": "Latin",
    "por": "Latin",
    "nld": "Latin",
}
MIN_SHARE = 0.05
MIN_LETTERS = 3

_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x005A, "Latin"),
    (0x0061, 0x007A, "Latin"),
    (0x00C0, 0x024F, "Latin"),
    (0x1E00, 0x1EFF, "Latin"),
    (0x0370, 0x03FF, "Greek"),
    (0x0400, 0x04FF, "Cyrillic"),
    (0x0600, 0x06FF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"),
    (0x3040, 0x30FF, "Japanese"),
    (0x3400, 0x4DBF, "Han"),
    (0x4E00, 0x9FFF, "Han"),
    (0xF900, 0xFAFF, "Han"),
    (0xAC00, 0xD7AF, "Hangul"),
    (0xFF21, 0xFF3A, "Latin"),
    (0xFF41, 0xFF5A, "Latin"),
)


def script_of(char: str) -> str | None:
    code = ord(char)
    if code < 0x41:
        return None
    for low, high, script in _RANGES:
        if low <= code <= high:
            return script
    return None


def script_counts(text: str) -> Counter[str]:
    return Counter(s for s in map(script_of, text) if s is not None)


def scripts_in(text: str) -> tuple[str, ...]:
    """The scripts present in ``text``, most letters first."""
    counts = script_counts(text)
    total = sum(counts.values())
    # Kana on a page is Japanese; its kanji are then Japanese too, not Chinese.
    return tuple(
        script
        for script, n in counts.most_common()
        if n >= MIN_LETTERS and n >= MIN_SHARE * total and not (script == "Han" and counts["Japanese"] >= n * 0.1)
    )


def languages_for(scripts: tuple[str, ...], installed: frozenset[str] | None = None) -> tuple[str, ...]:
    """Tesseract languages for ``scripts`` (those installed, when ``installed`` is given), in order."""
    wanted = [SCRIPT_LANGUAGES[s] for s in scripts if s in SCRIPT_LANGUAGES]
    if installed is not None:
        wanted = [lang for lang in wanted if lang in installed]
    return tuple(dict.fromkeys(wanted))


def scripts_of_languages(languages: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(LANGUAGE_SCRIPTS.get(lang.split("_vert")[0], "Latin") for lang in languages))
