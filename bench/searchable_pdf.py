"""How fast the searchable PDF is written, and that its memory does not grow with the page count.

    .venv/bin/python bench/searchable_pdf.py --pages 10 40

For each page count, a scanned PDF of that many pages (the English sample, one image per page) is
OCR'd once (untimed), then written as a searchable PDF in a fresh child process, which reports its
time and its peak RSS growth over the baseline after imports (`ru_maxrss`). Output: a table, then
one JSON line.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import resource
import sys
import time
from pathlib import Path

# bench/queue.py would shadow the standard library's queue module: this folder leaves the path.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

from generate import ENGLISH, scanned_pdf, text_page  # noqa: E402

from ocrqueue.documents import PageResult, ProcessOptions, open_document, process_page  # noqa: E402
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf  # noqa: E402


def _write(data: bytes, pages: list[dict[str, object]], queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = io.BytesIO()
    started = time.perf_counter()
    write_searchable_pdf(data, (PageResult.from_dict(p) for p in pages), out)
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put({"seconds": elapsed, "rss_growth_mb": (peak - baseline) / 1024, "output_mb": len(out.getvalue()) / 2**20})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[10, 40])
    args = parser.parse_args()
    page = text_page(ENGLISH, cjk=False)
    one = scanned_pdf(page, pages=1)
    with open_document(one) as document:
        pages_of_one = document.pages()
        template = process_page(next(pages_of_one), ProcessOptions(languages=("eng",), mode="ocr")).to_dict()
    rows = []
    context = multiprocessing.get_context("spawn")
    for count in args.pages:
        data = scanned_pdf(page, pages=count)
        pages = [{**template, "index": n} for n in range(count)]
        queue = context.Queue()
        child = context.Process(target=_write, args=(data, pages, queue))
        child.start()
        result = queue.get()
        child.join()
        rows.append({"pages": count, "input_mb": len(data) / 2**20, **result})
    print(f"{'pages':>6} {'input MB':>9} {'output MB':>10} {'seconds':>8} {'pages/s':>8} {'peak RSS growth MB':>19}")
    for row in rows:
        print(
            f"{row['pages']:>6} {row['input_mb']:>9.1f} {row['output_mb']:>10.1f} {row['seconds']:>8.2f} "
            f"{row['pages'] / row['seconds']:>8.1f} {row['rss_growth_mb']:>19.1f}"
        )
    print(json.dumps({"bench": "searchable_pdf", "runs": rows}))


if __name__ == "__main__":
    main()
