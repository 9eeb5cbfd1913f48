"""The formats a document task's result comes in. Markdown and JSON are written by the task (and
`ocrqueue convert`) as pages finish, the searchable PDF is made once on request; plain text, HTML,
hOCR and ALTO are written on request from the stored JSON, read a page at a time and written a
page at a time, so memory does not grow with the page count."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Literal, get_args

from ocrqueue import __version__
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.output.alto import alto_chunks
from ocrqueue.documents.output.hocr import hocr_chunks
from ocrqueue.documents.output.html import html_chunks
from ocrqueue.documents.output.plaintext import text_chunks
from ocrqueue.documents.output.reader import iter_result_pages

ResultFormat = Literal["markdown", "json", "pdf", "text", "html", "hocr", "alto"]
RESULT_FORMATS: tuple[ResultFormat, ...] = get_args(ResultFormat)
DerivedFormat = Literal["text", "html", "hocr", "alto"]
DERIVED_FORMATS: tuple[DerivedFormat, ...] = get_args(DerivedFormat)
"""Made on request from the stored JSON."""
SYSTEM = "ocrqueue"


@dataclass(frozen=True)
class FormatInfo:
    media_type: str
    suffix: str
    """The file name suffix a result of this format is written with (`ocrqueue convert`, downloads)."""


FORMATS: dict[ResultFormat, FormatInfo] = {
    "markdown": FormatInfo("text/markdown; charset=utf-8", ".md"),
    "json": FormatInfo("application/json", ".json"),
    "pdf": FormatInfo("application/pdf", ".pdf"),
    "text": FormatInfo("text/plain; charset=utf-8", ".txt"),
    "html": FormatInfo("text/html; charset=utf-8", ".html"),
    "hocr": FormatInfo("application/xhtml+xml; charset=utf-8", ".hocr"),
    "alto": FormatInfo("application/xml; charset=utf-8", ".alto.xml"),
}


@dataclass(frozen=True)
class Rendering:
    """What a derived format needs besides the pages: the document's file name (HTML and hOCR
    title, ALTO source file), where its figures are from the result (HTML `<img>`), the page
    image each hOCR page names (by page number, from 1) and the resolution its pixels are at."""

    file_name: str
    dpi: float
    page_image: Callable[[int], str]
    figure_base: str = ""
    page_count: int | None = None


def derived_chunks(format: DerivedFormat, pages: Iterable[PageResult], rendering: Rendering) -> Iterator[bytes]:
    """The result in `format`, encoded as UTF-8, a page at a time."""
    if format == "text":
        texts = text_chunks(pages)
    elif format == "html":
        texts = html_chunks(pages, rendering.file_name, rendering.figure_base)
    elif format == "hocr":
        texts = hocr_chunks(
            pages,
            title=rendering.file_name,
            system=f"{SYSTEM} {__version__}",
            dpi=rendering.dpi,
            image=lambda page: rendering.page_image(page.index + 1),
            page_count=rendering.page_count,
        )
    else:
        texts = alto_chunks(
            pages, file_name=rendering.file_name, software=SYSTEM, version=__version__, dpi=rendering.dpi
        )
    return (text.encode() for text in texts)


def derived_from_json(format: DerivedFormat, json_chunks: Iterator[bytes], rendering: Rendering) -> Iterator[bytes]:
    """`derived_chunks` of a stored result JSON that arrives in chunks (from storage)."""
    return derived_chunks(format, iter_result_pages(as_binary(json_chunks)), rendering)


class ChunkReader(io.RawIOBase):
    """A binary stream over an iterator of chunks, for readers that want a file."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._rest = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._rest:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._rest = chunk
        size = min(len(buffer), len(self._rest))
        buffer[:size] = self._rest[:size]
        self._rest = self._rest[size:]
        return size


def as_binary(chunks: Iterator[bytes]) -> BinaryIO:
    return io.BufferedReader(ChunkReader(chunks))
