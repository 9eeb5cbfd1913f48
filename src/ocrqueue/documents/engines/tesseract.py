# ruff: noqa: RUF001, RUF003 (Greek letters and their Latin look-alikes are the point)
"""Tesseract 5 in-process through tesserocr, with Debian's language data.

One API object per language set is kept and reused (each holds its language models: ~100 MB for
eng+chi_sim), its page-segmentation mode set per call; concurrent callers each borrow their own
object from a small pool, because a TessBaseAPI is not thread-safe. Whole pages are read with
PSM 3 (automatic layout); its lines are split into our layout regions afterwards, so the fake
columns it sometimes finds on Chinese pages cost nothing. Crops use PSM 4 or 6.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import tesserocr
from PIL import Image

from ocrqueue.documents.bidi import has_rtl, is_rtl
from ocrqueue.documents.engines.base import EngineCapabilities, EngineOutput, Orientation, RecognitionRequest
from ocrqueue.documents.engines.greek_kappa import GREEK_MODEL, kappa_for_chi, word_list
from ocrqueue.documents.engines.latin_taken import (
    LATIN_TAKEN_MODELS,
    REREAD_WITH,
    is_taken_candidate,
    latin_reading_kept,
)
from ocrqueue.documents.engines.persian_words import persian_words, words_apart
from ocrqueue.documents.engines.row_size import row_size
from ocrqueue.documents.errors import InvalidOptionsError
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.logical_line import logical_order
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.scripts import script_of, script_read_by
from ocrqueue.documents.text import piece_gap, replaced_in_place, word_gap

TESSDATA_CANDIDATES = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)

_PSM_FOR_TASK = {
    "page": tesserocr.PSM.AUTO,
    "cell": tesserocr.PSM.SINGLE_BLOCK,
    "text": tesserocr.PSM.SINGLE_COLUMN,
    "table": tesserocr.PSM.SINGLE_BLOCK,
    "formula": tesserocr.PSM.SINGLE_BLOCK,
    "line": tesserocr.PSM.RAW_LINE,
}


# Models whose pages are read with PSM 4 (one column of lines of any size; whole_page.py splits
# them by the layout found beside): PSM 3's page layout analysis takes much of a Korean page for
# something else than text and drops it (bench/script_pages.py, Korean pages).
SINGLE_COLUMN_PAGE_MODELS = frozenset({"Hangul", "kor"})
# Models that read a page or crop better in black and white, thresholded by us (Otsu) before
# Tesseract sees it: given the grey of a straightened scan, Tesseract's Arabic model read whole
# lines as garbage ("يحلّل المستند الحالي" as "لل Glial sawed"), the same lines black and white
# right (docs/documents.md, "Right-to-left text").
BLACK_AND_WHITE_MODELS = frozenset({"Arabic"})
NOISY_PAPER = 0.2
# Models read beside a Latin one whose words that Latin model takes as Latin junk are read
# again: right-to-left ones beside ``eng`` (engine_choice.WITH_ENGLISH: "پایانهٔ" as "abl", "رنگ"
# as "Ky", "تعذّر" as "Sei") and Hangul beside ``Latin`` ("또" as "E", "보여주고" as "HAF",
# "파일을" as "FAS"). A word of Latin letters read under ``STOLEN_BELOW`` in a line of mostly
# words with the script's letters is read again alone, as a raw line, with the script's model
# only, and that reading kept when it is one word of ``StolenWords.least`` letters of the script
# or more, no Latin letter, read at ``StolenWords.kept`` or more. Real Latin words in those lines
# ("HTML", "highlight-colors-set") read 0.90-0.96 with ``eng``; the model alone reads them as
# digits and Latin letters, so they stay. A Korean word can be one syllable ("또", "열"). On the
# nine dev Korean pages, mean CER clean 0.0508 -> 0.0420, scan 0.0399 -> 0.0317, every page better.
# Greek beside ``Latin`` likewise (``GREEK_KEPT``).


@dataclass(frozen=True)
class StolenWords:
    """How a script's words taken as Latin junk are told and read again."""

    letter: Callable[[str], bool]  # a character of the script
    beside: str  # the Latin model read beside the script's that takes its words
    least: int  # letters of the script a word read again must hold
    # Tesseract reads the script in pieces finer than words (Hangul: syllables, text.piece_gap): a
    # word read again comes back as pieces, joined, and is put in place in the line's own text,
    # which keeps the spacing as printed.
    pieces: bool
    # Korean puts its particles straight after a Latin word ("apt를", "SSH를", "MBR에"), and the Latin
    # model reads the particle as a Latin letter or junk ("SSHE", "MBRA") or drops it ("apt"): a
    # Latin word read again alone that comes back as itself (or itself less its last character)
    # and a syllable or two of the script is kept so.
    particles: bool = False
    # The confidence a word read again needs to be kept.
    kept: float = 0.3
    # Only words of letters are read again: a word with a digit in it is code or a label
    # ("a2h", "4b1z" on a Greek page about hyphenation codes), which the script's model reads as junk.
    letters_only: bool = False
    # A reading again made only of these letters is no evidence: they are drawn as Latin letters
    # are, and the Latin model's reading of them stands ("TEX" is no "ΤΕΧ").
    twins: frozenset[str] = frozenset()


def _is_hangul(char: str) -> bool:
    return script_of(char) == "Hangul"


def _is_greek(char: str) -> bool:
    return script_of(char) == "Greek"


# Greek letters drawn as Latin ones are.
GREEK_TWINS = frozenset("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧο")
# Greek TeX fonts draw kappa as ϰ, which ``Greek+Latin`` reads as Latin: "καὶ" came back as "xal",
# "xa", "XA" or "xol" (seven times on one dev elhyphen-modern page), "Τὰ" as "Tå", "πο-" as "zo-";
# read alone with the Greek model each is itself at 0.86-0.97. Latin words and codes on those pages
# read so come back at 0.74 or under, in Latin twins ("ΤΕΧ"), or with digits.
GREEK_KEPT = 0.8

REREAD_STOLEN_MODELS = {
    "Arabic": StolenWords(has_rtl, "eng", 2, pieces=False),
    "Hangul": StolenWords(_is_hangul, "Latin", 1, pieces=True, particles=True),
    "Greek": StolenWords(_is_greek, "Latin", 2, pieces=False, kept=GREEK_KEPT, letters_only=True, twins=GREEK_TWINS),
}
STOLEN_BELOW = 0.9
# A Latin word of those, not the script's when read again whole, whose last glyph read alone with
# the Hangul model is one or two syllables at ``PARTICLE_SURE`` or more ends with that particle:
# the Hangul model reads Latin poorly ("MBR에" whole as "MBRo|"), the particle alone well (0.97).
PARTICLE_MODELS = frozenset({"Hangul"})
PARTICLE_SURE = 0.8
# Models that read fine print worse: a page finer than ``COARSEST_DPI`` is read scaled down to
# it (each pixel the mean of those it covers), its boxes scaled back. The Thai models lose marks
# and take ง for จ at 300 dpi (why is not known: Tesseract scales each line to its model's height
# either way). Chromium-printed 11-pt Thai pages (bench/accuracy.py --corpus scripts --split dev,
# 4 pages), mean CER clean / scan read with tha+eng at 300 dpi 0.0311 / 0.0268, at 200 dpi
# 0.0220 / 0.0151; bare Tesseract on the page scaled: tha+Latin 300 dpi 0.040 / 0.028, 200 dpi
# 0.021 / 0.015; tha+eng 225 dpi 0.035 / 0.025, 200 dpi 0.019 / 0.013, 150 dpi 0.015 / 0.015;
# Thai+Latin 300 dpi 0.061 / 0.045, 200 dpi 0.038 / 0.034. A made page of apt's Thai messages
# at 300 dpi (tests/documents/test_thai_reading.py), tha+eng: 0.016 -> 0.004.
COARSER_MODELS = frozenset({"Thai", "tha"})
COARSEST_DPI = 200
# Letters an Arabic-script reading asked for Persian (``fas`` among its models) gives as Persian
# spells them: the ``Arabic`` model, which leads such a reading, writes Arabic's yeh (ي, or ى at
# a word's end) and kaf (ك) where Persian has its own (ی, ک), and the ezafe's heh with hamza above
# (هٔ, Persian's "پایانهٔ") as teh marbuta (ة), which Persian does not write, or as heh with yeh
# above (ۀ, an older spelling of the same) or Urdu's heh goal with hamza (ۂ). A Persian page's
# words are searched as typed with a Persian keyboard. Dev gnome-terminal-fa p. 1 clean, read with
# ``Arabic+fas+eng``: 7 of 8 "پایانهٔ" came back "پايانة" or "پایانة".
PERSIAN_LANGUAGE = "fas"
# The Arabic comma after a word of the script, in any reading with a model of the script (``Arabic``,
# ``ara``, ``fas``): the models read "،" as "," (dev gnome-terminal-fa p. 1 clean, read with
# ``Arabic+fas+eng``: 8 of its 12; gedit-ar pp. 2-3, ``Arabic+ara+eng``: 4 of 5 and 4 of 5), which
# Arabic, Persian and Urdu do not write after their own words; and as "»" (lshort-fa, XeTeX: 9 of
# the 13 on dev pp. 22, 61 and 99 clean, with ``Arabic+fas+eng`` and ``Arabic+eng``), a closing
# guillemet, which a word of the script ends with only when it closes a "«" opened before it
# (``ARABIC_COMMA``: one opened on the page's lines read so far).
ARABIC_COMMA = "\u060c"
PERSIAN_COMMA = re.compile("(?<=[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]),")
PERSIAN_SPELLING = str.maketrans(
    {
        "\u064a": "\u06cc",
        "\u0649": "\u06cc",
        "\u0643": "\u06a9",
        "\u0629": "\u0647\u0654",
        "\u06c0": "\u0647\u0654",
        "\u06c2": "\u0647\u0654",
    }
)
# The Armenian script model has no "և" (ech-yiwn, the word "and" and a letter of many words) in
# its letters and reads it as "ն", which is no word on its own: a word "ն" it reads is "և". Dev
# mo-nautilus-hy pp. 1-2 (Chromium, Noto Sans Armenian): 5 "և" as words, all read "ն", and 4
# more inside words ("հետևյալ" as "հետնյալ"), which no rule can tell from a real "ն".
ARMENIAN_MODEL = "Armenian"
ARMENIAN_AND = re.compile("(?<!\\S)\u0576(?!\\S)")
# Scripts whose models name a bracket of a right-to-left run as meant, not as drawn (logical_line.logical_order).
RIGHT_TO_LEFT_SCRIPTS = frozenset({"Arabic", "Hebrew", "Syriac", "Thaana"})
# Models for text set in vertical columns: their pages' lines stand upright on their side by design.
VERTICAL_MODEL_SUFFIX = "_vert"
SAME_ROWS = 0.8  # share of the taller line's rows two sideways lines of one column of numbers share


def find_tessdata() -> str:
    """TESSDATA_PREFIX if set, else the first Debian/Ubuntu location holding traineddata files."""
    env = os.environ.get("TESSDATA_PREFIX")
    candidates = (env, *TESSDATA_CANDIDATES) if env else TESSDATA_CANDIDATES
    for folder in candidates:
        if folder and any(Path(folder).glob("*.traineddata")):
            return folder.rstrip("/") + "/"
    raise InvalidOptionsError("Tesseract language data not found: install tesseract-ocr-eng or set TESSDATA_PREFIX")


def installed_capabilities(installed: frozenset[str]) -> EngineCapabilities:
    """What Tesseract can do with the traineddata files installed: each language reads its script
    (chi_sim Han, rus Cyrillic, other known ones Latin), a script model (``Latin``, ``Cyrillic``) its
    own (documents/scripts.py's table);
    orientation and script detection need ``osd``."""
    languages = installed - {"osd"}
    return EngineCapabilities(
        scripts=frozenset(map(script_read_by, languages)),
        languages=frozenset(languages),
        word_boxes=True,
        detects_orientation="osd" in installed,
        detects_script="osd" in installed,
    )


class TesseractEngine:
    name = "tesseract"

    def __init__(self, tessdata: str | None = None) -> None:
        self.tessdata = tessdata or find_tessdata()
        _, langs = tesserocr.get_languages(self.tessdata)
        self.installed = frozenset(langs)
        self.capabilities = installed_capabilities(self.installed)
        self._free: dict[str, list[tesserocr.PyTessBaseAPI]] = {}
        self._free_osd: list[tesserocr.PyTessBaseAPI] = []
        self._lock = threading.Lock()

    @contextmanager
    def _borrow(self, lang: str, psm: int) -> Iterator[tesserocr.PyTessBaseAPI]:
        with self._lock:
            pool = self._free.setdefault(lang, [])
            api = pool.pop() if pool else None
        if api is None:
            api = tesserocr.PyTessBaseAPI(path=self.tessdata, lang=lang, oem=tesserocr.OEM.LSTM_ONLY)
        try:
            api.SetPageSegMode(psm)
            yield api
        finally:
            api.Clear()
            with self._lock:
                self._free[lang].append(api)

    def _lang(self, languages: tuple[str, ...]) -> str:
        missing = [lang for lang in languages if lang not in self.installed]
        if missing or not languages:
            raise InvalidOptionsError(
                f"OCR language(s) not installed: {', '.join(missing) or 'none given'}; "
                f"installed: {', '.join(sorted(self.installed - {'osd'}))}"
            )
        return "+".join(languages)

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        """Tesseract's orientation and script detection (osd.traineddata, Debian's
        tesseract-ocr-osd); None without OSD data or when it finds too little text to tell."""
        if "osd" not in self.installed:
            return None
        with self._lock:
            api = self._free_osd.pop() if self._free_osd else None
        if api is None:
            api = tesserocr.PyTessBaseAPI(path=self.tessdata, lang="osd", psm=tesserocr.PSM.OSD_ONLY)
        try:
            api.SetImage(image if image.mode == "L" else image.convert("L"))
            api.SetSourceResolution(dpi)
            found = api.DetectOrientationScript()
        finally:
            api.Clear()
            with self._lock:
                self._free_osd.append(api)
        if not found:
            return None
        # orient_deg is the counter-clockwise turn that makes the page upright.
        return Orientation(
            (360 - int(found["orient_deg"])) % 360,
            float(found["orient_conf"]),
            str(found["script_name"]),
            float(found["script_conf"]),
        )

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        lang = self._lang(request.languages)
        psm = _PSM_FOR_TASK[request.task]
        if request.task == "page" and request.languages[0] in SINGLE_COLUMN_PAGE_MODELS:
            psm = tesserocr.PSM.SINGLE_COLUMN
        gray = image if image.mode == "L" else image.convert("L")
        dpi = request.dpi
        if COARSER_MODELS.intersection(request.languages) and dpi > COARSEST_DPI:
            gray, dpi = coarser(gray, dpi / COARSEST_DPI), COARSEST_DPI
        if BLACK_AND_WHITE_MODELS.intersection(request.languages):
            gray = black_and_white(gray)
        with self._borrow(lang, psm) as api:
            api.SetImage(gray)
            api.SetSourceResolution(dpi)
            api.Recognize()
            lines = _lines(api)
            glyphs = _last_glyphs(api) if any(m in PARTICLE_MODELS for m in request.languages) else {}
            sideways = _sideways_lines(api) if psm == tesserocr.PSM.AUTO and not _reads_vertical(request) else set()
        if sideways:
            lines = self._sideways_read_upright(gray, lines, sideways, lang, dpi)
        own = [
            lang
            for lang in request.languages
            if lang in REREAD_STOLEN_MODELS and REREAD_STOLEN_MODELS[lang].beside in request.languages
        ]
        if own:
            lines = [self._stolen_words_read_again(gray, line, own[0], dpi, glyphs) for line in lines]
        taken = _latin_taken_model(request.languages)
        if taken is not None and REREAD_WITH in self.installed:
            lines = [self._latin_taken_read_again(gray, line, taken, dpi) for line in lines]
        lines = [pieces_joined(line) for line in lines]
        if dpi != request.dpi:
            lines = [_scaled_line(line, request.dpi / dpi) for line in lines]
        if any(script_read_by(lang) == "Arabic" for lang in request.languages):
            lines = arabic_commas(lines)
        if PERSIAN_LANGUAGE in request.languages:
            lines = [_spelt(line, _as_persian) for line in lines]
            persian = persian_words(self.tessdata)
            lines = [words_apart(line, persian) if has_rtl(line.text) else line for line in lines]
        if ARMENIAN_MODEL in request.languages:
            lines = [_spelt(line, _armenian_and) for line in lines]
        if GREEK_MODEL in request.languages:
            words = word_list(self.tessdata)
            lines = [_spelt(line, lambda text: kappa_for_chi(text, words)) for line in lines]
        return EngineOutput(tuple(lines))

    def _stolen_words_read_again(
        self, gray: Image.Image, line: Line, lang: str, dpi: int, glyphs: dict[BBox, tuple[str, BBox]]
    ) -> Line:
        """``line`` with the words a Latin model took from the script of ``lang`` read again with
        that script's model alone (``REREAD_STOLEN_MODELS``), and Korean particles it took for
        Latin put back (``glyphs``: each word's last glyph, ``_last_glyphs``); the line as it was
        when it is not mostly of words in that script or no word changed."""
        stolen = REREAD_STOLEN_MODELS[lang]
        words = list(line.words)
        if sum(any(map(stolen.letter, w.text)) for w in words) * 2 < len(words):
            return line
        changed = False
        for i, word in enumerate(words):
            if (
                any(map(stolen.letter, word.text))
                or not _has_latin_letter(word.text)
                or (word.confidence or 0.0) >= STOLEN_BELOW
                or (stolen.letters_only and any(c.isdigit() for c in word.text))
            ):
                continue
            read = self._read_alone(gray, line, word.bbox, lang, dpi)
            if not read or (len(read) > 1 and not stolen.pieces):
                continue
            text, confidence = "".join(w.text for w in read), min(w.confidence or 0.0 for w in read)
            if (
                sum(map(stolen.letter, text)) >= stolen.least
                and not _has_latin_letter(text)
                and confidence >= stolen.kept
                and not all(c in stolen.twins for c in text if c.isalpha())
            ) or (stolen.particles and _with_particle(word.text, text) and confidence >= stolen.kept):
                words[i] = Word(text, word.bbox, confidence)
                changed = True
            elif stolen.particles and word.bbox in glyphs:
                glyph, box = glyphs[word.bbox]
                # Not into the next word: a particle read there is that word's, read already.
                until = line.words[i + 1].bbox.x0 if i + 1 < len(line.words) else None
                particle = _particle_of(word.text, glyph, self._read_alone(gray, line, box, lang, dpi, until))
                if particle is not None:
                    words[i] = Word(particle, word.bbox, word.confidence)
                    changed = True
        if not changed:
            return line
        text = _in_place(line, words) if stolen.pieces else " ".join(w.text for w in words)
        return Line(text, line.bbox, line.confidence, tuple(words), line.font_size)

    def _latin_taken_read_again(self, gray: Image.Image, line: Line, model: str, dpi: int) -> Line:
        """``line`` with the Latin words the script ``model`` took for its own read again alone with
        English, and that reading kept where latin_taken.py says so; the line as it was when no
        word changed."""
        script = script_read_by(model)
        words = list(line.words)
        changed = False
        for i, word in enumerate(words):
            if not is_taken_candidate(word.text, script, word.confidence):
                continue
            read = self._read_alone(gray, line, word.bbox, REREAD_WITH, dpi)
            if len(read) != 1:
                continue
            latin = read[0]
            if latin_reading_kept(word.text, word.confidence, latin.text, latin.confidence or 0.0):
                words[i] = Word(latin.text, word.bbox, latin.confidence)
                changed = True
        if not changed:
            return line
        return Line(_in_place(line, words), line.bbox, line.confidence, tuple(words), line.font_size)

    def _sideways_read_upright(
        self, gray: Image.Image, lines: list[Line], sideways: set[BBox], lang: str, dpi: int
    ) -> list[Line]:
        """``lines``, those Tesseract read turned on their side (their boxes in ``sideways``)
        read again upright as a block, each group of them that stand side by side together, where
        that reading is the more confident. On an upright page Tesseract takes a narrow column of
        numbers (a table's row numbers 1 to 24) for lines of text turned 90 degrees, one per column
        of digits, and reads "CONDUBWNPR"; a label really set sideways (a chart's axis title) reads
        worse upright and stays as it was read."""
        turned = [ln for ln in lines if ln.bbox in sideways]
        out = [ln for ln in lines if ln.bbox not in sideways]
        for group in _side_by_side(turned):
            box = union(ln.bbox for ln in group)
            pad = max(2, round(min(ln.bbox.width for ln in group) / 2))
            x0, y0 = max(0, int(box.x0) - pad), max(0, int(box.y0) - pad)
            x1, y1 = min(gray.width, int(box.x1) + pad), min(gray.height, int(box.y1) + pad)
            with self._borrow(lang, tesserocr.PSM.SINGLE_BLOCK) as api:
                api.SetImage(gray.crop((x0, y0, x1, y1)))
                api.SetSourceResolution(dpi)
                api.Recognize()
                upright = [_shifted(ln, x0, y0) for ln in _lines(api) if ln.text.strip()]
            read = [w for ln in upright for w in ln.words]
            was = [w for ln in group for w in ln.words]
            out.extend(upright if read and _mean_confidence(read) > _mean_confidence(was) else group)
        return out

    def _read_alone(
        self, gray: Image.Image, line: Line, box: BBox, lang: str, dpi: int, until: float | None = None
    ) -> list[Word]:
        """The words of ``box`` (a word or a glyph of ``line``), the line's height and a little
        around it (not past ``until``), read as a raw line with ``lang`` alone."""
        height = line.bbox.height
        pad_x, pad_y = max(1, round(height / 8)), max(2, round(height / 4))
        right = int(box.x1) + pad_x if until is None else min(int(box.x1) + pad_x, int(until))
        crop = (
            max(0, int(box.x0) - pad_x),
            max(0, int(line.bbox.y0) - pad_y),
            min(gray.width, right),
            min(gray.height, int(line.bbox.y1) + pad_y),
        )
        if crop[2] <= crop[0] or crop[3] <= crop[1]:
            return []
        with self._borrow(lang, tesserocr.PSM.RAW_LINE) as api:
            api.SetImage(gray.crop(crop))
            api.SetSourceResolution(dpi)
            api.Recognize()
            return [w for ln in _lines(api) for w in ln.words]


def _latin_taken_model(languages: tuple[str, ...]) -> str | None:
    """The script model of ``LATIN_TAKEN_MODELS`` among ``languages`` when a Latin model is read
    beside it (the page is expected to quote Latin words); None otherwise."""
    if not {"Latin", "eng"}.intersection(languages):
        return None
    return next((lang for lang in languages if lang in LATIN_TAKEN_MODELS), None)


def _reads_vertical(request: RecognitionRequest) -> bool:
    return any(lang.endswith(VERTICAL_MODEL_SUFFIX) for lang in request.languages)


def _sideways_lines(api: tesserocr.PyTessBaseAPI) -> set[BBox]:
    """The boxes of the text lines Tesseract's page layout found turned on their side (their
    block's orientation other than upright), as ``_lines`` gives them."""
    out: set[BBox] = set()
    it = api.GetIterator()
    if it is None:
        return out
    for line in tesserocr.iterate_level(it, tesserocr.RIL.TEXTLINE):
        box = line.BoundingBox(tesserocr.RIL.TEXTLINE)
        if box and line.Orientation()[0] != tesserocr.Orientation.PAGE_UP:
            out.add(BBox(*(float(v) for v in box)))
    return out


def _side_by_side(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped where their boxes overlap or stand less than their width apart: the columns
    of digits of one column of numbers."""
    groups: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: ln.bbox.x0):
        near = [g for g in groups if any(_beside(line.bbox, other.bbox) for other in g)]
        merged = [line, *(ln for g in near for ln in g)]
        groups = [g for g in groups if g not in near] + [merged]
    return groups


def _beside(a: BBox, b: BBox) -> bool:
    """Whether two sideways lines are columns of digits of one column of numbers: less than a
    line's width apart, and each over most of the other's rows (a label set sideways beside the
    column is no part of it)."""
    reach = max(a.width, b.width)
    shared = min(a.y1, b.y1) - max(a.y0, b.y0)
    return a.x0 - reach <= b.x1 and b.x0 - reach <= a.x1 and shared >= SAME_ROWS * max(a.height, b.height)


def _shifted(line: Line, dx: float, dy: float) -> Line:
    """A line read in a crop at (dx, dy), in the page's pixels."""

    def move(b: BBox) -> BBox:
        return BBox(b.x0 + dx, b.y0 + dy, b.x1 + dx, b.y1 + dy)

    return replace(line, bbox=move(line.bbox), words=tuple(replace(w, bbox=move(w.bbox)) for w in line.words))


def _mean_confidence(words: tuple[Word, ...] | list[Word]) -> float:
    return sum(w.confidence or 0.0 for w in words) / max(1, len(words))


def _last_glyphs(api: tesserocr.PyTessBaseAPI) -> dict[BBox, tuple[str, BBox]]:
    """Each word's last glyph as recognised and its box, by the word's box."""
    out: dict[BBox, tuple[str, BBox]] = {}
    it = api.GetIterator()
    if it is None:
        return out
    word: BBox | None = None
    for symbol in tesserocr.iterate_level(it, tesserocr.RIL.SYMBOL):
        if symbol.IsAtBeginningOf(tesserocr.RIL.WORD):
            found = symbol.BoundingBox(tesserocr.RIL.WORD)
            word = BBox(*(float(v) for v in found)) if found else None
        box = symbol.BoundingBox(tesserocr.RIL.SYMBOL)
        if word is None or box is None or symbol.Empty(tesserocr.RIL.SYMBOL):
            continue
        text = symbol.GetUTF8Text(tesserocr.RIL.SYMBOL)
        if text:
            out[word] = (text, BBox(*(float(v) for v in box)))
    return out


def _particle_of(latin: str, glyph: str, read: list[Word]) -> str | None:
    """``latin`` with the Korean particle its last glyph is (``read``: that glyph read alone with
    the Hangul model): the glyph read as one or two syllables at ``PARTICLE_SURE`` or more ("MBRA"
    -> "MBR에", its "A" read "에" at 0.97), or as itself and then the syllables (a particle the
    Latin model drew into its last letter's box and dropped: "grub" -> "grub을"). None otherwise."""
    found = [w for w in read if any(map(_is_hangul, w.text))]
    if not found or min(w.confidence or 0.0 for w in found) < PARTICLE_SURE:
        return None
    text = "".join(w.text for w in read)
    syllables = _SYLLABLES.fullmatch(text) or _SYLLABLES.fullmatch(text.removeprefix(glyph))
    if syllables is None or not latin.endswith(glyph):
        return None
    kept = latin[: len(latin) - len(glyph)] if text == syllables[0] else latin
    if not any(c.isascii() and c.isalnum() for c in kept):
        return None
    return kept + syllables[0]


_PARTICLE = re.compile(r"(.*[A-Za-z0-9])([\uac00-\ud7a3]{1,2})")
_SYLLABLES = re.compile(r"[\uac00-\ud7a3]{1,2}")
# What a Latin word ends with in its own right: a particle was not read as one of these.
_WORD_ENDS = frozenset("/.,:;!?)]}'\"-_")


def _with_particle(latin: str, again: str) -> bool:
    """Whether ``again`` is the Latin word ``latin`` with a Korean particle after it: ``latin``
    itself, or ``latin`` less its last character when that is no punctuation a word ends with
    (the particle read as a Latin letter or a sign: "SSHE", "grub2¥"), then one or two Hangul
    syllables ("SSH를", "grub2를")."""
    found = _PARTICLE.fullmatch(again)
    if found is None or not _has_latin_letter(found[1]):
        return False
    rest = latin.removeprefix(found[1])
    return len(rest) < len(latin) and (rest == "" or (len(rest) == 1 and rest not in _WORD_ENDS))


def _spelt(line: Line, spelling: Callable[[str], str]) -> Line:
    """``line`` with its text and its words' text as ``spelling`` gives them."""
    text = spelling(line.text)
    if text == line.text:
        return line
    return replace(line, text=text, words=tuple(replace(w, text=spelling(w.text)) for w in line.words))


def _as_persian(text: str) -> str:
    """``text`` with ``PERSIAN_SPELLING``'s letters."""
    return text.translate(PERSIAN_SPELLING)


def arabic_commas(lines: list[Line]) -> list[Line]:
    """Lines read with a model of the Arabic script (in reading order) with the script's comma
    where the models read it as "," or "»" after a letter of the script (``PERSIAN_COMMA``,
    ``ARABIC_COMMA``): a "»" is the comma when no "«" opened on these lines before it is left
    to close."""
    out: list[Line] = []
    open_quotes = 0
    for line in lines:
        words = []
        for word in line.words:
            text = list(PERSIAN_COMMA.sub(ARABIC_COMMA, word.text))
            for i, ch in enumerate(text):
                if ch == "\u00ab":
                    open_quotes += 1
                elif ch == "\u00bb" and open_quotes:
                    open_quotes -= 1
                elif ch == "\u00bb" and i > 0 and is_rtl(text[i - 1]):
                    text[i] = ARABIC_COMMA
            words.append(replace(word, text="".join(text)))
        if any(w.text != old.text for w, old in zip(words, line.words, strict=True)):
            line = replace(line, text=_in_place(line, words), words=tuple(words))
        out.append(line)
    return out


def _armenian_and(text: str) -> str:
    """``text`` with each word "ն" as "և" (``ARMENIAN_AND``)."""
    return ARMENIAN_AND.sub("\u0587", text)


def _in_place(line: Line, words: list[Word]) -> str:
    """``line``'s text with each of its words' text replaced by that of ``words`` in turn, its
    spacing kept (the line as it was when a word is not found in it)."""
    return replaced_in_place(line.text, [w.text for w in line.words], [w.text for w in words])


def pieces_joined(line: Line) -> Line:
    """``line`` with the pieces of a word Tesseract cut finer than printed (Korean syllables, which
    its text joins without a space, ``piece_gap``) made one word each, box the union of theirs and
    confidence their mean by letters. Every step after the engine that builds a text from words
    (a line cut at a gutter or by a region, a table's cell, a margin note: ``text.join_words``)
    puts a space between two words of a script written with spaces, and read a line of a help
    page as "검색 결 과 의 대 소 문 자 를" for "검색 결과의 대소문자를". The line as it was when
    nothing is joined or a word is not found in its text."""
    if len(line.words) < 2:
        return line
    merged: list[list[Word]] = []
    rest = line.text
    for word in line.words:
        at = rest.find(word.text)
        if at < 0:
            return line
        if merged and at == 0 and word_gap(merged[-1][-1].text, word.text) == " ":
            merged[-1].append(word)
        else:
            merged.append([word])
        rest = rest[at + len(word.text) :]
    if len(merged) == len(line.words):
        return line
    return replace(line, words=tuple(_one_word(group) for group in merged))


def _one_word(pieces: list[Word]) -> Word:
    if len(pieces) == 1:
        return pieces[0]
    text = "".join(w.text for w in pieces)
    known = [(w.confidence, len(w.text)) for w in pieces if w.confidence is not None]
    confidence = sum(c * n for c, n in known) / sum(n for _, n in known) if known else None
    return Word(text, union(w.bbox for w in pieces), confidence)


def black_and_white(gray: Image.Image) -> Image.Image:
    """``gray`` thresholded at its Otsu level (ink black, paper white) when its paper is not one
    white (a scan: ``NOISY_PAPER`` or more of the pixels above that level are under 254); a clean
    render is left as it is (its letters' grey edges are what Tesseract reads best from)."""
    pixels = np.asarray(gray, dtype=np.uint8)
    if pixels.size == 0:
        return gray
    level, _ = cv2.threshold(pixels, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    sample = pixels[:: max(1, pixels.shape[0] // 500), :: max(1, pixels.shape[1] // 500)]
    paper = sample[sample > level]
    if paper.size == 0 or float(np.mean(paper < 254)) < NOISY_PAPER:
        return gray
    return Image.fromarray(np.where(pixels > level, 255, 0).astype(np.uint8))


def coarser(gray: Image.Image, factor: float) -> Image.Image:
    """``gray`` shrunk ``factor`` times, each pixel the mean of those it covers."""
    size = (max(1, round(gray.width / factor)), max(1, round(gray.height / factor)))
    return gray.resize(size, Image.Resampling.BOX)


def _scaled_line(line: Line, factor: float) -> Line:
    """``line`` with its boxes and font size ``factor`` times larger."""
    words = tuple(replace(w, bbox=w.bbox.scaled(factor)) for w in line.words)
    size = line.font_size * factor if line.font_size else line.font_size
    return replace(line, bbox=line.bbox.scaled(factor), words=words, font_size=size)


def _has_latin_letter(text: str) -> bool:
    return any(c.isascii() and c.isalpha() for c in text)


def overreaching_cut(words: list[Word]) -> list[Word]:
    """A right-to-left line's words in Tesseract's reading order, with the box of a right-to-left
    word that starts left of the right-to-left word read before it and reaches over it cut where
    that one starts: its LSTM model gives some words a box whose right edge runs on over the words
    read before them, up to the line's start, and ``logical_order``, which places each word by its
    box, put them there ("ممکن است لازم" came back "ممکن لازم است", "راهنمای الکترونیکی" as
    "الکترونیکی راهنمای": on dev lshort-fa p. 22 clean, seven such boxes in its 30 lines, their
    left edges where the words start)."""
    out = list(words)
    for k in range(1, len(out)):
        before, word = out[k - 1], out[k]
        if word.bbox.x0 < before.bbox.x0 < word.bbox.x1 and has_rtl(before.text) and has_rtl(word.text):
            out[k] = replace(word, bbox=word.bbox._replace(x1=before.bbox.x0))
    return out


def _lines(api: tesserocr.PyTessBaseAPI) -> list[Line]:
    """Words grouped into Tesseract's text lines; a line's font size is its row height (x-height
    plus ascender and descender allowance), steadier than box heights that vary with descenders,
    unless the row holds pieces on different baselines (``row_size``).
    A line's text has a space where Tesseract saw a blank before a word; pieces of a Thai or
    Korean word it split where none was printed join without one (``piece_gap``). Tesseract's
    iterator gives a right-to-left line's words right to left, each spelt left to right as drawn:
    ``logical_order`` puts them in reading order."""
    lines: list[Line] = []
    words: list[Word] = []
    meant: list[bool] = []  # per word: read by a right-to-left model, which names brackets as meant
    text = ""
    line_box: BBox | None = None
    row_height: float | None = None

    def flush() -> None:
        nonlocal text
        if words:
            conf = sum(w.confidence or 0.0 for w in words) / len(words)
            box = line_box or union(w.bbox for w in words)
            size = row_size(row_height, words) if row_height else row_height
            if any(has_rtl(w.text) for w in words):
                in_order = logical_order(overreaching_cut(words), meant)
                lines.append(Line(" ".join(w.text for w in in_order), box, conf, tuple(in_order), size))
            else:
                lines.append(Line(text, box, conf, tuple(words), size))
            words.clear()
            meant.clear()
            text = ""

    it = api.GetIterator()
    if it is None:
        return lines
    level = tesserocr.RIL.WORD
    for w in tesserocr.iterate_level(it, level):
        if w.IsAtBeginningOf(tesserocr.RIL.TEXTLINE):
            flush()
            box = w.BoundingBox(tesserocr.RIL.TEXTLINE)
            line_box = BBox(*(float(v) for v in box)) if box else None
            row_height = float(w.RowAttributes()["row_height"])
        box = w.BoundingBox(level)
        if w.Empty(level) or box is None:
            continue
        word = w.GetUTF8Text(level).strip()
        if word:
            text += (piece_gap(text, word, w.BlanksBeforeWord() > 0) if text else "") + word
            words.append(Word(word, BBox(*(float(v) for v in box)), w.Confidence(level) / 100.0))
            meant.append(script_read_by(w.WordRecognitionLanguage() or "eng") in RIGHT_TO_LEFT_SCRIPTS)
    flush()
    return lines
