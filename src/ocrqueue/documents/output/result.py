"""The whole-document result: assembled from per-page results (possibly checkpointed earlier)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ocrqueue.documents.input.pagerange import PageSelection
from ocrqueue.documents.model import SCHEMA_VERSION, DocumentMeta, PageResult
from ocrqueue.documents.output.markdown import render_markdown


@dataclass(frozen=True)
class DocumentResult:
    meta: DocumentMeta
    pages: tuple[PageResult, ...]

    @property
    def images(self) -> dict[str, bytes]:
        """Figure crops of all pages by name (only those produced in this process; see PageResult)."""
        return {name: data for page in self.pages for name, data in page.images.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "document": self.meta.to_dict(),
            "pages": [p.to_dict() for p in self.pages],
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_markdown(self, include_headers: bool = False) -> str:
        return render_markdown(self.pages, include_headers)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocumentResult:
        if d.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"unsupported schema_version {d.get('schema_version')!r}")
        return cls(DocumentMeta.from_dict(d["document"]), tuple(PageResult.from_dict(p) for p in d["pages"]))


def expected_indices(meta: DocumentMeta) -> list[int]:
    """The page indices a result for `meta` holds: its selection, or every page."""
    if meta.pages is None:
        return list(range(meta.page_count))
    return PageSelection.parse(meta.pages).indices(meta.page_count)


def assemble(meta: DocumentMeta, page_results: Iterable[PageResult]) -> DocumentResult:
    """Order the page results and check that every page of the document is there exactly once."""
    pages = sorted(page_results, key=lambda p: p.index)
    indices = [p.index for p in pages]
    expected = expected_indices(meta)
    if indices != expected:
        missing = sorted(set(expected) - set(indices))
        raise ValueError(f"page results do not match the document: missing {missing}, got {indices}")
    return DocumentResult(meta, tuple(pages))
