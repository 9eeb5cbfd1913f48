"""Draw the pages of the real-page evaluation and split its documents, by the seeded rule of
tests/data/sampling.py, and write them into bench/accuracy/pages.json.

    .venv/bin/python bench/sample_pages.py            # draw pages of documents that name "drawn", split all
    .venv/bin/python bench/sample_pages.py --check    # exit 1 if the manifest differs from what the rule gives

A document with ``"drawn": N`` gets N pages drawn (kind ``sampled``); its earlier pages are
replaced, except a page marked ``ci`` (the pages `make test` reads stay). Documents without it
keep the pages chosen for them by hand before the sampler existed. Every document gets its
``split``. The PDFs are fetched as bench/accuracy.py fetches them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import json  # noqa: E402
from typing import Any  # noqa: E402

import pypdfium2 as pdfium  # noqa: E402
from bench_runs import run_sampler  # noqa: E402
from realpages import DEFAULT_CACHE, MANIFEST, RealPage, document_path, fetch  # noqa: E402
from sampling import Document, assign_splits, draw_pages  # noqa: E402


def sampled(manifest: dict[str, Any], cache: Path) -> dict[str, Any]:
    """The manifest with drawn pages and splits filled in by the rule."""
    documents: list[dict[str, Any]] = manifest["documents"]
    to_draw = [d for d in documents if "drawn" in d]
    fetch([RealPage(d["id"], d["package"], d["version"], d["file"], 1, "", d["lang"], False) for d in to_draw], cache)
    splits = assign_splits(Document(d["id"], d["script"], d.get("batch", 1)) for d in documents)
    out: list[dict[str, Any]] = []
    for doc in documents:
        doc = {**doc, "split": splits[doc["id"]]}
        if "drawn" in doc:
            ci = {p["page"] for p in doc.get("pages", []) if p.get("ci")}
            drawn = _draw(doc, cache)
            doc["pages"] = [{"page": n, "kind": "sampled"} | ({"ci": True} if n in ci else {}) for n in drawn] + [
                p for p in doc.get("pages", []) if p.get("ci") and p["page"] not in drawn
            ]
        out.append(doc)
    return {**manifest, "documents": out}


def _draw(doc: dict[str, Any], cache: Path) -> list[int]:
    pdf = pdfium.PdfDocument(document_path(doc["package"], doc["version"], doc["file"], cache))
    try:
        return draw_pages(
            doc["id"], len(pdf), doc["drawn"], lambda n: str(pdf[n - 1].get_textpage().get_text_range()), doc["script"]
        )
    finally:
        pdf.close()


def dumps(manifest: dict[str, Any]) -> str:
    """One document a paragraph, four pages a line: the manifest stays readable in a diff."""
    lines = ["{", f'  "about": {json.dumps(manifest["about"], ensure_ascii=False)},', '  "documents": [']
    for i, doc in enumerate(manifest["documents"]):
        head = ", ".join(
            f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.items() if k != "pages"
        )
        pages = [json.dumps(p) for p in doc["pages"]]
        rows = [", ".join(pages[j : j + 4]) for j in range(0, len(pages), 4)]
        lines.append(f"    {{{head},")
        lines.append(
            '     "pages": ['
            + (",\n               ".join(rows))
            + "]}"
            + ("," if i < len(manifest["documents"]) - 1 else "")
        )
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main() -> None:
    run_sampler(__doc__ or "", MANIFEST, DEFAULT_CACHE, lambda manifest, cache: dumps(sampled(manifest, cache)))


if __name__ == "__main__":
    main()
