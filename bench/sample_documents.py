"""Fill in bench/accuracy/documents.json: each document's producer (from its /Producer and
/Creator), producer family, whether its text layer is ground truth, whether it is tagged, its
drawn pages and its split, by the seeded rules of tests/data/documents_corpus.py.

    .venv/bin/python bench/sample_documents.py            # fetch or make every document, then write
    .venv/bin/python bench/sample_documents.py --check    # exit 1 if the manifest differs from what the rules give

The hand-written fields of a document are its ``id``, ``source``, ``file`` (or the ``recipe`` of a
made one), ``kind``, ``lang``, ``drawn`` (how many pages to draw) and ``tables`` (page -> the CSV
its source distribution ships with that page's table). Everything else is written here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import json  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import pypdfium2 as pdfium  # noqa: E402
import pypdfium2.raw as raw  # noqa: E402
from data.bench_runs import run_sampler  # noqa: E402
from data.documents_corpus import (  # noqa: E402
    MANIFEST,
    assign_splits,
    cache_path,
    draw_pages,
    family,
    fetch_documents,
    metadata,
    text_layer_trusted,
)
from data.realpages import DEFAULT_CACHE  # noqa: E402

DERIVED = ("producer", "creator", "family", "truth", "tagged", "pages_in_document", "split", "pages")


def sampled(manifest: dict[str, Any], cache: Path) -> dict[str, Any]:
    fetch_documents(manifest, cache)
    sources = {s["id"]: s for s in manifest["sources"]}
    out: list[dict[str, Any]] = []
    for doc in manifest["documents"]:
        doc = {k: v for k, v in doc.items() if k not in DERIVED}
        path = cache_path(doc, sources, cache)
        producer, creator = metadata(path)
        name = family(producer, creator)
        trusted = text_layer_trusted(path, name)
        pdf = pdfium.PdfDocument(path)
        try:
            tagged = _tagged(pdf)
            count = len(pdf)
            pages = draw_pages(doc["id"], count, doc["drawn"], _page_text(pdf))
            if not trusted or not pages:  # no truth: any page, for crashes and speed
                trusted, pages = False, draw_pages(doc["id"], count, doc["drawn"], None)
        finally:
            pdf.close()
        doc |= {
            "producer": producer,
            "creator": creator,
            "family": name,
            "truth": "text_layer" if trusted else "none",
            "tagged": tagged,
            "pages_in_document": count,
            "pages": pages,
        }
        out.append(doc)
    splits = assign_splits((d["id"], d["family"], d.get("batch", 1)) for d in out)
    return {**manifest, "documents": [d | {"split": splits[d["id"]]} for d in out]}


def _page_text(pdf: pdfium.PdfDocument) -> Callable[[int], str]:
    return lambda n: str(pdf[n - 1].get_textpage().get_text_range())


def _tagged(pdf: pdfium.PdfDocument) -> bool:
    page = pdf[0]
    tree = raw.FPDF_StructTree_GetForPage(page.raw)
    if not tree:
        return False
    try:
        return bool(raw.FPDF_StructTree_CountChildren(tree) > 0)
    finally:
        raw.FPDF_StructTree_Close(tree)
        page.close()


def dumps(manifest: dict[str, Any]) -> str:
    """One source or document a line: the manifest stays readable in a diff."""
    lines = ["{", f'  "about": {json.dumps(manifest["about"], ensure_ascii=False)},', '  "sources": [']
    lines += [
        "    " + json.dumps(s, ensure_ascii=False) + ("," if i < len(manifest["sources"]) - 1 else "")
        for i, s in enumerate(manifest["sources"])
    ]
    lines += ["  ],", '  "documents": [']
    lines += [
        "    " + json.dumps(d, ensure_ascii=False) + ("," if i < len(manifest["documents"]) - 1 else "")
        for i, d in enumerate(manifest["documents"])
    ]
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main() -> None:
    run_sampler(__doc__ or "", MANIFEST, DEFAULT_CACHE, lambda manifest, cache: dumps(sampled(manifest, cache)))


if __name__ == "__main__":
    main()
