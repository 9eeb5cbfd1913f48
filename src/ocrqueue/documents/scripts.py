"""Which writing systems a text holds, the OCR languages that read them, and the model for each.

Scripts are told apart by code point. A script counts as present when it holds at least
``MIN_SHARE`` of a text's letters and ``MIN_LETTERS`` of them, so a Greek letter in an English
formula or a Latin product name in a Chinese sentence is not taken for a language of the page;
a page that really mixes them (a Chinese manual with English terms and commands) has both.
Vietnamese is Latin to Unicode, but has a model of its own: Latin text in which the letters only
Vietnamese uses (tone marks stacked on vowels, ơ, ư) are ``VIETNAMESE_SHARE`` of the Latin letters
or more is Vietnamese. Kana make a text Japanese, its kanji included.

``SCRIPT_MODELS`` is the one table of what reads each script: Tesseract's model for the whole
script (Debian's ``tesseract-ocr-script-*``, the file name the engine is asked for), the Debian
package that ships it (named in the warning when it is missing), a language model of the script
(what an engine asked for no languages records) and the script's ISO 15924 code (BCP 47 tags).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class ScriptModel:
    model: str  # Tesseract's script model (traineddata file name)
    package: str  # the Debian package that ships it
    language: str  # a Tesseract language model of the script
    iso15924: str


def _model(model: str, package: str, language: str, iso15924: str) -> ScriptModel:
    return ScriptModel(model, f"tesseract-ocr-script-{package}", language, iso15924)


# Script name (Tesseract OSD's names, and "Vietnamese") -> what reads it.
SCRIPT_MODELS: dict[str, ScriptModel] = {
    "Latin": _model("Latin", "latn", "eng", "Latn"),
    "Vietnamese": _model("Vietnamese", "viet", "vie", "Latn"),
    "Cyrillic": _model("Cyrillic", "cyrl", "rus", "Cyrl"),
    "Greek": _model("Greek", "grek", "ell", "Grek"),
    "Armenian": _model("Armenian", "armn", "hye", "Armn"),
    "Georgian": _model("Georgian", "geor", "kat", "Geor"),
    "Hebrew": _model("Hebrew", "hebr", "heb", "Hebr"),
    "Arabic": _model("Arabic", "arab", "ara", "Arab"),
    "Syriac": _model("Syriac", "syrc", "syr", "Syrc"),
    "Thaana": _model("Thaana", "thaa", "div", "Thaa"),
    "Devanagari": _model("Devanagari", "deva", "hin", "Deva"),
    "Bengali": _model("Bengali", "beng", "ben", "Beng"),
    "Gurmukhi": _model("Gurmukhi", "guru", "pan", "Guru"),
    "Gujarati": _model("Gujarati", "gujr", "guj", "Gujr"),
    "Oriya": _model("Oriya", "orya", "ori", "Orya"),
    "Tamil": _model("Tamil", "taml", "tam", "Taml"),
    "Telugu": _model("Telugu", "telu", "tel", "Telu"),
    "Kannada": _model("Kannada", "knda", "kan", "Knda"),
    "Malayalam": _model("Malayalam", "mlym", "mal", "Mlym"),
    "Sinhala": _model("Sinhala", "sinh", "sin", "Sinh"),
    "Thai": _model("Thai", "thai", "tha", "Thai"),
    "Lao": _model("Lao", "laoo", "lao", "Laoo"),
    "Tibetan": _model("Tibetan", "tibt", "bod", "Tibt"),
    "Myanmar": _model("Myanmar", "mymr", "mya", "Mymr"),
    "Khmer": _model("Khmer", "khmr", "khm", "Khmr"),
    "Ethiopic": _model("Ethiopic", "ethi", "amh", "Ethi"),
    "Cherokee": _model("Cherokee", "cher", "chr", "Cher"),
    "Canadian_Aboriginal": _model("Canadian_Aboriginal", "cans", "iku", "Cans"),
    "Hangul": _model("Hangul", "hang", "kor", "Hang"),
    "Japanese": _model("Japanese", "jpan", "jpn", "Jpan"),
    "Han": _model("HanS", "hans", "chi_sim", "Hans"),
}
# Model file name -> the script it reads (HanT reads Han too).
MODEL_SCRIPTS: dict[str, str] = {m.model: script for script, m in SCRIPT_MODELS.items()} | {"HanT": "Han"}

# Script name -> the Tesseract language that reads it.
SCRIPT_LANGUAGES: dict[str, str] = {script: m.language for script, m in SCRIPT_MODELS.items()}
LANGUAGE_SCRIPTS: dict[str, str] = {lang: script for script, lang in SCRIPT_LANGUAGES.items()} | {
    "chi_tra": "Han",
    "deu": "Latin",
    "fra": "Latin",
    "spa": "Latin",
    "ita": "Latin",
    "por": "Latin",
    "nld": "Latin",
    "ukr": "Cyrillic",
    "bul": "Cyrillic",
    "srp": "Cyrillic",
    "fas": "Arabic",
    "urd": "Arabic",
    "mar": "Devanagari",
    "nep": "Devanagari",
    "yid": "Hebrew",
}
MIN_SHARE = 0.05
MIN_LETTERS = 3
VIETNAMESE_SHARE = 0.03
# Latin text that may be Vietnamese read by a model that drops its tone marks: many letters with
# accents, in short words. On the translations of Debian's message catalogs (14-sentence pages):
# Vietnamese 0.15-0.35 of the letters accented, words 2.7-4.0 letters; 23 other Latin-script
# languages at most 0.22 (Azerbaijani; Czech 0.18) with words of 4.0 letters or more (French 3.2
# at 0.08 at most).
MAYBE_VIETNAMESE_ACCENTED = 0.10
MAYBE_VIETNAMESE_WORD = 4.2

_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x005A, "Latin"),
    (0x0061, 0x007A, "Latin"),
    (0x00C0, 0x024F, "Latin"),
    (0x0370, 0x03FF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"),
    (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"),
    (0x0700, 0x074F, "Syriac"),
    (0x0750, 0x077F, "Arabic"),
    (0x0780, 0x07BF, "Thaana"),
    (0x08A0, 0x08FF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"),
    (0x0980, 0x09FF, "Bengali"),
    (0x0A00, 0x0A7F, "Gurmukhi"),
    (0x0A80, 0x0AFF, "Gujarati"),
    (0x0B00, 0x0B7F, "Oriya"),
    (0x0B80, 0x0BFF, "Tamil"),
    (0x0C00, 0x0C7F, "Telugu"),
    (0x0C80, 0x0CFF, "Kannada"),
    (0x0D00, 0x0D7F, "Malayalam"),
    (0x0D80, 0x0DFF, "Sinhala"),
    (0x0E00, 0x0E7F, "Thai"),
    (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"),
    (0x1000, 0x109F, "Myanmar"),
    (0x10A0, 0x10FF, "Georgian"),
    (0x1100, 0x11FF, "Hangul"),
    (0x1200, 0x139F, "Ethiopic"),
    (0x13A0, 0x13FF, "Cherokee"),
    (0x1400, 0x167F, "Canadian_Aboriginal"),
    (0x1780, 0x17FF, "Khmer"),
    (0x1C90, 0x1CBF, "Georgian"),
    (0x1E00, 0x1EFF, "Latin"),
    (0x1F00, 0x1FFF, "Greek"),
    (0x2D00, 0x2D2F, "Georgian"),
    (0x3040, 0x30FF, "Japanese"),
    (0x3130, 0x318F, "Hangul"),
    (0x31F0, 0x31FF, "Japanese"),
    (0x3400, 0x4DBF, "Han"),
    (0x4E00, 0x9FFF, "Han"),
    (0xA960, 0xA97F, "Hangul"),
    (0xAC00, 0xD7FF, "Hangul"),
    (0xF900, 0xFAFF, "Han"),
    (0xFB1D, 0xFB4F, "Hebrew"),
    (0xFB50, 0xFDFF, "Arabic"),
    (0xFE70, 0xFEFF, "Arabic"),
    (0xFF21, 0xFF3A, "Latin"),
    (0xFF41, 0xFF5A, "Latin"),
    (0xFF66, 0xFF9D, "Japanese"),
)
# Letters of Vietnamese and of no other Latin-script language: a vowel with a tone mark stacked
# on or under it (U+1EA0-U+1EF9), and ơ, ư (đ and ă are Croatian and Romanian too).
_VIETNAMESE = frozenset(map(chr, range(0x1EA0, 0x1EFA))) | frozenset("ơƠưƯ")


def script_of(char: str) -> str | None:
    code = ord(char)
    if code < len(_SCRIPT_OF_LOW):
        return _SCRIPT_OF_LOW[code]
    return _script_of(code)


def _script_of(code: int) -> str | None:
    if code < 0x41:
        return None
    low, high = 0, len(_RANGES)
    while low < high:
        middle = (low + high) // 2
        if _RANGES[middle][1] < code:
            low = middle + 1
        else:
            high = middle
    if low < len(_RANGES) and _RANGES[low][0] <= code:
        return _RANGES[low][2]
    return None


# script_of for the first code points (Basic Latin to Latin Extended-B, most of a Latin page's
# letters), looked up instead of searched: a page's text is counted by script a few times.
_SCRIPT_OF_LOW = tuple(_script_of(code) for code in range(0x250))
# The ASCII characters script_of names no script for.
_ASCII_NOT_LETTERS = bytes(code for code in range(0x80) if _SCRIPT_OF_LOW[code] is None)


def script_counts(text: str) -> Counter[str]:
    """Letters per script; Latin letters are counted as Vietnamese when enough of them are. Text
    in ASCII (most of a Latin page's lines) holds Latin letters only, counted at once."""
    if text.isascii():
        letters = len(text.encode("ascii").translate(None, _ASCII_NOT_LETTERS))
        return Counter({"Latin": letters}) if letters else Counter()
    # Each character looked up once, however often it comes (a page's text repeats a few dozen),
    # the scripts counted in the order they first come, as one pass over the text would.
    chars = Counter(text)
    counts: Counter[str] = Counter()
    for char, n in chars.items():
        script = script_of(char)
        if script is not None:
            counts[script] += n
    vietnamese = sum(n for char, n in chars.items() if char in _VIETNAMESE)
    if vietnamese >= MIN_LETTERS and vietnamese >= VIETNAMESE_SHARE * counts["Latin"]:
        counts["Vietnamese"] = counts.pop("Latin")
    return counts


def may_be_vietnamese(text: str) -> bool:
    """Whether Latin ``text`` may be Vietnamese that lost its tone marks (a reading with the
    Latin model): worth reading again with the Vietnamese model, whose reading then decides."""
    words = [w for w in text.split() if w.isalpha() and all(script_of(c) == "Latin" for c in w)]
    letters = sum(map(len, words))
    if letters < 10 * MIN_LETTERS:
        return False
    accented = sum(1 for w in words for c in w if not c.isascii())
    return accented >= MAYBE_VIETNAMESE_ACCENTED * letters and letters <= MAYBE_VIETNAMESE_WORD * len(words)


def scripts_in(text: str) -> tuple[str, ...]:
    """The scripts present in ``text``, most letters first."""
    counts = script_counts(text)
    total = sum(counts.values())
    # Kana on a page is Japanese; its kanji are then Japanese too, not Chinese, and count as its
    # letters: two lines of Japanese under an English page (31 kanji, 24 kana of 611 letters) are
    # 9 % of its letters, but neither kana nor kanji alone were the 5 % that makes a script present.
    if counts["Japanese"] >= MIN_LETTERS and counts["Japanese"] >= counts["Han"] * 0.1:
        counts["Japanese"] += counts.pop("Han", 0)
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


def script_read_by(language: str) -> str:
    """The script a Tesseract language or script model reads (an unknown language: Latin)."""
    name = language.removesuffix("_vert")
    return MODEL_SCRIPTS.get(name) or LANGUAGE_SCRIPTS.get(name, "Latin")


def scripts_of_languages(languages: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(map(script_read_by, languages)))
