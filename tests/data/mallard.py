"""The text blocks of a Mallard help topic (GNOME's ``/usr/share/help/<lang>/<guide>/*.page``).

The per-script evaluation (tests/data/helppages.py) prints translated help topics to PDF; it needs
their text as plain blocks in reading order: headings, paragraphs, list items, table cells and
preformatted code, without the metadata (``info``), link lists, images or comments a help viewer
also leaves out. Keys and menu paths read as a viewer shows them (Ctrl+C, Files ▸ Open).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

_MAL = "{http://projectmallard.org/1.0/}"
_IF = "{http://projectmallard.org/if/1.0/}"
_SKIPPED = {"info", "links", "media", "comment", "desc", "credit", "revision"}
# Elements whose children are blocks (recursed into), and those that are one block of text.
_CONTAINERS = {
    "page",
    "section",
    "note",
    "list",
    "steps",
    "terms",
    "tree",
    "item",
    "table",
    "tbody",
    "thead",
    "tr",
    "td",
    "th",
    "example",
    "figure",
    "quote",
    "synopsis",
    "listing",
    "div",
    "cards",
    "tfoot",
}
_TEXT_BLOCKS = {"p": "p", "title": "h", "subtitle": "h", "screen": "pre", "code": "pre", "caption": "p"}


@dataclass(frozen=True)
class Block:
    kind: str  # "h" (a heading), "p" (running text), "pre" (code, line breaks kept)
    text: str


def _local(tag: object) -> str:
    if not isinstance(tag, str):  # a comment or processing instruction
        return "comment"
    if tag.startswith(_IF):
        return "if:" + tag[len(_IF) :]
    return tag[len(_MAL) :] if tag.startswith(_MAL) else tag.rsplit("}", 1)[-1]


def _inline(element: ET.Element) -> str:
    """The text a viewer shows for an inline element and its children, with its tail excluded."""
    name = _local(element.tag)
    if name in _SKIPPED:
        return ""
    if name in ("keyseq", "guiseq"):
        parts = [_inline(child) for child in element if _local(child.tag) not in _SKIPPED]
        return ("+" if name == "keyseq" else " ▸ ").join(p for p in parts if p)
    if name == "if:choose":
        chosen = next(iter(element), None)
        return _inline(chosen) if chosen is not None else ""
    text = element.text or ""
    for child in element:
        text += _inline(child) + (child.tail or "")
    return text


def _blocks(element: ET.Element, out: list[Block]) -> None:
    name = _local(element.tag)
    if name in _SKIPPED:
        return
    if name in _TEXT_BLOCKS:
        kind = _TEXT_BLOCKS[name]
        text = _inline(element)
        text = text.strip("\n") if kind == "pre" else re.sub(r"\s+", " ", text).strip()
        if text.strip():
            out.append(Block(kind, text))
        return
    if name in _CONTAINERS or name.startswith("if:"):
        for child in element:
            if name == "if:choose" and child is not next(iter(element)):
                continue
            _blocks(child, out)


def topic_blocks(path: Path) -> list[Block]:
    """The blocks of one topic, in document order."""
    out: list[Block] = []
    _blocks(ET.parse(path).getroot(), out)
    return out
