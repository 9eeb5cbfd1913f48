"""Which engine and languages read a page, and which engine takes the first look, by capability.

``engine="auto"`` picks per script by the real-page evaluation (bench/accuracy.py; the tables are
in docs/documents.md), written down as data in ``MEASURED_RANKING``: for a script listed there, the
engine ranked first among those installed that read it; a page holding no listed script goes to the
first installed engine of ``OTHER_PAGES``. RapidOCR's PP-OCR models rank first for pages with
Chinese, which they read far better (and the Latin runs in them too). Tesseract reads the rest,
Latin pages with ``eng`` and, when that reading shows another language, again with its model for
the whole Latin script (``LATIN_MODEL``, ocr/accents.py): RapidOCR reads English
better still (CER 0.017 against 0.024 on clean renders), but at three to five times the CPU a page,
and with it reading Latin pages OCRmyPDF's poster took 997 MB against the 800 MB bound, and generated
pages lost a figure crop, a display formula and brochure lines (docs/documents.md). Without the
rapidocr package, Tesseract reads everything. ``languages=("auto",)`` reads a page with the
languages of the scripts found on it that its engine can be asked for; a page with Chinese is
always read with English as well, since Chinese text carries Latin words, commands and numbers.
Explicit values always win.

The first look (orientation and script, ocr/detect.py) is taken by the engine chosen by name if it
detects orientation, else by the first engine of the registry that does (Tesseract's OSD): pages are
always turned upright before their layout is analysed, whatever engine then reads them, so with
``engine=vlm`` orientation detection is the one capability that still asks for Tesseract.
"""

from __future__ import annotations

from ocrqueue.documents.engines import (
    EngineCapabilities,
    OrientationDetector,
    engine_capabilities,
    first_engine_with,
    orientation_detector,
)
from ocrqueue.documents.model import NO_MODEL
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.scripts import SCRIPT_LANGUAGES, SCRIPT_MODELS, languages_for, scripts_of_languages

# bench/accuracy.py's and bench/script_pages.py's ranking per script, best first (docs/documents.md,
# "Scripts, languages and rotation"). Every other script with a Tesseract model is read by
# Tesseract with that model beside ``LATIN_MODEL`` (``OTHER_PAGES``).
MEASURED_RANKING: dict[str, tuple[str, ...]] = {
    "Han": ("rapidocr", "tesseract"),
    "Japanese": ("rapidocr", "tesseract"),
}
# Pages set in vertical columns rank otherwise: RapidOCR's PP-OCR models read vertical Chinese
# (CER 0.06-0.09 on Chromium-printed pages, where Tesseract without a HanS_vert model reads 0.98),
# but vertical Japanese poorly (0.25-0.92), which Tesseract reads with Japanese_vert beside Japanese
# (0.02-0.08; tests/documents/test_vertical_text.py). The first look cannot tell vertical Japanese
# from Chinese (OSD says Han): the kana of a first reading do (ocr/page.py, ``recheck_script``).
VERTICAL_RANKING: dict[str, tuple[str, ...]] = {"Japanese": ("tesseract", "rapidocr")}
OTHER_PAGES: tuple[str, ...] = ("tesseract",)
FALLBACK_LANGUAGES = ("eng",)
# Tesseract's model for the whole Latin script (Debian's tesseract-ocr-script-latn): it reads the
# accents of every Latin-script language ("Brücke", "niño"; ``eng`` read "Briicke", "nifio"), and
# English a little better than ``eng`` (bench/accuracy.py: CER 0.024 against 0.027 clean), but at
# about 1.5 times its cost a page: English pages keep ``eng`` (ocr/accents.py).
LATIN_MODEL = "Latin"
# Scripts whose pages are read with ``eng`` beside their script model, not the Latin model: beside
# it, many of their own words came back as Latin capitals ("האם" as "DXN", "پایانهٔ" as "LL").
# bench/accuracy.py --corpus scripts --split dev --variants clean, mean CER: Hebrew 0.045 with
# Latin, 0.034 with eng, 0.021 alone; Arabic and Persian 0.251, 0.215, 0.204. The script model
# alone reads Latin words poorly ("gedit" as "ged", "Python" as Hebrew letters): on the
# Chromium-printed test pages full of Latin words and numbers (tests/data/rtl_pages.py) it was
# worse than either (Arabic 0.157 alone, 0.144 with eng, 0.115 with Latin; Hebrew 0.065, 0.054,
# 0.054), so eng is kept beside it.
WITH_ENGLISH = frozenset({"Arabic", "Hebrew"})
# Script models whose pages, once the first look names their script, are read with their
# language's model and English instead of the script model and Latin (``language_models``). The
# Thai script model reads the loopless Thai of today's print (Noto Sans Thai, as Chromium prints
# it) poorly: ง as จ, ว or บ, ้ as ่ (about 130 and 25 of the 559 edits on the Thai dev pages of
# bench/accuracy.py --corpus scripts), and beside Latin, Thai words came back as Latin junk ("และ"
# as "ua:", "กับ" as "ñu"). Thai dev, 4 pages at 300 dpi, mean CER clean / scan: Thai+Latin
# 0.0596 / 0.0450, tha+Latin 0.0385 / 0.0294, tha+eng 0.0311 / 0.0268 (at 200 dpi, as Tesseract
# now reads Thai: tha+Latin 0.0285 / 0.0190, tha+eng 0.0220 / 0.0151). Thai is the only language
# of its script Tesseract has a model for.
LANGUAGE_MODELS: dict[str, tuple[str, ...]] = {"Thai": ("tha", "eng")}
# The mean word confidence under which a reading with ``LANGUAGE_MODELS`` is not believed and the
# page is read with the script model as before: the Thai language's model reads anything as Thai,
# confidently. A Hebrew dev page OSD calls Thai came back as Thai letters at 0.755 (no line under
# ``unseen_scripts.POOR_LINE_CONFIDENCE``, so nothing would read it again as Hebrew); the Thai dev
# pages, clean and scanned, read 0.933-0.940.
LANGUAGE_MODEL_SURE = 0.85
# An engine that is asked for no languages (it reads what it sees) records those of the scripts found.
EVERY_LANGUAGE = frozenset(SCRIPT_LANGUAGES.values())


def choose(options: ProcessOptions, scripts: tuple[str, ...], vertical: bool = False) -> tuple[str, tuple[str, ...]]:
    """(engine name, languages) for a page on which ``scripts`` were found (most letters first),
    ``vertical`` when it is set in vertical columns."""
    auto_languages = options.languages == (AUTO,)
    if options.engine != AUTO:
        engine = options.engine
    else:
        ranking = {**MEASURED_RANKING, **VERTICAL_RANKING} if vertical else MEASURED_RANKING
        engine = ranked_engine(scripts if auto_languages else scripts_of_languages(options.languages), ranking)
    if not auto_languages:
        return engine, options.languages
    capabilities = engine_capabilities(engine)
    return engine, languages_to_ask(scripts, capabilities.languages if capabilities else frozenset())


def ranked_engine(scripts: tuple[str, ...], ranking: dict[str, tuple[str, ...]] = MEASURED_RANKING) -> str:
    """The first script with a measured ranking decides; its best installed engine that reads it."""
    for script in scripts:
        for name in ranking.get(script, ()):
            capabilities = engine_capabilities(name)
            if capabilities is not None and script in capabilities.scripts:
                return name
    return next((name for name in OTHER_PAGES if engine_capabilities(name) is not None), OTHER_PAGES[0])


def languages_to_ask(scripts: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...]:
    """The languages of ``scripts`` among those an engine ``offered``, with the Latin script beside
    them (manuals in every script quote commands and English). Latin text is read with English
    first (``with_latin_model`` gives the second reading's languages when that one shows accents,
    ocr/accents.py); beside another script, with the Latin model, which lets fewer of that script's
    words be read as Latin ones (a Korean page: CER 0.046 against 0.110 with ``eng``; a Hindi one
    0.000 against 0.033). A script is read with its script model (``Cyrillic``) where the engine
    has it, else its language model (``rus``); a script with neither is left out
    (``missing_models`` names its package). A page led by a script of ``WITH_ENGLISH`` has ``eng``
    beside its model instead of the Latin model."""
    if "Latin" not in scripts:
        scripts = (*scripts, "Latin")
    known = offered or EVERY_LANGUAGE
    if "Han" in scripts:
        return languages_for(scripts, known) or FALLBACK_LANGUAGES
    english_first = scripts[0] == "Latin" or scripts[0] in WITH_ENGLISH
    latin = (SCRIPT_LANGUAGES["Latin"], LATIN_MODEL) if english_first else (LATIN_MODEL, SCRIPT_LANGUAGES["Latin"])
    wanted = (_model_for(script, known, latin) for script in scripts)
    return tuple(dict.fromkeys(lang for lang in wanted if lang is not None)) or FALLBACK_LANGUAGES


def _model_for(script: str, known: frozenset[str], latin: tuple[str, ...] = (LATIN_MODEL,)) -> str | None:
    """The model that reads ``script`` among ``known``: Latin text the first of ``latin`` known,
    any other script its script model, else its language model."""
    if script == "Latin":
        return next((m for m in latin if m in known), None)
    model = SCRIPT_MODELS[script].model if script in SCRIPT_MODELS else None
    if model in known:
        return model
    language = SCRIPT_LANGUAGES.get(script)
    return language if language in known else None


def missing_models(options: ProcessOptions, engine: str, scripts: tuple[str, ...]) -> tuple[str, ...]:
    """Warnings for the ``scripts`` found on a page that ``engine`` has no model installed for,
    each naming the Debian package that would read it; none when languages were named, or for an
    engine asked for no languages (a vision model reads what it sees)."""
    capabilities = engine_capabilities(engine)
    if options.languages != (AUTO,) or capabilities is None or not capabilities.languages:
        return ()
    return tuple(
        f"{script} text: {NO_MODEL}; apt-get install {SCRIPT_MODELS[script].package}"
        for script in scripts
        if script in SCRIPT_MODELS and _model_for(script, capabilities.languages) is None
    )


def with_latin_model(languages: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...] | None:
    """``languages`` with the Latin script model in place of English, or None when that changes
    nothing: no English asked for, the model not offered, or Chinese beside it (RapidOCR and
    chi_sim+eng read the Latin words of a Chinese page; the Latin model was not measured there)."""
    if "eng" not in languages or LATIN_MODEL not in offered or SCRIPT_LANGUAGES["Han"] in languages:
        return None
    return tuple(dict.fromkeys(LATIN_MODEL if lang == "eng" else lang for lang in languages))


def first_look_engine(options: ProcessOptions) -> OrientationDetector | None:
    """The engine that tells which way up a page is and its script; None when no engine can."""
    name = first_engine_with(_detects, prefer=None if options.engine == AUTO else options.engine)
    return None if name is None else orientation_detector(name)


def _detects(capabilities: EngineCapabilities) -> bool:
    return capabilities.detects_orientation


def language_models(languages: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...] | None:
    """What to read a page with instead of ``languages`` when they are led by a script model of
    ``LANGUAGE_MODELS`` whose language models are all ``offered``: those, and the other scripts'
    models but Latin's (English is among them). None otherwise."""
    wanted = LANGUAGE_MODELS.get(languages[0]) if languages else None
    if wanted is None or not set(wanted) <= offered:
        return None
    rest = (lang for lang in languages[1:] if lang not in (LATIN_MODEL, SCRIPT_LANGUAGES["Latin"]))
    return tuple(dict.fromkeys((*wanted, *rest)))


def by_language_models(languages: tuple[str, ...]) -> bool:
    """Whether ``languages`` are those ``language_models`` gives instead of a script model."""
    return any(languages[: len(wanted)] == wanted for wanted in LANGUAGE_MODELS.values())
