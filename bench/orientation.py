"""Pages of the issue-22 corpus turned 0/90/180/270: does each read as well as the page upright?

    .venv/bin/python bench/orientation.py --split dev --limit 6
    .venv/bin/python bench/orientation.py --split test --limit 6 --variants scan

A seeded sample of the split's pages with a trustworthy text layer (bench/accuracy/documents.json)
is read upright and turned each way: as a simulated scan of the page turned (``scan``: the
rendering turned counter-clockwise, then scanned as bench/documents.py scans it), and as the PDF
page with its /Rotate turned clockwise (``rotate``: the text-layer path). Prints, per variant and
angle, the mean CER against the text layer, the mean change from the same page upright, the
largest change, how often the page recorded the turn it needed, and pages/s; then one JSON line.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402

import pikepdf  # noqa: E402
import pypdfium2 as pdfium  # noqa: E402
from data.documents_corpus import CorpusPage, fetch_documents, load_manifest, load_pages, truth_text  # noqa: E402
from data.metrics import full_text, text_cer  # noqa: E402
from data.realpages import DEFAULT_CACHE, RENDER_DPI, scan_jpeg  # noqa: E402

from ocrqueue.documents import ProcessOptions, open_document, process_page  # noqa: E402

ANGLES = (0, 90, 180, 270)
VARIANTS = ("scan", "rotate")
SEED = 22


def turned_bytes(page: CorpusPage, variant: str, angle: int, cache: Path) -> tuple[bytes, int]:
    """The page turned ``angle`` degrees, and the turn a reader must record to read it upright."""
    pdf = pdfium.PdfDocument(page.pdf_path(cache))
    try:
        if variant == "scan":
            image = pdf[page.page - 1].render(scale=RENDER_DPI / 72).to_pil().convert("RGB")
            return scan_jpeg(image.rotate(angle, expand=True), page.id), angle
        single = pdfium.PdfDocument.new()
        single.import_pages(pdf, [page.page - 1])
        out = io.BytesIO()
        single.save(out)
        single.close()
    finally:
        pdf.close()
    with pikepdf.open(io.BytesIO(out.getvalue())) as turned:
        first = turned.pages[0]
        first.obj.Rotate = (int(first.obj.get("/Rotate", 0)) + angle) % 360
        buffer = io.BytesIO()
        turned.save(buffer)  # PDFium's copy of the page, as bench/documents.py reads it
    return buffer.getvalue(), (360 - angle) % 360


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--limit", type=int, default=6, help="pages drawn (seeded) from the split")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    manifest = load_manifest()
    fetch_documents(manifest, args.cache)
    pages = [p for p in load_pages(manifest, args.cache) if p.split == args.split and p.truth == "text_layer"]
    pages = random.Random(SEED).sample(pages, min(args.limit, len(pages)))
    options = ProcessOptions()
    rows: dict[tuple[str, int], list[tuple[float, float, bool, float]]] = defaultdict(list)
    for page in pages:
        truth = truth_text(page, args.cache)
        for variant in [v for v in args.variants.split(",") if v]:
            upright_cer = None
            for angle in ANGLES:
                data, wanted = turned_bytes(page, variant, angle, args.cache)
                started = time.perf_counter()
                with open_document(data) as document:
                    pages_of = document.pages()  # held: a page closes when its iterator goes
                    result = process_page(next(pages_of), options)
                seconds = time.perf_counter() - started
                cer = text_cer(truth, full_text(result))
                upright_cer = cer if upright_cer is None else upright_cer
                rows[(variant, angle)].append((cer, cer - upright_cer, result.rotation == wanted, seconds))
                print(
                    f"{page.id:36} {variant:6} {angle:3} CER {cer:.3f} ({cer - upright_cer:+.3f}) "
                    f"rotation {result.rotation:3} (wanted {wanted:3}) {seconds:5.1f} s",
                    flush=True,
                )
    print(f"\n{args.split}: {len(pages)} pages; timings under whatever load the machine had")
    print(f"{'variant':7} {'angle':>5} {'CER':>6} {'delta':>7} {'worst':>7} {'turned':>7} {'pages/s':>8}")
    summary = []
    for (variant, angle), items in sorted(rows.items()):
        mean_cer = sum(i[0] for i in items) / len(items)
        delta = sum(i[1] for i in items) / len(items)
        worst = max(i[1] for i in items)
        right = sum(i[2] for i in items)
        rate = len(items) / sum(i[3] for i in items)
        print(
            f"{variant:7} {angle:5} {mean_cer:6.3f} {delta:+7.3f} {worst:+7.3f} {right:3}/{len(items):<3} {rate:8.2f}"
        )
        summary.append(
            {
                "variant": variant,
                "angle": angle,
                "cer": round(mean_cer, 4),
                "delta": round(delta, 4),
                "worst_delta": round(worst, 4),
                "turned_right": right,
                "pages": len(items),
                "pages_per_s": round(rate, 3),
            }
        )
    print(json.dumps({"split": args.split, "pages": [p.id for p in pages], "rows": summary}))


if __name__ == "__main__":
    main()
