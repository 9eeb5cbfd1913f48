"""The document corpus of issue 22: PDFs from many producers, fetched from package registries or
made here, with seeded pages and a split by document (bench/accuracy/documents.json).

Sources: ``pypi`` (a source distribution, fetched with ``pip download --no-binary :all:`` and
checked against its sha256; PDF test suites of pypdf, pdfminer.six, pikepdf, OCRmyPDF, tabula-py),
``debian`` (a package, fetched with ``apt-get download`` as tests/data/realpages.py does) and
``made`` (made here by tests/data/made_documents.py from a recipe). Everything lands in the same
cache as the real-page evaluation, under ``corpus/``.

Ground truth: the page's own text layer where it can be trusted (``text_layer_trusted``): a
document's ``truth`` is ``text_layer`` unless its producer is a scanner, an image converter or an
OCR tool, or its text is drawn invisibly over an image (an OCR layer is somebody's guess, not the
truth). A page without a trusted text layer may have a hand-checked transcription instead
(bench/accuracy/transcriptions.json: a scanned page, measured as it was scanned, ``truth``
``transcription``); the other such pages are read for crashes and speed only.
"""

from __future__ import annotations

import csv
import fcntl
import functools
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
from data.made_documents import make
from data.realpages import DEFAULT_CACHE, RealPage, document_path
from data.realpages import fetch as fetch_debian
from data.sampling import batch_group, broken_text_layer, draw_in_order, take_turns

MANIFEST = Path(__file__).resolve().parents[2] / "bench" / "accuracy" / "documents.json"
TRANSCRIPTIONS = MANIFEST.with_name("transcriptions.json")
SEED = 22
SPLITS = ("test", "dev")
# A page is drawn when its text layer holds this many letters or digits (slides, receipts, forms
# and tables of numbers hold few letters) and no character that says the font's ToUnicode map is broken.
MIN_LETTERS = 60

# Producer families, from the /Producer and /Creator strings: first match wins.
FAMILIES: tuple[tuple[str, str], ...] = (
    ("ocr", r"ocrmypdf|tesseract|abbyy|omnipage|readiris|luradocument|easyocr"),
    ("scanner", r"epson scan|xerox|kodak|canon|fujitsu|scansnap|ineo|workcentre|document imaging"),
    ("image", r"img2pdf|tiff2pdf|imagemagick|photoshop|leadtools"),
    ("word", r"microsoft.*word|pdfmaker.*word"),
    ("excel", r"excel"),
    ("indesign", r"indesign"),
    ("libreoffice", r"libreoffice|openoffice"),
    ("quartz", r"quartz|mac os x|macos"),
    ("distiller", r"distiller"),
    ("acrobat", r"acrobat|adobe pdf library|designer"),
    ("groff", r"groff"),
    # Ghostscript rewrote the file whatever made it first (a browser's or TeX's PDF, PostScript)
    ("ghostscript", r"ghostscript"),
    ("chromium", r"skia|chrom"),
    ("fop", r"\bfop\b|apache fop"),
    ("docbook", r"dblatex|docbook"),
    ("itext", r"itext"),
    ("tex", r"tex|dvipdf"),
    ("reportlab", r"reportlab"),
    ("cairo", r"cairo|inkscape"),
    ("amgraf", r"amgraf"),
)
UNTRUSTED_FAMILIES = {"ocr", "scanner", "image"}


@dataclass(frozen=True)
class CorpusPage:
    doc: str
    page: int  # 1-based
    kind: str
    lang: str
    family: str
    truth: str  # text_layer, transcription or none
    split: str
    path_in_cache: str

    @property
    def id(self) -> str:
        return f"{self.doc}-p{self.page:03d}"

    def pdf_path(self, cache: Path) -> Path:
        return cache / self.path_in_cache


def family(producer: str, creator: str) -> str:
    """The producer family a document's metadata names ("other" when none matches)."""
    for name, pattern in FAMILIES:
        if re.search(pattern, f"{producer} | {creator}", re.IGNORECASE):
            return name
    return "other"


def metadata(path: Path) -> tuple[str, str]:
    """(/Producer, /Creator) of a PDF, as PDFium reads its document information."""
    pdf = pdfium.PdfDocument(path)
    try:
        info = pdf.get_metadata_dict()
        return str(info.get("Producer", "")).strip(), str(info.get("Creator", "")).strip()
    finally:
        pdf.close()


def invisible_share(page: pdfium.PdfPage) -> float:
    """Share of the page's text objects drawn invisibly (render mode 3: an OCR layer's trick)."""
    modes = [
        raw.FPDFTextObj_GetTextRenderMode(obj.raw)
        for obj in page.get_objects(max_depth=4)
        if obj.type == raw.FPDF_PAGEOBJ_TEXT
    ]
    return sum(m == raw.FPDF_TEXTRENDERMODE_INVISIBLE for m in modes) / max(1, len(modes))


def text_layer_trusted(path: Path, producer_family: str) -> bool:
    """Whether a document's text layer is ground truth: not from a scanner, an image converter or an
    OCR tool, and no page drawing most of its text invisibly."""
    if producer_family in UNTRUSTED_FAMILIES:
        return False
    pdf = pdfium.PdfDocument(path)
    try:
        return all(invisible_share(pdf[i]) < 0.5 for i in range(min(len(pdf), 40)))
    finally:
        pdf.close()


def usable(text: str) -> bool:
    return sum(ch.isalnum() for ch in text) >= MIN_LETTERS and not broken_text_layer(text)


def draw_pages(doc_id: str, page_count: int, count: int, text_of: Callable[[int], str] | None) -> list[int]:
    """``count`` 1-based pages in the order drawn by seed SEED and the document's id; with a text
    layer to judge, only pages that are ``usable``."""
    return draw_in_order(doc_id, page_count, count, SEED, lambda page: text_of is None or usable(text_of(page)))


def assign_splits(documents: Iterable[tuple[str, str, int]]) -> dict[str, str]:
    """(document id, producer family, batch) -> split: per family and batch (see
    ``sampling.batch_group``), in an order shuffled by seed SEED, the documents take turns test,
    dev, test, ... so both splits see most producers."""
    return take_turns(((doc_id, batch_group(family, batch)) for doc_id, family, batch in documents), SEED)


# --- fetching


class FetchError(RuntimeError):
    """A source could not be fetched or did not hold the file the manifest names."""


def cache_path(doc: dict[str, object], sources: dict[str, dict[str, str]], cache: Path) -> Path:
    source = sources[str(doc["source"])]
    if source["registry"] == "debian":
        return document_path(source["package"], source["version"], str(doc["file"]), cache)
    if source["registry"] == "pypi":
        return cache / "corpus" / "pypi" / str(doc["source"]) / str(doc["file"])
    return cache / "corpus" / "made" / f"{doc['id']}.pdf"


def load_manifest(manifest: Path = MANIFEST) -> dict[str, object]:
    return dict(json.loads(manifest.read_text()))


def fetch_documents(manifest: dict[str, object], cache: Path = DEFAULT_CACHE, only: set[str] | None = None) -> None:
    """Make every (wanted) document of the manifest present in the cache."""
    sources = {s["id"]: s for s in manifest["sources"]}  # type: ignore[attr-defined]
    documents = [d for d in manifest["documents"] if only is None or d["id"] in only]  # type: ignore[attr-defined]
    debian = [
        RealPage(
            d["id"],
            sources[d["source"]]["package"],
            sources[d["source"]]["version"],
            d["file"],
            1,
            "",
            d["lang"],
            False,
        )
        for d in documents
        if sources[d["source"]]["registry"] == "debian"
    ]
    fetch_debian(debian, cache)
    (cache / "corpus").mkdir(parents=True, exist_ok=True)
    with (cache / "corpus" / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted: dict[str, list[str]] = defaultdict(list)
        for d in documents:
            source = sources[d["source"]]
            if cache_path(d, sources, cache).is_file():
                continue
            if source["registry"] == "pypi":
                wanted[d["source"]] += [d["file"], *d.get("tables", {}).values()]
            elif source["registry"] == "made":
                make(d["recipe"], cache_path(d, sources, cache))
        for source_id, files in sorted(wanted.items()):
            _fetch_sdist(sources[source_id], files, cache)


def _fetch_sdist(source: dict[str, str], files: list[str], cache: Path) -> None:
    store = cache / "corpus" / "sdist"
    store.mkdir(parents=True, exist_ok=True)
    archive = store / source["filename"]
    if not archive.is_file() or _sha256(archive) != source["sha256"]:
        with tempfile.TemporaryDirectory(prefix="ocrqueue-sdist-") as tmp:
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", tmp]
            result = subprocess.run(
                [*command, f"{source['package']}=={source['version']}"], capture_output=True, text=True
            )
            got = Path(tmp) / source["filename"]
            if result.returncode != 0 or not got.is_file():
                raise FetchError(
                    f"pip download {source['package']}=={source['version']} failed: {result.stderr[-400:]}"
                )
            shutil.move(got, archive)
    if _sha256(archive) != source["sha256"]:
        raise FetchError(f"{archive.name}: sha256 {_sha256(archive)} is not the pinned {source['sha256']}")
    target = cache / "corpus" / "pypi" / source["id"]
    _extract(archive, files, target)


def _extract(archive: Path, files: list[str], target: Path) -> None:
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for name in files:
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_bytes(z.read(name))
        return
    with tarfile.open(archive) as tar:
        for name in files:
            member = tar.extractfile(name)
            if member is None:
                raise FetchError(f"{archive.name} does not hold {name}")
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(member.read())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def table_truth(doc: dict[str, object], page: int, cache: Path) -> list[list[str]] | None:
    """The expected table of a page, from the CSV its source distribution ships (tabula-py's
    tests), or None."""
    tables = doc.get("tables") or {}
    name = tables.get(str(page)) if isinstance(tables, dict) else None
    if name is None:
        return None
    source = str(doc["source"])
    folder = cache / "corpus" / "pypi" / source
    with (folder / name).open(newline="") as f:
        return [row for row in csv.reader(f)]


def load_pages(manifest: dict[str, object], cache: Path = DEFAULT_CACHE) -> list[CorpusPage]:
    sources = {s["id"]: s for s in manifest["sources"]}  # type: ignore[attr-defined]
    pages = [
        CorpusPage(
            d["id"],
            n,
            d["kind"],
            d["lang"],
            d["family"],
            d["truth"],
            d["split"],
            str(cache_path(d, sources, cache).relative_to(cache)),
        )
        for d in manifest["documents"]  # type: ignore[attr-defined]
        for n in d["pages"]
    ]
    transcribed = transcription_files()
    return [replace(p, truth="transcription") if p.truth == "none" and p.id in transcribed else p for p in pages]


@functools.cache
def transcription_files(path: Path = TRANSCRIPTIONS) -> dict[str, Path]:
    """Page id -> the file of its hand-checked transcription. One transcription may serve several
    pages: the same sheet scanned again, turned or skewed, by another tool."""
    listed = json.loads(path.read_text())["transcriptions"]
    return {page: path.parent / "transcriptions" / t["file"] for t in listed for page in t["pages"]}


def transcription(page: CorpusPage) -> str:
    """The CER truth of a scanned page: what a reader sees on it, in reading order."""
    return transcription_files()[page.id].read_text()


def truth_text(page: CorpusPage, cache: Path) -> str:
    """The page's text layer as PDFium gives it: the CER truth of a page whose layer is trusted."""
    pdf = pdfium.PdfDocument(page.pdf_path(cache))
    try:
        return str(pdf[page.page - 1].get_textpage().get_text_range())
    finally:
        pdf.close()


def truth_orders(page: CorpusPage, cache: Path) -> list[str]:
    """The page's text layer in two orders made by readers that are not ours: PDFium's (close to the
    content stream's) and Poppler's (``pdftotext``, which finds columns). A producer is free to
    write text in any order, so the stream order of a three-column manual may run straight across
    its columns (Distiller's i1040nr); where the two disagree, neither alone is the reading order,
    and CER is taken against the nearer one (``text_cer_nearest``)."""
    poppler = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "-f", str(page.page), "-l", str(page.page), str(page.pdf_path(cache)), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [truth_text(page, cache), poppler]
