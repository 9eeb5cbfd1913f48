"""Write a document's JSON and Markdown page by page, so memory does not grow with its page count.

The JSON is exactly `json.dumps` of the document's dict (`DocumentResult.to_dict()`), so a reader
cannot tell a streamed result from one built whole; `DocumentResult.to_json()` / `to_markdown()`
are this writer into memory, so there is one writer to keep right.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any, BinaryIO

from ocrqueue.documents.model import SCHEMA_VERSION, DocumentMeta, PageResult
from ocrqueue.documents.output.markdown import page_markdown_parts


def _dumps(value: Any, indent: int | None, level: int) -> str:
    """`json.dumps` of a value nested `level` deep in an indented document."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.replace("\n", "\n" + " " * (indent * level)) if indent else text


class ResultWriter:
    """Append pages in order with `add`; `close` writes the ends. Checks the pages are the ones
    the document promised: ascending, each once, exactly `expected` of them when given."""

    def __init__(
        self,
        meta: DocumentMeta,
        json_out: BinaryIO,
        markdown_out: BinaryIO,
        *,
        indent: int | None = None,
        include_headers: bool = False,
        expected: list[int] | None = None,
    ) -> None:
        self._json = json_out
        self._markdown = markdown_out
        self._indent = indent
        self._include_headers = include_headers
        self._expected = expected
        self._written: list[int] = []
        self._markdown_started = False
        version = json.dumps(SCHEMA_VERSION)
        if indent:
            pad = " " * indent
            head = (
                "{\n"
                f'{pad}"schema_version": {version},\n'
                f'{pad}"document": {_dumps(meta.to_dict(), indent, 1)},\n'
                f'{pad}"pages": ['
            )
        else:
            document = _dumps(meta.to_dict(), None, 0)
            head = f'{{"schema_version": {version}, "document": {document}, "pages": ['
        self._json.write(head.encode())

    def add(self, page: PageResult) -> None:
        if self._written and page.index <= self._written[-1]:
            raise ValueError(f"page results out of order: page index {page.index} after {self._written[-1]}")
        separator = "," if self._written else ""
        if self._indent:
            pad = " " * (self._indent * 2)
            self._json.write(f"{separator}\n{pad}{_dumps(page.to_dict(), self._indent, 2)}".encode())
        else:
            self._json.write(f"{separator and ', '}{_dumps(page.to_dict(), None, 0)}".encode())
        for part in page_markdown_parts(page, self._include_headers):
            self._markdown.write(("\n\n" if self._markdown_started else "").encode() + part.encode())
            self._markdown_started = True
        self._written.append(page.index)

    def close(self) -> None:
        if self._expected is not None and self._written != self._expected:
            missing = sorted(set(self._expected) - set(self._written))
            raise ValueError(f"page results do not match the document: missing {missing[:20]}")
        closing = "\n" + " " * self._indent if self._indent and self._written else ""
        self._json.write((closing + ("]\n}" if self._indent else "]}")).encode())
        if self._markdown_started:
            self._markdown.write(b"\n")

    @property
    def pages_written(self) -> int:
        return len(self._written)

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
