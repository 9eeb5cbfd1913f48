"""Real born-digital pages from Debian packages: fetch, ground truth, and the three ways to read them.

The manifest (bench/accuracy/pages.json) names a package, its version, a PDF inside it (gzipped
ones, ``.pdf.gz``, are unpacked too), the script and language it is written in, its split (``dev``
or ``test``, by document: tests/data/sampling.py) and pages. `fetch` runs `apt-get download
PACKAGE=VERSION` and unpacks only the PDFs it needs into a cache folder (kept between runs; the
.deb is deleted afterwards). The ground truth of a page is its own
text layer in the order it was typeset (PDFium's text order, which for TeX output is column by
column). Each page is read three ways: the PDF page itself (the text-layer path), rendered clean,
and rendered as a simulated scan (grey, tilted, blurred, noisy, JPEG; seeded per page).
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

MANIFEST = Path(__file__).resolve().parents[2] / "bench" / "accuracy" / "pages.json"
DEFAULT_CACHE = Path(os.environ.get("OCRQUEUE_ACCURACY_CACHE", Path.home() / ".cache" / "ocrqueue-accuracy"))
RENDER_DPI = 300
VARIANTS = ("text_layer", "clean", "scan")


class FetchError(RuntimeError):
    """A package could not be downloaded or did not hold the file the manifest names."""


@dataclass(frozen=True)
class RealPage:
    doc: str
    package: str
    version: str
    file: str
    page: int  # 1-based
    kind: str
    lang: str
    ci: bool
    script: str = "Latin"
    split: str = "dev"

    @property
    def id(self) -> str:
        return f"{self.doc}-p{self.page:03d}"

    def pdf_path(self, cache: Path) -> Path:
        return document_path(self.package, self.version, self.file, cache)


def document_path(package: str, version: str, file: str, cache: Path) -> Path:
    """Where a manifest document's PDF lies once fetched (a gzipped one, unpacked)."""
    return cache / f"{package}_{version}" / file.removesuffix(".gz")


def load_pages(manifest: Path = MANIFEST) -> list[RealPage]:
    data = json.loads(manifest.read_text())
    return [
        RealPage(
            d["id"],
            d["package"],
            d["version"],
            d["file"],
            p["page"],
            p["kind"],
            d["lang"],
            bool(p.get("ci", False)),
            d["script"],
            d["split"],
        )
        for d in data["documents"]
        for p in d["pages"]
    ]


def fetch(pages: Iterable[RealPage], cache: Path = DEFAULT_CACHE) -> None:
    """Make every page's PDF present in ``cache``; raises FetchError saying what failed. Processes
    that fetch at once (pytest-xdist workers) take turns on a lock file, so that none reads a PDF
    another is still writing and apt-get runs once per package."""
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted: dict[tuple[str, str], set[str]] = {}
        for page in pages:
            if not page.pdf_path(cache).is_file():
                wanted.setdefault((page.package, page.version), set()).add(page.file)
        for (package, version), files in sorted(wanted.items()):
            _fetch_package(package, version, sorted(files), cache / f"{package}_{version}")


def _fetch_package(package: str, version: str, files: list[str], target: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="ocrqueue-accuracy-") as tmp:
        deb = _download(package, version, Path(tmp))
        target.mkdir(parents=True, exist_ok=True)
        unpacked = Path(tmp) / "root"
        unpacked.mkdir()
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        result = subprocess.run(
            ["tar", "-x", "-C", str(unpacked), *(f"./{f}" for f in files)], stdin=tar.stdout, capture_output=True
        )
        if tar.stdout is not None:
            tar.stdout.close()
        tar.wait()
        if result.returncode != 0:
            raise FetchError(f"{package}={version} does not hold {files}: {result.stderr.decode(errors='replace')}")
        for name in files:
            path = target / name.removesuffix(".gz")
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".gz"):
                with gzip.open(unpacked / name) as packed, path.open("wb") as out:
                    shutil.copyfileobj(packed, out)
            else:
                shutil.move(unpacked / name, path)


def _download(package: str, version: str, folder: Path) -> Path:
    """apt-get download, once more after `apt-get update` when the package lists lack the version."""
    command = ["apt-get", "download", "-q", f"{package}={version}"]
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if result.returncode != 0 and os.geteuid() == 0:
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    debs = list(folder.glob("*.deb"))
    if result.returncode != 0 or not debs:
        raise FetchError(
            f"`apt-get download {package}={version}` failed (exit {result.returncode}): "
            f"{result.stderr.strip() or result.stdout.strip()}. The accuracy pages come from Debian's archive: "
            "run `apt-get update` (as root) and check that the Debian mirror is reachable."
        )
    return debs[0]


def printed_truth_path(pdf: Path, page: int) -> Path:
    """Where the text of page ``page`` of a PDF we printed ourselves is kept."""
    return pdf.with_suffix(f".p{page:03d}.txt")


def ground_truth(page: RealPage, cache: Path = DEFAULT_CACHE) -> str:
    """The page's own text layer in typeset order, as PDFium gives it; for a page we printed
    ourselves (tests/data/scriptpages.py), the text we printed, kept beside the PDF."""
    printed = printed_truth_path(page.pdf_path(cache), page.page)
    if printed.is_file():
        return printed.read_text()
    pdf = pdfium.PdfDocument(page.pdf_path(cache))
    try:
        textpage = pdf[page.page - 1].get_textpage()
        return str(textpage.get_text_range())
    finally:
        pdf.close()


def pdf_bytes(page: RealPage, cache: Path = DEFAULT_CACHE) -> bytes:
    """A one-page PDF of just this page (the text-layer variant)."""
    source = pdfium.PdfDocument(page.pdf_path(cache))
    single = pdfium.PdfDocument.new()
    try:
        single.import_pages(source, [page.page - 1])
        out = io.BytesIO()
        single.save(out)
        return out.getvalue()
    finally:
        single.close()
        source.close()


def render(page: RealPage, cache: Path = DEFAULT_CACHE, dpi: int = RENDER_DPI) -> Image.Image:
    pdf = pdfium.PdfDocument(page.pdf_path(cache))
    try:
        return pdf[page.page - 1].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        pdf.close()


def clean_png(image: Image.Image, dpi: int = RENDER_DPI) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(dpi, dpi))
    return out.getvalue()


def scan_jpeg(image: Image.Image, seed: str, dpi: int = RENDER_DPI) -> bytes:
    """A simulated office scan: grey, tilted by up to ±1.2°, slightly blurred, sensor noise, JPEG 70."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "little"))
    angle = float(rng.uniform(0.3, 1.2)) * (1 if rng.random() < 0.5 else -1)
    grey = image.convert("L").rotate(angle, resample=Image.Resampling.BILINEAR, expand=False, fillcolor=255)
    grey = grey.filter(ImageFilter.GaussianBlur(radius=float(rng.uniform(0.6, 1.0))))
    pixels = np.asarray(grey, dtype=np.float32)
    pixels = pixels * float(rng.uniform(0.88, 0.95)) + float(rng.uniform(8, 18))  # grey paper, lighter ink
    pixels += rng.normal(0.0, 6.0, pixels.shape)
    noisy = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    out = io.BytesIO()
    noisy.save(out, "JPEG", quality=70, dpi=(dpi, dpi))
    return out.getvalue()


def variant_bytes(page: RealPage, variant: str, cache: Path = DEFAULT_CACHE) -> bytes:
    if variant == "text_layer":
        return pdf_bytes(page, cache)
    image = render(page, cache)
    if variant == "clean":
        return clean_png(image)
    if variant == "scan":
        return scan_jpeg(image, page.id)
    raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
