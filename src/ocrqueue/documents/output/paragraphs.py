"""The paragraphs a reader sees: a text block that ``continues`` the one before it (a paragraph
running on across a column break, layout/continued.py) is one paragraph with it in the Markdown,
HTML and plain text, while the JSON keeps each part in its column with its own box."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ocrqueue.documents.geometry import union
from ocrqueue.documents.model import Block
from ocrqueue.documents.text import join_lines


def joined_paragraphs(blocks: Iterable[Block]) -> list[Block]:
    """``blocks`` with each continuing text block joined to the text block before it (a word broken
    across the break made whole)."""
    out: list[Block] = []
    for block in blocks:
        if block.continues and out and out[-1].type == "text" and block.type == "text":
            before = out[-1]
            out[-1] = replace(
                before,
                bbox=union([before.bbox, block.bbox]),
                text=join_lines([before.text, block.text]),
                lines=before.lines + block.lines,
            )
        else:
            out.append(block)
    return out
