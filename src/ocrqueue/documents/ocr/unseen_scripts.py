"""A look for the scripts that Tesseract's script detection cannot see, or names wrongly.

OSD (osd.traineddata, the first look: ocr/detect.py) knows the letters of sixteen scripts only
(its unicharset: Latin, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Bengali, Tamil, Telugu,
Kannada, Malayalam, Thai, Hangul, Han, Hiragana, Katakana). A page in any other script (Armenian,
Georgian, Gujarati, Gurmukhi, Khmer, Sinhala, …: ``UNSEEN``) gets the name of a script it knows:
on the dev split of bench/accuracy/scripts.json every Armenian, Gujarati and Khmer page was called
Latin and every Gurmukhi one Devanagari, and read with that model as garbage (CER 0.74 to 0.99),
the Gurmukhi ones with no warning (mean word confidence 0.56 to 0.59). Such a reading has most of
its lines poor (``POOR_SHARE``: 50 to 100 % of them under 0.6 there, against none on the dev pages
of the scripts OSD knows read with their models, and at most 23 % on the Latin pages of bench/accuracy/pages.json).

Then a few of its poor lines (``PROBE_LINES``) are read by the engine that took the first look
with the model of each unseen script installed; the script whose model reads them with a mean
word confidence of ``SURE`` or more, the best, is the page's (``unseen_script``), and the page is
read again with it. A page read poorly whose poor lines read poorly alone too is doubted
(``unseen_warning``); when most of its text was read poorly (``garbled``) and the models of unseen
scripts are missing, the warning names them and the one command that installs them all: which of
them it is cannot be told without them. A page whose other words read well is in the script it
was read for, and its warning names none (an English manual's lines of Arabic examples).

When no unseen script's model reads them well, the same lines are read with the model of each
script OSD knows that the page was not read for (``SEEN``): OSD names those wrongly too, upright
and on every square of a page (Hebrew set in Noto Sans Hebrew was Thai to it), and a reading
with the wrong model is poor in the same way. The pages that come here are those read poorly
only: a page read well costs nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from ocrqueue.documents.engines import OcrEngine, RecognitionRequest
from ocrqueue.documents.model import LOW_CONFIDENCE_READING, NO_MODEL, Block, Line
from ocrqueue.documents.ocr.crops import padded_crop
from ocrqueue.documents.ocr.engine_choice import first_look_engine
from ocrqueue.documents.ocr.script_recheck import SAME_READING
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.scripts import SCRIPT_MODELS, scripts_of_languages

# The scripts of osd.traineddata's unicharset (Vietnamese is Latin to it; Japanese its kana and Han).
OSD_SCRIPTS = frozenset(
    {
        "Latin",
        "Vietnamese",
        "Cyrillic",
        "Greek",
        "Hebrew",
        "Arabic",
        "Devanagari",
        "Bengali",
        "Tamil",
        "Telugu",
        "Kannada",
        "Malayalam",
        "Thai",
        "Hangul",
        "Japanese",
        "Han",
    }
)
UNSEEN: tuple[str, ...] = tuple(s for s in SCRIPT_MODELS if s not in OSD_SCRIPTS)
# Scripts OSD knows whose models read a poor page's lines after the unseen ones' (``unseen_script``):
# OSD can name a script it knows wrongly, with a script confidence near nothing. Hebrew set in Noto
# Sans Hebrew (Chromium's Hebrew font on Debian) is Thai to it on every square of a page (0.3-3,
# against 40-80 for Noto Serif Hebrew and 6-9 for DejaVu Sans), or Katakana or Devanagari at other
# sizes: its sans letters match none of OSD's Hebrew prototypes. Not Latin and Vietnamese (a wrong
# model reads any script as Latin letters, and every page is read with Latin beside its script);
# Han through the Japanese model (it reads kanji and kana; one reading covers both: ``SAME_READING``).
SEEN: tuple[str, ...] = tuple(s for s in SCRIPT_MODELS if s in OSD_SCRIPTS and s not in ("Latin", "Vietnamese"))
# The mean word confidence a model of ``SEEN`` must read those lines with (``SURE`` is the unseen
# ones'). The Hebrew model read the poor lines of Hebrew pages OSD called Thai at 0.89-0.92; the
# Thai model reads what it does not know with confidence, and all Thai letters: lines of the dev
# Khmer pages (no model by default) at 0.72-0.76, of an Armenian page turned upside down by OSD with
# the Armenian model missing 0.75. At 0.7 those pages were read again as Thai (Khmer: CER 0.93-0.99
# either way; the Armenian page at 0.76 a word) and lost the warning that named their script's
# package. Every other wrong model read under 0.55 (dev Gujarati and Gurmukhi, a made Georgian page).
SEEN_SURE = 0.85
POOR_LINE_CONFIDENCE = 0.6
POOR_SHARE = 0.4
MIN_LINES = 3
# The share of a page's text (letters of its words) read under ``POOR_LINE_CONFIDENCE`` from which
# its poor reading is taken for a script without a model (``garbled``), not for lines of something
# else on a page read well. Dev, clean and scan: the Gujarati, Gurmukhi and Khmer pages of
# bench/accuracy/scripts.json (no model by default; the Gurmukhi ones read with the Devanagari
# model) 0.54-0.93; arabluatex's English pages, whose lines of Arabic examples and transliteration
# are the poor ones (15-49 % of lines), 0.24-0.35.
GARBLED_SHARE = 0.45
PROBE_LINES = 3
SURE = 0.7
MARGIN = 0.1  # over the confidence the page's own languages read the same lines with
ALL_SCRIPTS_COMMAND = "scripts/system-deps.sh all-scripts"


def read_poorly(blocks: Sequence[Block]) -> bool:
    """Whether ``POOR_SHARE`` or more of the page's lines (``MIN_LINES`` at least) were read
    with a confidence under ``POOR_LINE_CONFIDENCE``."""
    lines = _lines(blocks)
    poor = _poor(lines)
    return len(poor) >= MIN_LINES and len(poor) >= POOR_SHARE * len(lines)


# The page's poor lines read alone with its languages, by those lines and languages: the probe
# (``unseen_script``) and the warning (``unseen_warning``) ask for the same reading of one page.
AloneReadings = dict[tuple[tuple[Line, ...], tuple[str, ...]], tuple[list[Image.Image], float]]


@dataclass(frozen=True)
class Unseen:
    script: str  # one OSD cannot see, or one it knows (``SEEN``) and named wrongly
    flipped: bool  # its lines read well only turned by 180 degrees: the first look turned the page wrong


def unseen_script(
    image: Image.Image,
    scale: float,
    blocks: Sequence[Block],
    options: ProcessOptions,
    scripts: tuple[str, ...],
    languages: tuple[str, ...],
    read_alone: AloneReadings | None = None,
) -> Unseen | None:
    """The script a page read poorly is in, when its model is installed and reads a few of the
    poor lines well, and better than the page's own ``languages`` read them: a script OSD cannot
    see (``UNSEEN``), as the lines are or turned by 180 degrees (OSD turns pages of scripts it
    does not know as it turns the one it takes them for: dev Armenian pages, all three, and a
    Khmer page were turned upside down), else one it knows but named wrongly (``SEEN``, upright
    only: OSD called a Hebrew page Thai at the right turn). None otherwise, and when languages
    were named. ``image`` is the page as read (upright and straight), ``scale`` its pixels per
    point; ``read_alone`` keeps the lines' reading alone for ``unseen_warning`` on the same page."""
    engine = _probing_engine(blocks, options, scripts)
    if engine is None:
        return None
    installed = engine.capabilities.languages
    unseen = [s for s in UNSEEN if SCRIPT_MODELS[s].model in installed]
    seen = _seen_candidates(installed, languages)
    if not unseen and not seen:
        return None
    crops, own = _read_alone(engine, image, scale, blocks, languages, read_alone)
    if own >= POOR_LINE_CONFIDENCE:
        # Read alone, the lines are not poor (a page of Armenian's lines: 0.35 with eng): the page
        # is in its own script, and loading the other scripts' models (15 MB more for the poster,
        # 611 MB in one CI run against its 600 MB bound) would only be spent.
        return None
    found = _best(engine, crops, scale, unseen, (False, True), max(SURE, own + MARGIN))
    return found or _best(engine, crops, scale, seen, (False,), max(SEEN_SURE, own + MARGIN))


def _best(
    engine: OcrEngine,
    crops: Sequence[Image.Image],
    scale: float,
    scripts: Sequence[str],
    flips: tuple[bool, ...],
    bar: float,
) -> Unseen | None:
    """The script whose model reads ``crops`` (turned by 180 degrees too when ``flips`` says so)
    with the highest mean word confidence, ``bar`` or more; None when none does."""
    best, best_confidence = None, bar
    for script in scripts:
        request = RecognitionRequest((SCRIPT_MODELS[script].model,), "text", round(scale * 72))
        for flipped in flips:
            confidence = _confidence(engine, [c.rotate(180) if flipped else c for c in crops], request)
            if confidence >= best_confidence:
                best, best_confidence = Unseen(script, flipped), confidence
    return best


def _seen_candidates(installed: frozenset[str], languages: tuple[str, ...]) -> list[str]:
    """The scripts of ``SEEN`` whose models are installed, other than those the page was read for
    (``languages``), and one of those one reading covers (Japanese and Han: Japanese, first in
    the table; its model is the lighter to load, 38 MB against HanS's 48)."""
    read = {SAME_READING.get(s, s) for s in scripts_of_languages(languages)}
    found: dict[str, str] = {}
    for script in SEEN:
        same = SAME_READING.get(script, script)
        if SCRIPT_MODELS[script].model in installed and same not in read and same not in found:
            found[same] = script
    return list(found.values())


def _probing_engine(blocks: Sequence[Block], options: ProcessOptions, scripts: tuple[str, ...]) -> OcrEngine | None:
    """The engine that took the first look, when a page read poorly may be in an unseen script:
    languages auto, no unseen script named already, most lines poor (``read_poorly``)."""
    if options.languages != (AUTO,) or any(s in UNSEEN for s in scripts) or not read_poorly(blocks):
        return None
    return first_look_engine(options)


def _read_alone(
    engine: OcrEngine,
    image: Image.Image,
    scale: float,
    blocks: Sequence[Block],
    languages: tuple[str, ...],
    done: AloneReadings | None,
) -> tuple[list[Image.Image], float]:
    """A few of the page's poor lines (``PROBE_LINES``, spread over it) cropped, and the mean
    confidence the page's own ``languages`` read them with on their own: the bar a model of an
    unseen script must clear. OCRmyPDF's poster, display type read poorly as a page, reads its
    lines alone with eng at 0.69, and the Armenian model at 0.72 made it a page of Armenian,
    read twice (850 MB against 600). Taken from ``done`` when these lines were read so already."""
    poor = _poor(_lines(blocks))
    key = (tuple(poor), languages)
    if done is not None and key in done:
        return done[key]
    step = len(poor) / min(len(poor), PROBE_LINES)
    crops = []
    for line in (poor[int(i * step)] for i in range(min(len(poor), PROBE_LINES))):
        box = line.bbox.scaled(scale)
        crops.append(padded_crop(image, (int(box.x0), int(box.y0), int(box.x1) + 1, int(box.y1) + 1))[0])
    reading = crops, _confidence(engine, crops, RecognitionRequest(languages, "text", round(scale * 72)))
    if done is not None:
        done[key] = reading
    return reading


def _confidence(engine: OcrEngine, crops: Sequence[Image.Image], request: RecognitionRequest) -> float:
    """The mean confidence of the words ``engine`` reads in ``crops`` (0 when it reads none)."""
    found = [w.confidence for c in crops for ln in engine.recognize(c, request).lines for w in ln.words]
    confidences = [c for c in found if c is not None]
    return sum(confidences) / len(confidences) if confidences else 0.0


def unseen_warning(
    image: Image.Image,
    scale: float,
    blocks: Sequence[Block],
    options: ProcessOptions,
    scripts: tuple[str, ...],
    languages: tuple[str, ...],
    read_alone: AloneReadings | None = None,
) -> str | None:
    """For a page read poorly in a script OSD can see, with languages auto, whose poor lines read
    poorly alone too with its own ``languages``: a warning that those lines are likely wrong. It
    names the unseen scripts whose models are missing (the page may be in one of them) only when
    most of the page's text was read poorly (``garbled``): a page whose other words read well is
    in the script it was read for, and its poor lines hold something else (an English manual's
    lines of Arabic examples and their transliteration). None when the poor lines read well alone
    (the poster's display type: it is in its own script, and its doubt is the plain low-confidence
    warning's)."""
    engine = _probing_engine(blocks, options, scripts)
    if engine is None:
        return None
    if _read_alone(engine, image, scale, blocks, languages, read_alone)[1] >= POOR_LINE_CONFIDENCE:
        return None
    lines = _lines(blocks)
    poor = f"{LOW_CONFIDENCE_READING} ({len(_poor(lines))} of {len(lines)} lines)"
    missing = [s for s in UNSEEN if SCRIPT_MODELS[s].model not in engine.capabilities.languages]
    if not missing or not garbled(blocks):
        return f"{poor}: the text of those lines is likely wrong"
    named = ", ".join(f"{s} ({SCRIPT_MODELS[s].package})" for s in missing)
    return (
        f"{poor}: the page may be in a script that script detection cannot tell from "
        f"{scripts[0] if scripts else 'Latin'} and with {NO_MODEL}: {named}; {ALL_SCRIPTS_COMMAND} installs them all"
    )


def garbled(blocks: Sequence[Block]) -> bool:
    """Whether ``GARBLED_SHARE`` or more of the page's text (the letters of its words) was read
    with a word confidence under ``POOR_LINE_CONFIDENCE``."""
    words = [w for ln in _lines(blocks) for w in ln.words if w.confidence is not None]
    poor = sum(len(w.text) for w in words if w.confidence is not None and w.confidence < POOR_LINE_CONFIDENCE)
    return poor >= GARBLED_SHARE * max(1, sum(len(w.text) for w in words))


def _lines(blocks: Sequence[Block]) -> list[Line]:
    return [ln for b in blocks for ln in b.lines if ln.confidence is not None]


def _poor(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.confidence is not None and ln.confidence < POOR_LINE_CONFIDENCE]
