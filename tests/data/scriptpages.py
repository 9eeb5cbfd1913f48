"""Pages of the per-script evaluation: translated GNOME help and messages, printed to PDF by Chromium.

bench/accuracy/scripts.json pins the Debian packages (``apt-get download PACKAGE=VERSION``, unpacked
whole into the accuracy cache beside the PDF documents of pages.json) and the font package the
pages are set in, and lists the documents tests/data/script_sources.py drew, with their split.
``build`` puts each document's blocks, in their drawn order, on pages (script_sources.paginate:
a block is never cut across pages), sets them on A4 (20 mm margins, Noto 11 pt) and prints them with Chromium into
``<cache>/<package>_<version>/printed/<document>.pdf``; the ground truth of page N is the text of
the blocks on it, in logical order, written beside it as ``<document>.pNNN.txt`` (so right-to-left
and Indic pages are judged against the text as typed, not as a PDF extractor orders it).
``load_pages`` gives them as tests/data/realpages.py's RealPage, read like any other real page.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from mallard import Block
from playwright.sync_api import Page, sync_playwright
from realpages import DEFAULT_CACHE, RealPage, _download, printed_truth_path
from script_sources import SourceDocument, document_blocks, paginate

SCRIPTS_MANIFEST = Path(__file__).resolve().parents[2] / "bench" / "accuracy" / "scripts.json"
CHROMIUM = os.environ.get("OCRQUEUE_TEST_CHROMIUM", "/usr/bin/chromium")
# Fonts besides the pinned Noto package: Noto CJK and DejaVu, which scripts/system-deps.sh installs.
SYSTEM_FONT_DIRS = ("/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/dejavu")
RIGHT_TO_LEFT = {"ar", "fa", "he", "ur", "yi", "ug", "ps"}

_CSS = """
@page { size: A4; margin: 20mm; }
html, body { margin: 0; padding: 0; }
body { font-family: "Noto Sans", sans-serif; font-size: 11pt; line-height: 1.45; color: #000; }
.page { width: 170mm; break-after: page; }
.page:last-child { break-after: auto; }
.block { margin: 0; padding: 0 0 2.2mm 0; white-space: normal; overflow-wrap: anywhere; }
h2.block { font-size: 14pt; font-weight: bold; padding-top: 1.5mm; }
pre.block { font-family: "DejaVu Sans Mono", monospace; font-size: 9.5pt; white-space: pre-wrap; }
"""


@dataclass(frozen=True)
class ScriptDocument:
    source: SourceDocument
    split: str
    pages: int

    @property
    def file(self) -> str:
        return f"printed/{self.source.id}.pdf"


def load_documents(manifest: Path = SCRIPTS_MANIFEST) -> list[ScriptDocument]:
    return [
        ScriptDocument(
            SourceDocument(d["id"], d["package"], d["version"], d["kind"], d["name"], d["lang"], d["script"]),
            d["split"],
            d["pages"],
        )
        for d in json.loads(manifest.read_text())["documents"]
    ]


def load_pages(manifest: Path = SCRIPTS_MANIFEST) -> list[RealPage]:
    """Every page of the drawn documents, as real pages (page N of the printed PDF; its kind is the
    document's: ``help`` or ``messages``)."""
    return [
        RealPage(
            d.source.id,
            d.source.package,
            d.source.version,
            d.file,
            n,
            d.source.kind,
            d.source.lang,
            False,
            d.source.script,
            d.split,
        )
        for d in load_documents(manifest)
        for n in range(1, d.pages + 1)
    ]


def package_root(package: str, version: str, cache: Path) -> Path:
    return cache / f"{package}_{version}"


def unpack_packages(packages: dict[str, str], cache: Path) -> dict[str, Path]:
    """Each package, fetched and unpacked whole once into the cache: package -> its root."""
    roots: dict[str, Path] = {}
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for package, version in sorted(packages.items()):
            root = package_root(package, version, cache)
            done = root / ".unpacked"
            if not done.is_file():
                with tempfile.TemporaryDirectory(prefix="ocrqueue-scripts-") as tmp:
                    deb = _download(package, version, Path(tmp))
                    root.mkdir(parents=True, exist_ok=True)
                    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
                done.write_text("")
            roots[package] = root
    return roots


def _fontconfig(font_roots: Iterable[Path], cache: Path) -> Path:
    """A fontconfig file naming only the pinned fonts (and the system's CJK and DejaVu ones)."""
    dirs = [str(r / "usr/share/fonts") for r in font_roots] + [d for d in SYSTEM_FONT_DIRS if Path(d).is_dir()]
    conf = cache / "scripts-fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        + "".join(f"  <dir>{html.escape(d)}</dir>\n" for d in dirs)
        + f"  <cachedir>{html.escape(str(cache / 'fontconfig'))}</cachedir>\n</fontconfig>\n"
    )
    return conf


def _block_html(block: Block) -> str:
    tag = {"h": "h2", "p": "p", "pre": "pre"}[block.kind]
    return f'<{tag} class="block">{html.escape(block.text)}</{tag}>'


def _document_html(lang: str, body: str) -> str:
    direction = "rtl" if lang in RIGHT_TO_LEFT else "ltr"
    return (
        f'<!DOCTYPE html><html lang="{lang}" dir="{direction}"><head><meta charset="utf-8">'
        f"<style>{_CSS}</style></head><body>{body}</body></html>"
    )


def page_texts(doc: ScriptDocument, root: Path) -> list[list[Block]]:
    """The blocks on each of the document's pages (script_sources.paginate)."""
    pages = paginate(document_blocks(doc.source, root), doc.pages)
    if len(pages) != doc.pages:
        raise RuntimeError(f"{doc.source.id}: its text fills {len(pages)} pages, the manifest says {doc.pages}")
    return pages


def _print(browser_page: Page, doc: ScriptDocument, pages: list[list[Block]], target: Path) -> None:
    """Print the pages, each on its own A4 page; fails when a page did not fit on one."""
    body = "".join(f'<div class="page">{"".join(_block_html(b) for b in blocks)}</div>' for blocks in pages)
    browser_page.set_content(_document_html(doc.source.lang, body))
    browser_page.pdf(path=str(target), prefer_css_page_size=True)
    pdf = pdfium.PdfDocument(target)
    try:
        printed = len(pdf)
    finally:
        pdf.close()
    if printed != len(pages):
        target.unlink()
        raise RuntimeError(f"{doc.source.id}: {len(pages)} pages of text took {printed} printed pages")


def build(documents: list[ScriptDocument], cache: Path = DEFAULT_CACHE, manifest: Path = SCRIPTS_MANIFEST) -> None:
    """Print every document that is not in the cache yet, with its ground truth per page."""
    data = json.loads(manifest.read_text())
    missing = [d for d in documents if not (package_root(d.source.package, d.source.version, cache) / d.file).is_file()]
    if not missing:
        return
    roots = unpack_packages({d.source.package: d.source.version for d in missing}, cache)
    fonts = unpack_packages(data["fonts"], cache)
    conf = _fontconfig(fonts.values(), cache)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox"],
            env={**os.environ, "FONTCONFIG_FILE": str(conf)},
        )
        try:
            page = browser.new_page()
            for doc in missing:
                root = roots[doc.source.package]
                target = root / doc.file
                pages = page_texts(doc, root)
                target.parent.mkdir(parents=True, exist_ok=True)
                for n, blocks in enumerate(pages, start=1):
                    printed_truth_path(target, n).write_text("\n".join(b.text for b in blocks))
                _print(page, doc, pages, target)  # last: a printed PDF means its truths are there
        finally:
            browser.close()
