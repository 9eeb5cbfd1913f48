"""Structure truth from a tagged PDF: the page's structure tree (headings, paragraphs, list items,
tables) with the text each element marks, in the tree's order.

A tagged PDF (LibreOffice, Word, Chromium, InDesign export them) says what each run of text is:
``/H1``…``/H6``, ``/P``, ``/LI``, ``/Table`` > ``/TR`` > ``/TH``/``/TD``. PDFium gives the tree of a
page and the marked-content id of each page object; the text an element marks is the text of the
page objects carrying its ids. Documents without a tree have no structure truth.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw

HEADING = re.compile(r"^H([1-6])$")
# Elements whose text is one block of the page. A /H without a digit is a heading of unknown level.
_BLOCKS = {"P", "LI", "LBody", "Caption", "BlockQuote", "Note", "Title", "H"}


@dataclass
class TruthBlock:
    """One block of the page as the tags say: ``kind`` heading, paragraph, list or table."""

    kind: str
    text: str = ""
    level: int | None = None
    rows: list[list[str]] = field(default_factory=list)


def _read(fn: object, handle: object) -> str:
    size = fn(handle, None, 0)  # type: ignore[operator]
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    fn(handle, buffer, size)  # type: ignore[operator]
    return buffer.raw[: size - 2].decode("utf-16-le", errors="replace")


def _object_texts(textpage: pdfium.PdfTextPage) -> dict[int, list[str]]:
    """Marked-content id -> its text, character by character from PDFium's text page (which adds the
    spaces and line breaks a reader sees), each run of one id a string."""
    texts: dict[int, list[str]] = {}
    current, run = -1, ""
    for i in range(raw.FPDFText_CountChars(textpage.raw)):
        obj = raw.FPDFText_GetTextObject(textpage.raw, i)
        mcid = raw.FPDFPageObj_GetMarkedContentID(obj) if obj else current
        char = chr(raw.FPDFText_GetUnicode(textpage.raw, i))
        if mcid != current:
            if current >= 0 and run.strip():
                texts.setdefault(current, []).append(run)
            current, run = mcid, ""
        run += char
    if current >= 0 and run.strip():
        texts.setdefault(current, []).append(run)
    return texts


def _element_text(element: object, texts: dict[int, list[str]]) -> str:
    parts: list[str] = []
    for i in range(raw.FPDF_StructElement_CountChildren(element)):
        child = raw.FPDF_StructElement_GetChildAtIndex(element, i)
        if child:
            parts.append(_element_text(child, texts))
        else:
            mcid = raw.FPDF_StructElement_GetChildMarkedContentID(element, i)
            parts.extend(texts.get(mcid, []))
    return " ".join(" ".join(p.split()) for p in parts if p.strip())


def _rows(element: object, texts: dict[int, list[str]]) -> list[list[str]]:
    rows: list[list[str]] = []
    for i in range(raw.FPDF_StructElement_CountChildren(element)):
        child = raw.FPDF_StructElement_GetChildAtIndex(element, i)
        if not child:
            continue
        kind = _read(raw.FPDF_StructElement_GetType, child)
        if kind == "TR":
            cells = []
            for j in range(raw.FPDF_StructElement_CountChildren(child)):
                cell = raw.FPDF_StructElement_GetChildAtIndex(child, j)
                if cell:
                    cells.append(_element_text(cell, texts))
            rows.append(cells)
        else:  # THead, TBody, TFoot
            rows.extend(_rows(child, texts))
    return rows


def _walk(element: object, texts: dict[int, list[str]], out: list[TruthBlock]) -> None:
    kind = _read(raw.FPDF_StructElement_GetType, element)
    heading = HEADING.match(kind)
    if heading or kind in _BLOCKS:
        text = _element_text(element, texts)
        if text:
            if heading or kind in ("H", "Title"):
                out.append(TruthBlock("heading", text, int(heading.group(1)) if heading else None))
            else:
                out.append(TruthBlock("list" if kind in ("LI", "LBody") else "paragraph", text))
        return
    if kind == "Table":
        rows = [r for r in _rows(element, texts) if r]
        if rows:
            out.append(TruthBlock("table", " ".join(" ".join(r) for r in rows), rows=rows))
        return
    for i in range(raw.FPDF_StructElement_CountChildren(element)):
        child = raw.FPDF_StructElement_GetChildAtIndex(element, i)
        if child:
            _walk(child, texts, out)


def page_structure(pdf_path: Path, page_number: int) -> list[TruthBlock]:
    """The tagged blocks of a 1-based page, in the structure tree's order; [] when untagged."""
    pdf = pdfium.PdfDocument(pdf_path)
    try:
        page = pdf[page_number - 1]
        textpage = page.get_textpage()
        tree = raw.FPDF_StructTree_GetForPage(page.raw)
        if not tree:
            return []
        try:
            texts = _object_texts(textpage)
            out: list[TruthBlock] = []
            for i in range(raw.FPDF_StructTree_CountChildren(tree)):
                child = raw.FPDF_StructTree_GetChildAtIndex(tree, i)
                if child:
                    _walk(child, texts, out)
            return out
        finally:
            raw.FPDF_StructTree_Close(tree)
    finally:
        pdf.close()
