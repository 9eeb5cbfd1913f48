# ruff: noqa: RUF003 (Arabic letters are the point, not look-alikes of Latin ones)
"""Which pages of a document the real-page evaluation reads, and which split a document is in.

Nobody picks the pages of a new document: ``draw_pages`` shuffles its page numbers with a seed
made of ``SEED`` and the document's id, and takes the first ``count`` whose text layer passes
``usable``. ``assign_splits`` puts whole documents into ``dev`` (tune here) and ``test``
(report here), script by script, so no page of a test document was ever looked at while tuning.
bench/sample_pages.py runs both over bench/accuracy/pages.json.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

SEED = 21
SPLITS = ("test", "dev")
# A page is drawn only when its text layer holds at least MIN_LETTERS letters (a title page, a
# blank page, a full-page figure or the end of a chapter teach nothing), a share MIN_SCRIPT_SHARE
# of them in the document's script (a page of English commands in a Russian manual does not test
# Cyrillic), and no character that says the font's ToUnicode map is broken, so the ground truth
# is the text a reader sees.
MIN_LETTERS = 400
MIN_SCRIPT_SHARE = 0.10
# A font whose ToUnicode map names some of its glyphs with Latin letters (arabi's Arabic fonts)
# gives words such as "الAWlsن" for "السلطان": a reader sees Arabic, the text layer does not, so
# the page cannot be judged against it. A page of a script other than Latin where this share of
# the words in its script hold a Latin letter between two of the script's is not drawn (a manual's
# glued "فایلdviرا" or a Cyrillic word typed with a Latin "p" stay under 5 %).
MAX_GARBLED_SHARE = 0.10

# Unicode character-name prefixes per script (the names Tesseract's script models carry).
_NAME_PREFIXES: dict[str, tuple[str, ...]] = {
    "Latin": ("LATIN",),
    "Han": ("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH"),
    "Japanese": ("HIRAGANA", "KATAKANA"),
    "Hangul": ("HANGUL",),
    "Cyrillic": ("CYRILLIC",),
    "Greek": ("GREEK",),
    "Arabic": ("ARABIC",),
    "Hebrew": ("HEBREW",),
    "Thai": ("THAI",),
    "Lao": ("LAO",),
    "Khmer": ("KHMER",),
    "Devanagari": ("DEVANAGARI",),
    "Bengali": ("BENGALI",),
    "Gurmukhi": ("GURMUKHI",),
    "Gujarati": ("GUJARATI",),
    "Tamil": ("TAMIL",),
    "Telugu": ("TELUGU",),
    "Kannada": ("KANNADA",),
    "Malayalam": ("MALAYALAM",),
    "Tibetan": ("TIBETAN",),
    "Armenian": ("ARMENIAN",),
    "Georgian": ("GEORGIAN",),
    "Myanmar": ("MYANMAR",),
    "Ethiopic": ("ETHIOPIC",),
}
# Vietnamese is Latin; its own letters are the stacked and horned ones.
_VIETNAMESE = set("ăâđêôơưĂÂĐÊÔƠƯ") | {chr(c) for c in range(0x1EA0, 0x1EFA)}


def in_script(char: str, script: str) -> bool:
    if script == "Vietnamese":
        return char in _VIETNAMESE
    return unicodedata.name(char, "").startswith(_NAME_PREFIXES[script])


def broken_text_layer(text: str) -> bool:
    """U+FFFD or private-use characters: glyphs the font's ToUnicode map could not name."""
    return any(ch == "\ufffd" or "\ue000" <= ch <= "\uf8ff" for ch in text)


def garbled_words(text: str, script: str) -> bool:
    """Whether MAX_GARBLED_SHARE of the words in ``script`` hold Latin letters between two of its
    letters (never for Latin or Vietnamese, whose words are Latin letters)."""
    if script in ("Latin", "Vietnamese"):
        return False
    words = [word for word in re.findall(r"\w+", text) if any(in_script(ch, script) for ch in word)]
    garbled = [word for word in words if _latin_inside(word, script)]
    return bool(words) and len(garbled) >= MAX_GARBLED_SHARE * len(words)


def _latin_inside(word: str, script: str) -> bool:
    kinds = "".join("s" if in_script(ch, script) else "L" if in_script(ch, "Latin") else "-" for ch in word)
    return re.search("sL+s", kinds) is not None


def usable(text: str, script: str) -> bool:
    """The rule for a page worth drawing (see MIN_LETTERS, MIN_SCRIPT_SHARE and MAX_GARBLED_SHARE)."""
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) < MIN_LETTERS or broken_text_layer(text) or garbled_words(text, script):
        return False
    return sum(in_script(ch, script) for ch in letters) >= MIN_SCRIPT_SHARE * len(letters)


def draw_pages(doc_id: str, page_count: int, count: int, text_of: Callable[[int], str], script: str) -> list[int]:
    """``count`` 1-based page numbers of a document, in the order drawn; fewer when fewer pass."""
    return draw_in_order(doc_id, page_count, count, SEED, lambda page: usable(text_of(page), script))


def draw_in_order(doc_id: str, page_count: int, count: int, seed: int, keep: Callable[[int], bool]) -> list[int]:
    """The first ``count`` 1-based pages that ``keep`` accepts, in an order shuffled by ``seed``
    and the document's id."""
    order = list(range(1, page_count + 1))
    random.Random(f"{seed}/{doc_id}").shuffle(order)
    drawn: list[int] = []
    for page in order:
        if len(drawn) == count:
            break
        if keep(page):
            drawn.append(page)
    return drawn


@dataclass(frozen=True)
class Document:
    id: str
    script: str
    batch: int = 1


def assign_splits(documents: Iterable[Document]) -> dict[str, str]:
    """Document id -> split. Per script and batch, the documents in a seeded order take turns:
    test, dev, test, ... A script with one document has it in ``test`` only (nothing of it to tune
    on)."""
    return take_turns(((doc.id, batch_group(doc.script, doc.batch)) for doc in documents), SEED)


def batch_group(group: str, batch: int) -> str:
    """The group a document takes turns in. Documents added to a corpus after its split was drawn
    carry a ``batch`` above 1 and take turns among themselves, so a grown corpus moves no earlier
    document between ``dev`` and ``test`` (a test page once reported stays unseen)."""
    return group if batch == 1 else f"{group} (batch {batch})"


def take_turns(documents: Iterable[tuple[str, str]], seed: int) -> dict[str, str]:
    """(document id, group) -> split: per group, in an order shuffled by ``seed`` and the group's
    name, the documents take turns test, dev, test, ... so both splits see every group."""
    by_group: defaultdict[str, list[str]] = defaultdict(list)
    for doc_id, group in documents:
        by_group[group].append(doc_id)
    splits: dict[str, str] = {}
    for group, ids in sorted(by_group.items()):
        order = sorted(ids)
        random.Random(f"{seed}/{group}").shuffle(order)
        for i, doc_id in enumerate(order):
            splits[doc_id] = SPLITS[i % 2]
    return splits
