"""The documents of the per-script evaluation and the text blocks each one is laid out from.

Debian ships little typeset prose in most scripts, but its GNOME packages carry translations in
dozens: help guides (Mallard topics in ``/usr/share/help/<lang>/<guide>``) and message catalogues
(``/usr/share/locale/<lang>/LC_MESSAGES/<domain>.mo``). A *document* is one guide or one
catalogue in one language. Its blocks come in an order shuffled by a seed and the document's id:
a guide's topics (blocks without a letter of the script, left in English, dropped), a catalogue's whole-sentence
messages (an English original of six words or more ending in a full stop; no markup or format
placeholders). Nobody picks: ``draw_documents`` takes, per script, a seeded choice of the
documents with enough text, and tests/data/sampling.py's ``assign_splits`` splits them whole.
tests/data/scriptpages.py lays the blocks out into pages.
"""

from __future__ import annotations

import gettext
import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mallard import Block, topic_blocks
from sampling import SEED, Document, assign_splits, broken_text_layer, in_script

# Pages are filled in Python, so that each page's text is known without a browser: a page takes
# blocks while their wrapped lines fit PAGE_LINES (a line of LINE_UNITS units, a CJK or Hangul
# character two, any other one; a block adds half a line of space). Chromium must then print each
# page on one A4 page (tests/data/scriptpages.py checks). A document is a candidate when it fills
# MIN_PAGES pages.
LINE_UNITS = 72
PAGE_LINES = 38
MIN_PAGES = 2
_MARKUP = re.compile(r"[%<>{}\\_&|@$]|\n|\s{2,}")
_SENTENCE_END = re.compile(r"[.!?]$")


@dataclass(frozen=True)
class SourceDocument:
    id: str
    package: str
    version: str
    kind: str  # "help" (a Mallard guide) or "messages" (a gettext catalogue)
    name: str  # the guide's folder or the catalogue's domain
    lang: str
    script: str

    def path(self, root: Path) -> Path:
        """Where the guide's folder or the catalogue lies inside the unpacked package ``root``."""
        if self.kind == "help":
            return root / "usr/share/help" / self.lang / self.name
        return root / "usr/share/locale" / self.lang / "LC_MESSAGES" / f"{self.name}.mo"


def find_documents(package: str, version: str, root: Path, languages: dict[str, str]) -> list[SourceDocument]:
    """Every guide and catalogue of the unpacked package ``root`` in one of ``languages`` (lang -> script)."""
    found: list[SourceDocument] = []
    for lang, script in sorted(languages.items()):
        help_root = root / "usr/share/help" / lang
        if help_root.is_dir():
            for guide in sorted(p.name for p in help_root.iterdir() if any(p.glob("*.page"))):
                found.append(SourceDocument(f"help-{guide}-{lang}", package, version, "help", guide, lang, script))
        for mo in sorted((root / "usr/share/locale" / lang / "LC_MESSAGES").glob("*.mo")):
            found.append(SourceDocument(f"mo-{mo.stem}-{lang}", package, version, "messages", mo.stem, lang, script))
    return found


def _translated(block: Block, script: str) -> bool:
    """A block holding a letter of the script: a paragraph, heading or list item left in English
    (or a bare command) says nothing of how the script is read."""
    return any(in_script(ch, script) for ch in block.text)


def _help_blocks(doc: SourceDocument, root: Path) -> list[Block]:
    topics = sorted(p.name for p in doc.path(root).glob("*.page"))
    random.Random(f"{SEED}/{doc.id}").shuffle(topics)
    out: list[Block] = []
    for topic in topics:
        blocks = [b for b in topic_blocks(doc.path(root) / topic) if _translated(b, doc.script)]
        if any(b.kind != "h" for b in blocks):
            out.extend(blocks)
    return out


def _sentence(original: str, translation: str) -> bool:
    return (
        len(original.split()) >= 6
        and bool(_SENTENCE_END.search(original.strip()))
        and translation.strip() != original.strip()
        and not _MARKUP.search(original)
        and not _MARKUP.search(translation)
    )


def _message_blocks(doc: SourceDocument, root: Path) -> list[Block]:
    with doc.path(root).open("rb") as f:
        try:
            catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        except (IndexError, OSError, UnicodeDecodeError):  # a malformed header: not a usable catalogue
            return []
    pairs = sorted((k, v) for k, v in catalog.items() if isinstance(k, str) and isinstance(v, str) and k)
    random.Random(f"{SEED}/{doc.id}").shuffle(pairs)
    return [Block("p", v.strip()) for k, v in pairs if _sentence(k, v) and _translated(Block("p", v), doc.script)]


def document_blocks(doc: SourceDocument, root: Path) -> list[Block]:
    """The document's blocks in their drawn order (``root``: its unpacked package)."""
    blocks = _help_blocks(doc, root) if doc.kind == "help" else _message_blocks(doc, root)
    return [b for b in blocks if not broken_text_layer(b.text)]


def _units(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def block_lines(block: Block) -> float:
    """Lines the block takes on a page, with the space after it."""
    lines = sum(max(1, -(-_units(line) // LINE_UNITS)) for line in block.text.split("\n"))
    return lines * (1.3 if block.kind == "h" else 1.0) + 0.5


def paginate(blocks: Iterable[Block], pages: int) -> list[list[Block]]:
    """Up to ``pages`` full pages of blocks, in order (a block longer than a page is left out; a
    last page left unfilled is not a page)."""
    out: list[list[Block]] = []
    page: list[Block] = []
    used = 0.0
    for block in blocks:
        lines = block_lines(block)
        if lines > PAGE_LINES:
            continue
        if used + lines > PAGE_LINES:
            out.append(page)
            if len(out) == pages:
                return out
            page, used = [], 0.0
        page.append(block)
        used += lines
    return out


def draw_documents(candidates: Iterable[SourceDocument], per_script: int) -> dict[str, str]:
    """Document id -> split for the drawn documents: per script, up to ``per_script`` candidates in
    an order shuffled by the seed and the script, split whole by ``assign_splits``. A script with
    fewer than two candidates is left out (it could not be in both splits)."""
    by_script: defaultdict[str, list[SourceDocument]] = defaultdict(list)
    for doc in candidates:
        by_script[doc.script].append(doc)
    chosen: list[Document] = []
    for script, docs in sorted(by_script.items()):
        if len(docs) < 2:
            continue
        ids = sorted(d.id for d in docs)
        random.Random(f"{SEED}/{script}/documents").shuffle(ids)
        chosen.extend(Document(doc_id, script) for doc_id in ids[:per_script])
    return assign_splits(chosen)
