"""Accuracy on real born-digital pages from Debian packages, read three ways, with the default options.

    .venv/bin/python bench/accuracy.py                      # all pages of bench/accuracy/pages.json
    .venv/bin/python bench/accuracy.py --only ltnews,ctex --variants scan --per-page
    .venv/bin/python bench/accuracy.py --engine tesseract --languages eng,chi_sim   # compare a choice
    .venv/bin/python bench/accuracy.py --split test --script Cyrillic --variants text_layer,clean
    .venv/bin/python bench/accuracy.py --script-models --script Greek   # each page with its script's model and Latin
    .venv/bin/python bench/accuracy.py --corpus scripts --split dev --per-document 2   # scripts beyond Latin, Han

Pages are fetched once with `apt-get download` into a cache (--cache, default
~/.cache/ocrqueue-accuracy or $OCRQUEUE_ACCURACY_CACHE; see tests/data/realpages.py). Each page is
read as the PDF page itself (``text_layer``), rendered clean at 300 dpi (``clean``, a PNG) and as a
simulated scan (``scan``, a grey tilted blurred noisy JPEG), through open_document and process_page
exactly as a worker does. Ground truth is the page's own text layer in typeset order.

``--corpus scripts`` is the per-script evaluation: every page in a script beyond Latin and Han, of
pages.json and of bench/accuracy/scripts.json (translated GNOME help and messages that
tests/data/scriptpages.py prints with Chromium; their ground truth is the text printed).

Prints a table per script, split and variant (mean CER, NFKC and whitespace-normalised,
order-sensitive; mean bag-of-words F1, characters instead of words for scripts written without
spaces; pages; pages/s on one thread), then per language, split and variant, and per language,
page kind and variant, then one JSON line with the same groups (``scripts``:
"script/split/variant", totals as "all"; ``languages``: "lang/split/variant"; ``kinds``:
"lang/kind/variant"), the options used and the commit.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/ holds queue.py, which would shadow the standard library's queue module.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass  # noqa: E402

from bench_runs import git_commit  # noqa: E402
from metrics import bag_of_words_f1, full_text, text_cer  # noqa: E402
from realpages import DEFAULT_CACHE, VARIANTS, RealPage, fetch, ground_truth, load_pages, variant_bytes  # noqa: E402
from scriptpages import build, load_documents  # noqa: E402
from scriptpages import load_pages as load_script_pages  # noqa: E402

from ocrqueue.documents import PageResult, ProcessOptions, keep_page_buffers, open_document, process_page  # noqa: E402
from ocrqueue.settings import Settings  # noqa: E402


@dataclass(frozen=True)
class Reading:
    page: RealPage
    variant: str
    cer: float
    f1: float
    seconds: float
    source: str
    languages: tuple[str, ...]
    rotation: int
    scripts: tuple[str, ...]  # the scripts the page was said to hold
    doubts: tuple[str, ...]  # its warnings that its text may be wrong (a script without a model, a poor reading)


def read(page: RealPage, variant: str, options: ProcessOptions, cache: Path) -> Reading:
    data = variant_bytes(page, variant, cache)
    truth = ground_truth(page, cache)
    started = time.perf_counter()
    with open_document(data, Settings().document_limits()) as doc:
        generator = doc.pages()  # a page is valid only while its generator lives
        result: PageResult = process_page(next(generator), options)
    seconds = time.perf_counter() - started
    text = full_text(result)
    d = result.to_dict()
    return Reading(
        page,
        variant,
        text_cer(truth, text),
        bag_of_words_f1(truth, text),
        seconds,
        result.source,
        tuple(d.get("languages", ())),
        int(d.get("rotation", 0)),
        result.scripts,
        result.doubts,
    )


# The Tesseract model that reads each script (--script-models): Debian's tesseract-ocr-script-* packages.
SCRIPT_MODELS = {"Han": "HanS"}


def script_models(script: str) -> list[str]:
    """The script's model, and Latin's: these manuals quote commands, names and English, which a
    script model alone reads as its own letters (maint-guide-ru p. 9 clean: CER 0.37 with
    Cyrillic, 0.039 with Cyrillic+Latin: English came back in Cyrillic look-alike letters)."""
    model = SCRIPT_MODELS.get(script, script)
    return [model] if model == "Latin" else [model, "Latin"]


def summarise(readings: list[Reading], field: str, within: str) -> dict[str, dict[str, float]]:
    """Mean CER, mean F1, pages and pages/s per ``field`` (script or lang), ``within`` (split or
    kind) and variant, with "all" for every value of either."""
    groups: dict[str, list[Reading]] = defaultdict(list)
    for r in readings:
        for key in (getattr(r.page, field), "all"):
            for part in (getattr(r.page, within), "all"):
                groups[f"{key}/{part}/{r.variant}"].append(r)
    return {
        key: {
            "pages": len(rs),
            "cer": round(sum(r.cer for r in rs) / len(rs), 4),
            "f1": round(sum(r.f1 for r in rs) / len(rs), 4),
            "pages_per_s": round(len(rs) / max(1e-9, sum(r.seconds for r in rs)), 2),
        }
        for key, rs in sorted(groups.items())
    }


def first_per_document(pages: list[RealPage], count: int) -> list[RealPage]:
    seen: dict[str, int] = defaultdict(int)
    kept: list[RealPage] = []
    for page in pages:
        seen[page.doc] += 1
        if seen[page.doc] <= count:
            kept.append(page)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--only", default="", help="comma-separated page ids or document ids (substrings)")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--lang", help="only pages of this language (the manifest's lang: eng, chi, rus, ...)")
    parser.add_argument("--script", help="only pages of these scripts (comma-separated: Latin, Han, Cyrillic, ...)")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all", help="only documents of this split")
    parser.add_argument(
        "--corpus",
        choices=("all", "pages", "scripts"),
        default="all",
        help="pages: bench/accuracy/pages.json; scripts: the pages beyond Latin and Han (pages.json, scripts.json)",
    )
    parser.add_argument("--ci", action="store_true", help="only the pages `make test` reads")
    parser.add_argument(
        "--per-document", type=int, help="only each document's first N pages (for drawn ones: the first N drawn)"
    )
    parser.add_argument("--engine", help="engine option (default: the default options)")
    parser.add_argument("--languages", help="comma-separated languages option (default: the default options)")
    parser.add_argument(
        "--script-models",
        action="store_true",
        help="read each page with the Tesseract model of its manifest script (Cyrillic, Greek, HanS, ...) and Latin",
    )
    parser.add_argument("--per-page", action="store_true", help="also print one row per page and variant")
    args = parser.parse_args()

    keep_page_buffers(Settings().page_buffer_keep_mb)
    wanted = [s for s in args.only.split(",") if s]
    pages = load_pages() + (load_script_pages() if args.corpus != "pages" else [])
    if args.corpus == "scripts":
        pages = [p for p in pages if p.script not in ("Latin", "Han")]
    pages = [p for p in pages if (not wanted or any(w in p.id for w in wanted)) and (p.ci or not args.ci)]
    pages = [
        p for p in pages if args.lang in (None, p.lang) and (not args.script or p.script in args.script.split(","))
    ]
    pages = [p for p in pages if args.split in ("all", p.split)]
    if args.per_document:
        pages = first_per_document(pages, args.per_document)
    variants = [v for v in args.variants.split(",") if v]
    overrides: dict[str, object] = {}
    if args.engine:
        overrides["engine"] = args.engine
    if args.languages:
        overrides["languages"] = args.languages.split(",")
    options = ProcessOptions.from_dict({**ProcessOptions().to_dict(), **overrides})
    ids = {p.doc for p in pages}
    build([d for d in load_documents() if d.source.id in ids], args.cache)
    fetch(pages, args.cache)

    readings: list[Reading] = []
    for page in pages:
        page_options = options
        if args.script_models:
            page_options = ProcessOptions.from_dict({**options.to_dict(), "languages": script_models(page.script)})
        for variant in variants:
            r = read(page, variant, page_options, args.cache)
            readings.append(r)
            if args.per_page:
                print(
                    f"{page.id:24} {page.script:10} {page.lang} {page.split:4} {variant:10} "
                    f"cer {r.cer:.4f} f1 {r.f1:.4f} "
                    f"{r.seconds:6.2f}s {r.source:10} {','.join(r.languages):12} rot {r.rotation} "
                    f"scripts {','.join(r.scripts) or '-'} doubts {' | '.join(r.doubts) or '-'}",
                    flush=True,
                )

    scripts, languages = summarise(readings, "script", "split"), summarise(readings, "lang", "split")
    kinds = summarise(readings, "lang", "kind")
    for title, within, summary in (
        ("script", "split", scripts),
        ("language", "split", languages),
        ("language", "kind", kinds),
    ):
        print(f"\n{title:10} {within:10} {'variant':10} {'pages':>5} {'cer':>7} {'f1':>7} {'pages/s':>8}")
        for key, row in summary.items():
            name, part, variant = key.split("/")
            print(
                f"{name:10} {part:10} {variant:10} {row['pages']:5d} {row['cer']:7.4f} {row['f1']:7.4f} "
                f"{row['pages_per_s']:8.2f}"
            )
    print(
        json.dumps(
            {
                "bench": "accuracy",
                "commit": git_commit(),
                "options": options.to_dict(),
                "script_models": args.script_models,
                "corpus": args.corpus,
                "split": args.split,
                "pages": len(pages),
                "load_1min": round(os.getloadavg()[0], 2),
                "scripts": scripts,
                "languages": languages,
                "kinds": kinds,
            }
        )
    )


if __name__ == "__main__":
    main()
