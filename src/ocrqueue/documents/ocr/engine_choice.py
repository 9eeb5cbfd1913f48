"""Which engine and languages read a page, from the options and the scripts found on it.

``engine="auto"`` picks per script by the real-page evaluation (bench/accuracy.py; the tables are
in docs/documents.md): RapidOCR's PP-OCR models for pages with Chinese, which they read far
better (and the Latin runs in them too); Tesseract for the rest, Latin pages with its model for
the whole Latin script (``LATIN_MODEL``). RapidOCR reads English better still (CER 0.017 against
0.024 on clean renders), but at three to five times the CPU a page, and with it reading Latin
pages OCRmyPDF's poster took 997 MB against the 800 MB bound, and generated pages lost a figure
crop, a display formula and brochure lines (docs/documents.md). Without the rapidocr package,
Tesseract reads everything. ``languages=("auto",)`` reads a page with the languages of the
scripts found on it; a page with Chinese is always read with English as well, since Chinese
text carries Latin words, commands and numbers. Explicit values always win.
"""

from __future__ import annotations

import importlib.util
from typing import cast

from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.scripts import languages_for, scripts_of_languages

ENGINE_FOR_SCRIPT: dict[str, str] = {"Han": "rapidocr"}
FALLBACK_ENGINE = "tesseract"
FALLBACK_LANGUAGES = ("eng",)
# Tesseract's model for the whole Latin script (Debian's tesseract-ocr-script-latn): it reads the
# accents of every Latin-script language ("Brücke", "niño"; ``eng`` read "Briicke", "nifio"), and
# English better than ``eng`` too (bench/accuracy.py: CER 0.024 against 0.027 clean).
LATIN_MODEL = "Latin"


def tesseract() -> TesseractEngine:
    return cast(TesseractEngine, get_engine("tesseract"))


def choose(options: ProcessOptions, scripts: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """(engine name, languages) for a page on which ``scripts`` were found (most letters first)."""
    if options.languages == (AUTO,):
        if "Han" in scripts and "Latin" not in scripts:
            scripts = (*scripts, "Latin")
        installed = tesseract().installed
        languages = languages_for(scripts, installed) or FALLBACK_LANGUAGES
        if "Han" not in scripts and LATIN_MODEL in installed:
            languages = tuple(LATIN_MODEL if lang == "eng" else lang for lang in languages)
    else:
        languages = options.languages
    if options.engine != AUTO:
        return options.engine, languages
    wanted = scripts if options.languages == (AUTO,) else scripts_of_languages(languages)
    for script in wanted:
        engine = ENGINE_FOR_SCRIPT.get(script)
        if engine is not None and _installed(engine):
            return engine, languages
    return FALLBACK_ENGINE, languages


def _installed(engine: str) -> bool:
    """An optional engine package that is missing is skipped, not an error (``rapidocr`` extra)."""
    return engine != "rapidocr" or importlib.util.find_spec("rapidocr") is not None
