"""Reading cost per script: the pipeline against the bare engines on the same pages, one thread each.

    .venv/bin/python bench/ocr_cost.py                         # dev split, two pages a script
    .venv/bin/python bench/ocr_cost.py --split test --per-script 4 --scripts Latin,Han,Cyrillic

Pages come from bench/accuracy (pages.json for Latin and Han, the scripts corpus for the rest),
drawn in manifest order per script from one split. Each page is rendered at 200 dpi and made a
simulated office scan (tests/data/realpages.scan_jpeg), and that one image is read three ways,
each on one thread (OMP_THREAD_LIMIT=1, RapidOCR with one onnxruntime thread):

- ``pipeline``: open_document + process_page with no options, as a worker reads it;
- ``tesseract``: tesserocr alone on the whole image, PSM 3 (automatic layout), with ``eng`` for
  Latin pages (what issue 21 compares with) and with the languages the pipeline chose otherwise;
- ``rapidocr``: RapidOCR alone on the whole image (its wheel's PP-OCR models).

Start-up is excluded: every engine reads one page before the timed pages, the pipeline reads the
first page of each script once more (it loads a script's models the first time it reads with
them, as a worker does once: 0.25-0.5 s of one core for Greek+Latin, Hangul+Latin or
Vietnamese+Latin, which were charged to the first page of each script before), and Tesseract's
bare API object is made before its clock starts. Times are CPU seconds of this process (all threads),
which a loaded machine disturbs less than wall time; wall seconds are in the JSON too.

Prints a table per script (seconds a page, pages/s, the pipeline's cost over each bare engine and
the target of issue 21: Latin <= 1.0x Tesseract eng, Han <= 1.25x RapidOCR, others <= 1.5x the
engine that reads them), then one JSON line.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import sys
from pathlib import Path

# bench/ holds queue.py, which would shadow the standard library's queue module.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
import tesserocr  # noqa: E402
from bench_runs import git_commit  # noqa: E402
from PIL import Image  # noqa: E402
from realpages import DEFAULT_CACHE, RealPage, fetch, load_pages, render, scan_jpeg  # noqa: E402
from scriptpages import build, load_documents  # noqa: E402
from scriptpages import load_pages as load_script_pages  # noqa: E402

from ocrqueue.documents import ProcessOptions, keep_page_buffers, open_document, process_page  # noqa: E402
from ocrqueue.documents.engines.tesseract import find_tessdata  # noqa: E402
from ocrqueue.settings import Settings  # noqa: E402

DPI = 200
TARGETS = {"Latin": ("tesseract", 1.0), "Han": ("rapidocr", 1.25)}
OTHER_TARGET = 1.5


@dataclass(frozen=True)
class Cost:
    page: RealPage
    languages: tuple[str, ...]
    source: str
    cpu: dict[str, float]  # way -> CPU seconds
    wall: dict[str, float]


def _clocked(fn: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def _pipeline(data: bytes) -> tuple[str, tuple[str, ...]]:
    with open_document(data, Settings().document_limits()) as doc:
        pages = doc.pages()  # a page is valid only while its generator lives
        result = process_page(next(pages), ProcessOptions())
    return result.source, result.languages


class BareTesseract:
    """One API object per language set, made outside the clock."""

    def __init__(self) -> None:
        self._apis: dict[str, tesserocr.PyTessBaseAPI] = {}

    def api(self, languages: str) -> tesserocr.PyTessBaseAPI:
        if languages not in self._apis:
            self._apis[languages] = tesserocr.PyTessBaseAPI(
                path=find_tessdata(), lang=languages, psm=tesserocr.PSM.AUTO
            )
        return self._apis[languages]


def _bare_rapidocr() -> Callable[[Image.Image], object]:
    from rapidocr import RapidOCR

    ocr = RapidOCR(
        params={
            "Global.use_cls": False,
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )
    return lambda image: ocr(np.asarray(image.convert("RGB")), use_cls=False)


def measure(page: RealPage, tesseract: BareTesseract, rapidocr: Callable[[Image.Image], object]) -> Cost:
    data = _scan(page)
    image = Image.open(io.BytesIO(data))
    image.load()
    chosen: dict[str, tuple[str, tuple[str, ...]]] = {}
    cpu, wall = {}, {}
    cpu["pipeline"], wall["pipeline"] = _clocked(lambda: chosen.setdefault("it", _pipeline(data)))
    source, languages = chosen["it"]
    bare_languages = "eng" if page.script == "Latin" or source != "tesseract" else "+".join(languages)
    api = tesseract.api(bare_languages)

    def read_tesseract() -> None:
        api.SetImage(image)
        api.GetUTF8Text()

    cpu["tesseract"], wall["tesseract"] = _clocked(read_tesseract)
    cpu["rapidocr"], wall["rapidocr"] = _clocked(lambda: rapidocr(image))
    return Cost(page, languages, source, cpu, wall)


def _scan(page: RealPage) -> bytes:
    return scan_jpeg(render(page, dpi=DPI), page.id, dpi=DPI)


def _target(script: str, sources: set[str]) -> tuple[str, float]:
    if script in TARGETS:
        return TARGETS[script]
    return ("rapidocr" if sources == {"rapidocr"} else "tesseract"), OTHER_TARGET


def summarise(costs: list[Cost]) -> dict[str, dict[str, object]]:
    groups: dict[str, list[Cost]] = defaultdict(list)
    for c in costs:
        groups[c.page.script].append(c)
    rows: dict[str, dict[str, object]] = {}
    for script, cs in sorted(groups.items()):
        per_page = {way: sum(c.cpu[way] for c in cs) / len(cs) for way in ("pipeline", "tesseract", "rapidocr")}
        against, target = _target(script, {c.source for c in cs})
        ratio = per_page["pipeline"] / max(1e-9, per_page[against])
        rows[script] = {
            "pages": len(cs),
            "cpu_s_per_page": {k: round(v, 3) for k, v in per_page.items()},
            "pages_per_s": {k: round(1 / max(1e-9, v), 2) for k, v in per_page.items()},
            "wall_s_per_page": {
                way: round(sum(c.wall[way] for c in cs) / len(cs), 3) for way in ("pipeline", "tesseract", "rapidocr")
            },
            "read_by": sorted({f"{c.source}:{'+'.join(c.languages)}" for c in cs}),
            "against": against,
            "ratio": round(ratio, 2),
            "target": target,
            "met": ratio <= target,
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--per-script", type=int, default=2, help="pages a script (manifest order)")
    parser.add_argument("--scripts", default="", help="comma-separated scripts (default: every one)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()

    keep_page_buffers(Settings().page_buffer_keep_mb)
    wanted = {s for s in args.scripts.split(",") if s}
    taken: dict[str, int] = defaultdict(int)
    pages = []
    for page in load_pages() + load_script_pages():
        if page.split != args.split or (wanted and page.script not in wanted) or taken[page.script] >= args.per_script:
            continue
        taken[page.script] += 1
        pages.append(page)
    ids = {p.doc for p in pages}
    build([d for d in load_documents() if d.source.id in ids], args.cache)
    fetch(pages, args.cache)

    tesseract, rapidocr = BareTesseract(), _bare_rapidocr()
    measure(pages[0], tesseract, rapidocr)  # start-up: models loaded, caches warm
    for script in dict.fromkeys(p.script for p in pages):  # each script's models loaded
        _pipeline(_scan(next(p for p in pages if p.script == script)))
    costs = []
    for page in pages:
        cost = measure(page, tesseract, rapidocr)
        costs.append(cost)
        print(
            f"{page.id:<34} {page.script:<11} "
            + " ".join(f"{way} {cost.cpu[way]:6.2f}s" for way in ("pipeline", "tesseract", "rapidocr")),
            file=sys.stderr,
            flush=True,
        )
    rows = summarise(costs)
    print(f"\nsplit {args.split}, CPU seconds a page, one thread, {DPI}-dpi scans")
    print(
        f"{'script':<11} {'pages':>5} {'pipeline':>9} {'tesseract':>10} {'rapidocr':>9}  {'ratio':>6}  target  read by"
    )
    for script, row in rows.items():
        s = row["cpu_s_per_page"]
        assert isinstance(s, dict)
        mark = "ok" if row["met"] else "MISSED"
        print(
            f"{script:<11} {row['pages']:>5} {s['pipeline']:>9.2f} {s['tesseract']:>10.2f} {s['rapidocr']:>9.2f}  "
            f"{row['ratio']:>5.2f}x  {row['target']:.2f}x vs {row['against']} {mark}  {', '.join(row['read_by'])}"  # type: ignore[arg-type]
        )
    print(json.dumps({"bench": "ocr_cost", "commit": git_commit(), "split": args.split, "dpi": DPI, "scripts": rows}))


if __name__ == "__main__":
    main()
