"""Reading the issue-22 corpus: documents from many producers, split by document into dev and test.

    .venv/bin/python bench/documents.py --split dev --variants text_layer        # every dev page, born-digital
    .venv/bin/python bench/documents.py --split test --limit 40 --variants clean,scan
    .venv/bin/python bench/documents.py --kinds invoice,letter --families word,libreoffice --per-page
    .venv/bin/python bench/documents.py --split dev --variants clean,scan --structured --per-page
    .venv/bin/python bench/documents.py --split dev --limit 24 --variants scan --scan-draw 1
    .venv/bin/python bench/documents.py --split test --limit 24 --batches 1   # the sample of earlier reports
    .venv/bin/python bench/documents.py --variants scanned --per-page   # real scans, hand-checked truth

``--structured`` keeps only the pages of tagged documents (the ones whose structure tree gives
heading and paragraph-boundary truth): few of them fall in a ``--limit`` sample, so structure
measured there rests on a handful of headings.

The documents and their drawn pages are in bench/accuracy/documents.json (bench/sample_documents.py
fills it; tests/data/documents_corpus.py fetches or makes them into the accuracy cache). Each page
is read as the PDF page (``text_layer``), as a clean 300-dpi render (``clean``) and as a simulated
scan (``scan``; ``--scan-draw N`` draws another scan of the page from the same distribution),
through open_document and process_page with the default options, as a worker does.
Pages whose document has no trustworthy text layer (scans, photos, OCR'd PDFs) are read as they
are: those with a hand-checked transcription (bench/accuracy/transcriptions.json) as ``scanned``,
scored against it (CER and bag-of-words F1; no structure truth), the others with the
``text_layer`` variant, for crashes and speed only.

Measures (tests/data/metrics.py, tests/data/structure_metrics.py): CER against the text layer in the
nearer of two orders made by readers that are not ours (PDFium's, close to the content stream, and
Poppler's pdftotext, which finds columns: a stream may run straight across a page's columns), and
``cer_stream`` against PDFium's order alone; bag-of-words F1 against the text layer; where the PDF
is tagged, heading precision/recall/F1, paragraph-boundary F1 and block order against its structure
tree; table TEDS and cell-text F1 against tagged tables and the
CSVs tabula-py ships. Prints rows per split, producer family and variant, then per split, page
kind and variant, with pages/s, crashes, and pages whose text came back mostly inside figures;
then one JSON line.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import pypdfium2 as pdfium  # noqa: E402
from data.bench_runs import git_commit  # noqa: E402
from data.documents_corpus import (  # noqa: E402
    SEED,
    CorpusPage,
    fetch_documents,
    load_manifest,
    load_pages,
    table_truth,
    transcription,
    truth_orders,
)
from data.metrics import bag_of_words_f1, full_text, paragraph_flow, text_cer, text_cer_nearest  # noqa: E402
from data.realpages import DEFAULT_CACHE, RENDER_DPI, clean_png, scan_jpeg  # noqa: E402
from data.structure_metrics import (  # noqa: E402
    Counts,
    best_tables,
    boundary_counts,
    heading_counts,
    order_score,
)
from data.structure_truth import TruthBlock, page_structure  # noqa: E402

from ocrqueue.documents import PageResult, ProcessOptions, keep_page_buffers, open_document, process_page  # noqa: E402
from ocrqueue.settings import Settings  # noqa: E402

VARIANTS = ("text_layer", "clean", "scan", "scanned")


@dataclass
class Reading:
    page: CorpusPage
    variant: str
    seconds: float
    crash: str = ""
    source: str = ""
    cer: float | None = None
    cer_stream: float | None = None
    f1: float | None = None
    figure_text: bool = False
    headings: Counts | None = None
    boundaries: Counts | None = None
    order: float | None = None
    tables: list[tuple[float, float]] = field(default_factory=list)


def scan_seed(page: CorpusPage, draw: int) -> str:
    """The seed of a page's simulated scan: draw 0 is the corpus's own; other draws are further
    scans from the same distribution (tilt, blur, paper, noise), to see how much a reading owes to
    one scan's chance rather than to the page."""
    return page.id if draw == 0 else f"{page.id}#{draw}"


def page_bytes(page: CorpusPage, variant: str, cache: Path, scan_draw: int = 0) -> bytes:
    """The page as the variant gives it to a reader: the PDF page itself (``text_layer``; a scanned
    page's ``scanned``), or rendered clean or as a simulated scan."""
    pdf = pdfium.PdfDocument(page.pdf_path(cache))
    try:
        if variant in ("text_layer", "scanned"):
            single = pdfium.PdfDocument.new()
            single.import_pages(pdf, [page.page - 1])
            out = io.BytesIO()
            single.save(out)
            single.close()
            return out.getvalue()
        image = pdf[page.page - 1].render(scale=RENDER_DPI / 72).to_pil().convert("RGB")
    finally:
        pdf.close()
    return clean_png(image) if variant == "clean" else scan_jpeg(image, scan_seed(page, scan_draw))


def _measure(
    r: Reading, result: PageResult, orders: list[str], structure: list[TruthBlock], tables: list[list[list[str]]]
) -> None:
    text = full_text(result)
    r.cer, r.cer_stream = text_cer_nearest(orders, text), text_cer(orders[0], text)
    r.f1 = bag_of_words_f1(orders[0], text)
    figure_chars = sum(len(b.text) for b in result.blocks if b.type == "figure")
    r.figure_text = r.cer > 0.5 and figure_chars > 0
    if structure:
        true_headings = [b.text for b in structure if b.kind == "heading"]
        read_headings = [b.text for b in result.blocks if b.type == "title"]
        r.headings = heading_counts(true_headings, read_headings)
        flow = [b.text for b in structure if b.kind != "table"]
        r.boundaries = boundary_counts(flow, paragraph_flow(result.blocks))
        r.order = order_score([b.text for b in structure], text)
    if tables:
        read_tables = [b.table.grid() for b in result.blocks if b.table is not None]
        r.tables = best_tables(tables, read_tables)


def read(
    page: CorpusPage, variant: str, options: ProcessOptions, cache: Path, truth: dict[str, object], scan_draw: int = 0
) -> Reading:
    data = page_bytes(page, variant, cache, scan_draw)
    started = time.perf_counter()
    try:
        with open_document(data, Settings().document_limits()) as doc:
            generator = doc.pages()
            result: PageResult = process_page(next(generator), options)
    except Exception as error:  # a crash is a finding: counted and shown, the run goes on
        return Reading(page, variant, time.perf_counter() - started, crash=f"{type(error).__name__}: {error}"[:200])
    r = Reading(page, variant, time.perf_counter() - started, source=result.source)
    if page.truth != "none":
        _measure(r, result, truth["orders"], truth["structure"], truth["tables"])  # type: ignore[arg-type]
    return r


def summarise(readings: list[Reading], within: str) -> dict[str, dict[str, object]]:
    groups: dict[str, list[Reading]] = defaultdict(list)
    for r in readings:
        for part in (getattr(r.page, within), "all"):
            groups[f"{r.page.split}/{part}/{r.variant}"].append(r)
    out: dict[str, dict[str, object]] = {}
    for key, rs in sorted(groups.items()):
        scored = [r for r in rs if r.cer is not None]
        headings = sum((r.headings for r in rs if r.headings), Counts(0, 0, 0))
        bounds = sum((r.boundaries for r in rs if r.boundaries), Counts(0, 0, 0))
        orders = [r.order for r in rs if r.order is not None]
        tables = [t for r in rs for t in r.tables]
        out[key] = {
            "pages": len(rs),
            "scored": len(scored),
            "cer": _mean([r.cer for r in scored]),
            "cer_stream": _mean([r.cer_stream for r in scored]),
            "f1": _mean([r.f1 for r in scored]),
            "heading_p": round(headings.precision, 3) if headings.true or headings.predicted else None,
            "heading_r": round(headings.recall, 3) if headings.true or headings.predicted else None,
            "heading_f1": round(headings.f1, 3) if headings.true or headings.predicted else None,
            "boundary_f1": round(bounds.f1, 3) if bounds.true or bounds.predicted else None,
            "order": _mean(orders),
            "tables": len(tables),
            "teds": _mean([t[0] for t in tables]),
            "cell_f1": _mean([t[1] for t in tables]),
            "crashes": sum(1 for r in rs if r.crash),
            "figure_pages": sum(1 for r in rs if r.figure_text),
            "pages_per_s": round(len(rs) / max(1e-9, sum(r.seconds for r in rs)), 2),
        }
    return out


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None


def _counts(counts: Counts | None) -> str:
    """matched/predicted/true, so a page's loss shows as missed or extra items, not just an F1."""
    return "-" if counts is None else f"{counts.matched}/{counts.predicted}/{counts.true}"


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def print_table(title: str, summary: dict[str, dict[str, object]]) -> None:
    columns = (
        "pages",
        "scored",
        "cer",
        "cer_stream",
        "f1",
        "heading_f1",
        "boundary_f1",
        "order",
        "tables",
        "teds",
        "cell_f1",
    )
    print(f"\n{'split':5} {title:12} {'variant':10} " + " ".join(f"{c:>11}" for c in columns) + "  crash fig pages/s")
    for key, row in summary.items():
        split, part, variant = key.split("/")
        cells = " ".join(f"{_cell(row[c]):>11}" for c in columns)
        print(
            f"{split:5} {part:12} {variant:10} {cells}  "
            f"{row['crashes']:5} {row['figure_pages']:3} {row['pages_per_s']:7}"
        )


def _variants_of(page: CorpusPage, variants: list[str]) -> list[str]:
    """The asked variants a page is read in. A page with a trusted text layer: as it is and rendered
    (clean, scan). A scanned page is read only as it is: ``scanned`` when it has a transcription to
    score against, else ``text_layer``, for crashes and speed."""
    if page.truth == "text_layer":
        return [v for v in variants if v != "scanned"]
    wanted = "scanned" if page.truth == "transcription" else "text_layer"
    return [wanted] if wanted in variants else []


def interleaved(pages: list[CorpusPage]) -> list[CorpusPage]:
    """Pages taking turns by document (documents in an order shuffled by seed 22, each document's
    pages in drawn order), so --limit reaches many documents, whatever their place in the manifest."""
    by_doc: dict[str, list[CorpusPage]] = defaultdict(list)
    for p in pages:
        by_doc[p.doc].append(p)
    order = sorted(by_doc)
    random.Random(f"{SEED}/limit").shuffle(order)
    out: list[CorpusPage] = []
    rank = 0
    while len(out) < len(pages):
        out += [by_doc[d][rank] for d in order if rank < len(by_doc[d])]
        rank += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--limit", type=int, help="at most N pages per split, taking turns by document")
    parser.add_argument("--kinds", help="only these page kinds (comma-separated: report, invoice, slides, ...)")
    parser.add_argument("--families", help="only these producer families (comma-separated: word, tex, ...)")
    parser.add_argument("--only", default="", help="comma-separated substrings of page ids")
    parser.add_argument("--batches", help="only documents of these batches (comma-separated: 1 is the first corpus)")
    parser.add_argument("--structured", action="store_true", help="only pages of tagged documents (structure truth)")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--per-page", action="store_true", help="also print one row per page and variant")
    parser.add_argument(
        "--scan-draw", type=int, default=0, help="read scans drawn with another seed (0: the corpus's own scan)"
    )
    args = parser.parse_args()

    keep_page_buffers(Settings().page_buffer_keep_mb)
    manifest = load_manifest()
    pages = load_pages(manifest, args.cache)
    wanted = [w for w in args.only.split(",") if w]
    pages = [
        p
        for p in pages
        if args.split in ("all", p.split)
        and (not args.kinds or p.kind in args.kinds.split(","))
        and (not args.families or p.family in args.families.split(","))
        and (not wanted or any(w in p.id for w in wanted))
    ]
    docs = {d["id"]: d for d in manifest["documents"]}  # type: ignore[attr-defined]
    if args.batches:
        wanted_batches = {int(b) for b in args.batches.split(",")}
        pages = [p for p in pages if int(docs[p.doc].get("batch", 1)) in wanted_batches]
    if args.structured:
        pages = [p for p in pages if p.truth == "text_layer" and docs[p.doc].get("tagged")]
    variants = [v for v in args.variants.split(",") if v]
    pages = [p for p in pages if _variants_of(p, variants)]
    if args.limit:
        pages = [
            p for split in ("dev", "test") for p in interleaved([q for q in pages if q.split == split])[: args.limit]
        ]
    fetch_documents(manifest, args.cache, {p.doc for p in pages})
    options = ProcessOptions()
    readings: list[Reading] = []
    for page in pages:
        truth: dict[str, object] = {"orders": [], "structure": [], "tables": []}
        if page.truth == "text_layer":
            structure = page_structure(page.pdf_path(args.cache), page.page) if docs[page.doc].get("tagged") else []
            csv_table = table_truth(docs[page.doc], page.page, args.cache)
            tables = [b.rows for b in structure if b.kind == "table"] + ([csv_table] if csv_table else [])
            truth = {"orders": truth_orders(page, args.cache), "structure": structure, "tables": tables}
        elif page.truth == "transcription":
            truth = {"orders": [transcription(page)], "structure": [], "tables": []}
        for variant in _variants_of(page, variants):
            r = read(page, variant, options, args.cache, truth, args.scan_draw)
            readings.append(r)
            if args.per_page:
                print(
                    f"{page.id:36} {page.family:11} {page.kind:11} {page.split:4} {variant:10} "
                    f"cer {_cell(r.cer):>6} stream {_cell(r.cer_stream):>6} "
                    f"h {_cell(r.headings.f1 if r.headings else None):>6} {_counts(r.headings):>8} "
                    f"b {_cell(r.boundaries.f1 if r.boundaries else None):>6} {_counts(r.boundaries):>8} "
                    f"o {_cell(r.order):>6} "
                    f"t {','.join(f'{t[0]:.2f}' for t in r.tables) or '-':10} {r.seconds:6.2f}s {r.source:10}"
                    + (" FIGURE" if r.figure_text else "")
                    + (f" CRASH {r.crash}" if r.crash else ""),
                    flush=True,
                )

    families, kinds = summarise(readings, "family"), summarise(readings, "kind")
    print_table("family", families)
    print_table("kind", kinds)
    crashes = [f"{r.page.id} {r.variant}: {r.crash}" for r in readings if r.crash]
    if crashes:
        print("\ncrashes:\n  " + "\n  ".join(crashes))
    print(
        json.dumps(
            {
                "bench": "documents",
                "commit": git_commit(),
                "pages": len(pages),
                "variants": variants,
                "scan_draw": args.scan_draw,
                "load_1min": round(os.getloadavg()[0], 2),
                "families": families,
                "kinds": kinds,
                "crashes": crashes,
            }
        )
    )


if __name__ == "__main__":
    main()
