"""The result data model: lines, blocks, tables, pages and the whole document.

Everything converts to and from plain JSON-able dicts so a page can be checkpointed on its own and
the document assembled later, possibly in another process. The JSON shape is published as
docs/schema/document.schema.json; change SCHEMA_VERSION when it changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ocrqueue.documents.bidi import has_rtl, logical_is_rtl
from ocrqueue.documents.geometry import BBox

SCHEMA_VERSION = "1.0"

BlockType = Literal["title", "text", "list", "code", "table", "figure", "caption", "formula", "header", "footer"]
BLOCK_TYPES: tuple[BlockType, ...] = (
    "title",
    "text",
    "list",
    "code",
    "table",
    "figure",
    "caption",
    "formula",
    "header",
    "footer",
)


WordRole = Literal["superscript", "bullet", "checkbox", "leader"]
WORD_ROLES: tuple[WordRole, ...] = ("superscript", "bullet", "checkbox", "leader")


def _bbox(value: Any) -> BBox:
    x0, y0, x1, y1 = (float(v) for v in value)
    return BBox(x0, y0, x1, y1)


def _conf(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _mark_direction(d: dict[str, Any], text: str) -> None:
    """Text is kept in logical order, so a reader that lays it out needs its base direction:
    ``"direction": "rtl"`` on a line or block whose first strong letter is right to left (Arabic,
    Hebrew), absent otherwise. Derived from the text, so from_dict has nothing to read back."""
    if has_rtl(text) and logical_is_rtl(text):
        d["direction"] = "rtl"


@dataclass(frozen=True)
class Word:
    """A word; ``chars`` holds one box per character of ``text`` when they were asked for
    (text-layer pages with ProcessOptions.char_boxes). ``role`` "superscript": a footnote or
    reference marker set small and raised after the word before it, with no space between; "bullet":
    a list's bullet the PDF draws as a shape, not a character of its text layer ("•" stands for it);
    "checkbox": a check box drawn on a rendered page, "☐" empty or "☒" marked (layout/checkboxes.py);
    "leader": the row of dots leading a contents entry to its page number on a rendered page, its
    dots as printed (layout/leaders.py)."""

    text: str
    bbox: BBox
    confidence: float | None = None
    chars: tuple[BBox, ...] = ()
    role: WordRole | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"text": self.text, "bbox": self.bbox.to_list(), "confidence": _conf(self.confidence)}
        if self.chars:
            d["chars"] = [c.to_list() for c in self.chars]
        if self.role is not None:
            d["role"] = self.role
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Word:
        role = d.get("role")
        if role is not None and role not in WORD_ROLES:
            raise ValueError(f"unknown word role {role!r}")
        return cls(
            d["text"],
            _bbox(d["bbox"]),
            d.get("confidence"),
            tuple(_bbox(c) for c in d.get("chars", ())),
            cast(WordRole | None, role),
        )


def line_text(words: Sequence[Word]) -> str:
    """The words of a line as its text: a space between words, none before a superscript."""
    return "".join((w.text if i == 0 or w.role == "superscript" else " " + w.text) for i, w in enumerate(words))


@dataclass(frozen=True)
class Line:
    """A line of text; ``monospace`` when it is set in a fixed-pitch font (the text layer's font,
    or the regular pitch of an OCR line's words); ``bold`` when its font is (the text layer's)."""

    text: str
    bbox: BBox
    confidence: float | None = None
    words: tuple[Word, ...] = ()
    font_size: float | None = None
    monospace: bool = False
    bold: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "text": self.text,
            "bbox": self.bbox.to_list(),
            "confidence": _conf(self.confidence),
        }
        if self.words:
            d["words"] = [w.to_dict() for w in self.words]
        if self.font_size is not None:
            d["font_size"] = round(self.font_size, 2)
        if self.monospace:
            d["monospace"] = True
        if self.bold:
            d["bold"] = True
        _mark_direction(d, self.text)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Line:
        return cls(
            d["text"],
            _bbox(d["bbox"]),
            d.get("confidence"),
            tuple(Word.from_dict(w) for w in d.get("words", ())),
            d.get("font_size"),
            bool(d.get("monospace", False)),
            bool(d.get("bold", False)),
        )


@dataclass(frozen=True)
class TableCell:
    row: int
    col: int
    text: str
    bbox: BBox
    row_span: int = 1
    col_span: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "row_span": self.row_span,
            "col_span": self.col_span,
            "text": self.text,
            "bbox": self.bbox.to_list(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableCell:
        return cls(d["row"], d["col"], d["text"], _bbox(d["bbox"]), d.get("row_span", 1), d.get("col_span", 1))


@dataclass(frozen=True)
class Table:
    n_rows: int
    n_cols: int
    cells: tuple[TableCell, ...]

    @property
    def has_spans(self) -> bool:
        return any(c.row_span > 1 or c.col_span > 1 for c in self.cells)

    def grid(self) -> list[list[str]]:
        """Cell texts as rows of columns (spanned positions repeat nothing: they are empty)."""
        rows = [["" for _ in range(self.n_cols)] for _ in range(self.n_rows)]
        for c in self.cells:
            rows[c.row][c.col] = c.text
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {"n_rows": self.n_rows, "n_cols": self.n_cols, "cells": [c.to_dict() for c in self.cells]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Table:
        return cls(d["n_rows"], d["n_cols"], tuple(TableCell.from_dict(c) for c in d["cells"]))


@dataclass(frozen=True)
class Block:
    type: BlockType
    bbox: BBox
    text: str
    confidence: float | None = None
    lines: tuple[Line, ...] = ()
    table: Table | None = None
    latex: str | None = None
    image: str | None = None
    level: int | None = None
    continues: bool = False  # the part of a paragraph begun by the block before, in the next column

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": self.type,
            "bbox": self.bbox.to_list(),
            "text": self.text,
            "confidence": _conf(self.confidence),
            "lines": [ln.to_dict() for ln in self.lines],
        }
        if self.table is not None:
            d["table"] = self.table.to_dict()
        if self.latex is not None:
            d["latex"] = self.latex
        if self.image is not None:
            d["image"] = self.image
        if self.level is not None:
            d["level"] = self.level
        if self.continues:
            d["continues"] = True
        _mark_direction(d, self.text)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Block:
        if d["type"] not in BLOCK_TYPES:
            raise ValueError(f"unknown block type {d['type']!r}")
        return cls(
            type=cast(BlockType, d["type"]),
            bbox=_bbox(d["bbox"]),
            text=d["text"],
            confidence=d.get("confidence"),
            lines=tuple(Line.from_dict(ln) for ln in d.get("lines", ())),
            table=Table.from_dict(d["table"]) if d.get("table") is not None else None,
            latex=d.get("latex"),
            image=d.get("image"),
            level=d.get("level"),
            continues=bool(d.get("continues", False)),
        )


def figure_name(page_index: int, number: int) -> str:
    """The file name of a page's ``number``-th figure crop (from 1): the same on every path, since
    Markdown links to it and storage keeps it under that name."""
    return f"page{page_index + 1}-figure{number}.png"


@dataclass(frozen=True)
class StageTiming:
    """How long one stage of the page pipeline took (wall clock, milliseconds)."""

    stage: str
    ms: float

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "ms": self.ms}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StageTiming:
        return cls(d["stage"], float(d["ms"]))


# Warnings that put a page's text in doubt (ocr/engine_choice.py, ocr/script_recheck.py): the
# task's history records them too (service/ocr_task.py).
NO_MODEL = "no model installed"
LOW_CONFIDENCE_READING = "read with very low confidence"


@dataclass(frozen=True)
class PageResult:
    """One processed page. ``images`` holds figure crops (PNG bytes by name) and is not in the dict:
    the caller stores them next to the result, and Markdown refers to them by name."""

    index: int
    width: float
    height: float
    source: str
    blocks: tuple[Block, ...]
    dpi: int | None = None
    warnings: tuple[str, ...] = ()
    images: dict[str, bytes] = field(default_factory=dict, compare=False)
    scripts: tuple[str, ...] = ()  # writing systems found on the page (Latin, Han, ...), most first
    languages: tuple[str, ...] = ()  # the OCR languages it was read with, or its text layer's
    rotation: int = 0  # degrees clockwise the page was turned to read it upright (0, 90, 180, 270)
    # The stages that ran, in order, with their times: measured, so not part of what a page is.
    timings: tuple[StageTiming, ...] = field(default=(), compare=False)

    @property
    def doubts(self) -> tuple[str, ...]:
        """The warnings that say its text may be wrong: a script without a model, a poor reading."""
        return tuple(w for w in self.warnings if NO_MODEL in w or w.startswith(LOW_CONFIDENCE_READING))

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "width": round(self.width, 2),
            "height": round(self.height, 2),
            "source": self.source,
            "dpi": self.dpi,
            "scripts": list(self.scripts),
            "languages": list(self.languages),
            "rotation": self.rotation,
            "warnings": list(self.warnings),
            "timings": [t.to_dict() for t in self.timings],
            "blocks": [b.to_dict() for b in self.blocks],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PageResult:
        return cls(
            index=d["index"],
            width=d["width"],
            height=d["height"],
            source=d["source"],
            blocks=tuple(Block.from_dict(b) for b in d["blocks"]),
            dpi=d.get("dpi"),
            warnings=tuple(d.get("warnings", ())),
            scripts=tuple(d.get("scripts", ())),
            languages=tuple(d.get("languages", ())),
            rotation=int(d.get("rotation", 0)),
            timings=tuple(StageTiming.from_dict(t) for t in d.get("timings", ())),
        )


@dataclass(frozen=True)
class DocumentMeta:
    format: str
    media_type: str
    page_count: int
    size_bytes: int
    title: str | None = None
    author: str | None = None
    pages: str | None = None
    """The pages the result holds (``"1-5,9"``) when only some were asked for; None: all of them."""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": self.format,
            "media_type": self.media_type,
            "page_count": self.page_count,
            "size_bytes": self.size_bytes,
            "title": self.title,
            "author": self.author,
        }
        if self.pages is not None:
            d["pages"] = self.pages
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocumentMeta:
        return cls(
            d["format"],
            d["media_type"],
            d["page_count"],
            d["size_bytes"],
            d.get("title"),
            d.get("author"),
            d.get("pages"),
        )
