"""The whole-document result: assembled from per-page results (possibly checkpointed earlier)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ocrqueue.documents.input.pagerange import selected_indices
from ocrqueue.documents.model import SCHEMA_VERSION, DocumentMeta, PageResult
from ocrqueue.documents.output.writer import ResultWriter


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
        """The JSON the service and ``convert`` store, written by the same ``ResultWriter``."""
        return self._written(indent, False)[0]

    def to_markdown(self, include_headers: bool = False) -> str:
        return self._written(None, include_headers)[1]

    def _written(self, indent: int | None, include_headers: bool) -> tuple[str, str]:
        json_out, markdown_out = io.BytesIO(), io.BytesIO()
        with ResultWriter(self.meta, json_out, markdown_out, indent=indent, include_headers=include_headers) as writer:
            for page in self.pages:
                writer.add(page)
        return json_out.getvalue().decode(), markdown_out.getvalue().decode()

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocumentResult:
        if d.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"unsupported schema_version {d.get('schema_version')!r}")
        return cls(DocumentMeta.from_dict(d["document"]), tuple(PageResult.from_dict(p) for p in d["pages"]))


def assemble(meta: DocumentMeta, page_results: Iterable[PageResult]) -> DocumentResult:
    """Order the page results and check that every page of the document is there exactly once."""
    pages = sorted(page_results, key=lambda p: p.index)
    indices = [p.index for p in pages]
    expected = selected_indices(meta.pages, meta.page_count)
    if indices != expected:
        missing = sorted(set(expected) - set(indices))
        raise ValueError(f"page results do not match the document: missing {missing}, got {indices}")
    return DocumentResult(meta, tuple(pages))
