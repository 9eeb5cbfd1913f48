"""A second look at a page once read: is it in another script than the first look said, and was it read well?

The letters of a reading tell scripts apart where OSD is weak. Vietnamese is Latin to OSD; its
reading with the Latin model either keeps enough tone-marked letters to be told by them
(documents/scripts.py) or has letters accented often and in short words, as only Vietnamese has
(``may_be_vietnamese``): it is read again with the Vietnamese model, and that reading is kept when
its letters are Vietnamese (``script_to_reread``). A page whose reading holds another script than
the one it was read for (OSD said Hangul, the reading is Chinese) is read again likewise. Kana and
kanji are read by the same model, so a Japanese page read as Chinese is not read again.
``low_confidence`` says when a reading is too poor to trust (a script with no model, noise).
Measured in docs/documents.md, "Scripts, languages and rotation".

Chinese in a page the first look called Latin:

Tesseract's script detection can call a Chinese page Latin when its sample holds many Latin words
(a manual full of commands), and it reports one script per page, so a Latin page with a few lines
of Chinese is Latin to it. Read as Latin, Chinese comes back as words of low confidence. When
languages are auto, the poorly read lines are read again as Chinese, each cropped on its own
(``PROBE_LINES`` of them, spread over the page); only when Chinese is found in them is the whole
page read again, as a page with Chinese (RapidOCR reads its Latin lines too). Reading the
whole page again to find out cost a poster (a page of display type, poorly read but Latin)
RapidOCR's model and ~500 MB on each of its large regions, for a reading that was thrown away.
The lines are read by the engine that took the first look, as the second look is script
detection too (Tesseract, chi_sim+eng), not by the engine that would read a Chinese page
(RapidOCR): loading RapidOCR's models only to answer "is there Han?" made the poster's peak
~235 MB higher, and on the evaluation pages Tesseract gives the same answer, faster. A page read by
an engine that is asked for no languages (a vision model reads what it sees) needs no second look.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from ocrqueue.documents.engines import OrientationDetector, RecognitionRequest, engine_capabilities
from ocrqueue.documents.model import LOW_CONFIDENCE_READING, Block, Line
from ocrqueue.documents.ocr.address_lines import reads_as_address
from ocrqueue.documents.ocr.crops import padded_crop
from ocrqueue.documents.ocr.detect import osd_script
from ocrqueue.documents.ocr.engine_choice import choose, first_look_engine, languages_to_ask
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.scripts import (
    SCRIPT_LANGUAGES,
    SCRIPT_MODELS,
    may_be_vietnamese,
    script_counts,
    scripts_in,
    scripts_of_languages,
)

POOR_LINE_CONFIDENCE = 0.6
POOR_LINE_SHARE = 0.25
PROBE_LINES = 12
# A page with fewer poor lines may still hold a few lines of Chinese (an English paper's Chinese
# abstract, a Chinese caption): two of its poor lines must then read as Chinese, so that one line
# of noise Tesseract reads as a Han character does not send an English page to RapidOCR.
MIXED_MIN_POOR_LINES = 2
MIXED_MIN_HAN_LINES = 2
HAN = ("Han", "Latin")
# The first look's scripts of a page that may be Chinese it did not see (``holds_han``).
LATIN_LOOKING = frozenset({"Latin", "Vietnamese"})
# Scripts one reading covers: RapidOCR's and Tesseract's Chinese models read kana too.
SAME_READING = {"Japanese": "Han"}
# A page read for a script other than Latin whose reading has fewer of that script's letters than
# this share may have been read for the wrong script: a Hebrew dev page OSD called Thai came back
# with few Thai letters, the rest Latin capitals made of Hebrew ones; a Chromium-printed Hebrew
# page read for Thai, 52 % Thai letters. Asking OSD again costs two looks; a reading for another
# script is kept only when it holds more of its script than this one held of its own. The share is
# taken over the lines that hold the script (``share_in_its_lines``): a misread page mixes its
# script's letters with Latin ones made of them in one line (the Hebrew page read for Thai: 59 %),
# while a page read rightly keeps its commands and quotes in lines of their own (a dev Russian
# LaTeX manual page, 64 % Cyrillic letters, asked OSD twice more for nothing). Weighting letters
# by confidence would not tell them apart: Tesseract read that Hebrew as Latin "NIT" at 0.94.
MISREAD_SHARE = 0.75
# A page sent to that second look whose reading's mean word confidence is under this is asked
# about on squares across it too (detect.other_scripts): pages read with a wrong script's model
# measured 0.38-0.64 (a made Korean page read for Arabic, Thai, Hebrew, Devanagari or Cyrillic
# 0.38-0.43, the dev Hebrew pages read for Thai 0.59-0.64, dev Gujarati and Gurmukhi pages read
# for Thai, Cyrillic or Devanagari 0.53-0.59); pages read for their own script that hold much
# Latin (Russian and Persian LaTeX manuals, Korean installation guide, Japanese, which asked for
# the second look while the share was taken over the whole page) 0.75-0.92, on which the squares
# cost 1-2 s of CPU for nothing.
POOR_READING = 0.7
# A page whose words' mean confidence is below this is said to be read poorly.
LOW_CONFIDENCE = 0.5


def script_to_reread(options: ProcessOptions, text: str, languages: tuple[str, ...]) -> tuple[str, ...] | None:
    """The scripts a page read with ``languages`` as ``text`` should be read again for: those of
    its letters when most of them are in a script the languages were not for (OSD said Hangul, the
    reading is Chinese), or Vietnamese first when a reading with the Latin model may be Vietnamese
    that lost its tone marks; only when the engine that would read them has that script's model.
    None otherwise, and when languages were named or the engine is asked for no languages."""
    found = scripts_in(text)
    if options.languages != (AUTO,) or not found:
        return None
    read = {SAME_READING.get(s, s) for s in scripts_of_languages(languages)}
    if found[0] == "Latin" and "Vietnamese" not in read and may_be_vietnamese(text):
        found = ("Vietnamese", *found)
    main = SAME_READING.get(found[0], found[0])
    if main in read:
        return None
    engine, again = choose(options, found)
    capabilities = engine_capabilities(engine)
    if capabilities is None or not capabilities.languages:
        return None
    return found if main in {SAME_READING.get(s, s) for s in scripts_of_languages(again)} else None


def holds_script(script: str, found: tuple[str, ...]) -> bool:
    """Whether a reading whose scripts are ``found`` holds ``script``, kana and kanji alike for
    Japanese and Han (``SAME_READING``): a reading with kana is Japanese, its kanji too
    (scripts.scripts_in), and a Japanese page the first look called Latin is read again as Chinese
    by the same model. Asking for "Han" alone threw that reading away: a dev Japanese manual page
    full of LaTeX code, scanned, stayed read as Latin (CER 0.455, RapidOCR's reading 0.004)."""
    meant = SAME_READING.get(script, script)
    return meant in {SAME_READING.get(s, s) for s in found}


def read_for_another_script(options: ProcessOptions, scripts: tuple[str, ...], text: str) -> bool:
    """Whether a page the first look gave a script other than Latin (``scripts``) came back with
    few letters of it in the lines that hold it: the first look may have been wrong, and
    ``detect.other_scripts`` is worth asking. Only when languages are auto; Latin letters are what
    a wrong model makes of any script."""
    if options.languages != (AUTO,) or not scripts or scripts[0] in ("Latin", "Vietnamese"):
        return False
    return bool(text) and share_in_its_lines(scripts[0], text) < MISREAD_SHARE


def share_in_its_lines(script: str, text: str) -> float:
    """``script_share`` over the lines of ``text`` that hold a letter of ``script`` (0 when none does)."""
    return script_share(script, "\n".join(ln for ln in text.splitlines() if script_share(script, ln) > 0))


def script_share(script: str, text: str) -> float:
    """The share of ``text``'s letters in ``script`` (kana and kanji both for Japanese and Han)."""
    counts = script_counts(text)
    total = sum(counts.values())
    meant = SAME_READING.get(script, script)
    return sum(n for s, n in counts.items() if SAME_READING.get(s, s) == meant) / max(1, total)


def mean_word_confidence(blocks: Sequence[Block]) -> float | None:
    confidences = [w.confidence for b in blocks for ln in b.lines for w in ln.words if w.confidence is not None]
    return sum(confidences) / len(confidences) if confidences else None


def low_confidence(blocks: Sequence[Block]) -> str | None:
    """A warning when the page's words were read with a mean confidence under ``LOW_CONFIDENCE``."""
    mean = mean_word_confidence(blocks)
    if mean is None or mean >= LOW_CONFIDENCE:
        return None
    return (
        f"{LOW_CONFIDENCE_READING} (mean word confidence {mean:.2f}): the text is likely wrong; "
        "the page may be in a script without an installed model, or hold no text"
    )


def holds_han(
    image: Image.Image, scale: float, blocks: list[Block], options: ProcessOptions, scripts: tuple[str, ...]
) -> bool:
    """Whether a page read as Latin holds Chinese or Japanese. Only when languages are auto,
    Chinese is installed and was not found, and two or more lines were read with low confidence (a
    Chinese manual page full of commands: 82 %; English pages 0-5 %); then its poorly read lines
    are read by the first look's engine with the languages a Chinese page gets, and must hold Han
    (or kana, which chi_sim reads a few of): one of them when a quarter of the page's lines are
    poor, two otherwise (a few lines of Chinese on a Latin page). ``image`` is the page as read
    (upright and straight), ``scale`` its pixels per point. A page the first look gave another
    script (``LATIN_LOOKING``: not Latin, not Vietnamese, and not nothing) is not asked: OSD knows
    Han, and a wrong script's reading is what the unseen scripts' probe and the second look are
    for. A dev Korean page OSD called Devanagari had its poor lines read as Han by Tesseract's
    Chinese model (Hangul looks like it to it) and was read whole by RapidOCR (4.9 s of one core)
    for a reading thrown away, before the probe found Hangul (help-gnome-terminal-ko p. 1: 12.7 s
    a page)."""
    if options.languages != (AUTO,) or "Han" in scripts or (scripts and scripts[0] not in LATIN_LOOKING):
        return False
    engine = first_look_engine(options)
    if engine is None or SCRIPT_LANGUAGES["Han"] not in engine.capabilities.languages:
        return False
    read_by = engine_capabilities(choose(options, scripts)[0])
    if read_by is not None and not read_by.languages:
        return False
    lines = _lines(blocks)
    poor = _poor(lines)
    if len(poor) < MIXED_MIN_POOR_LINES:
        return False
    needed = 1 if len(poor) >= POOR_LINE_SHARE * len(lines) else MIXED_MIN_HAN_LINES
    languages = languages_to_ask(HAN, engine.capabilities.languages)
    found = 0
    for line in _spread(poor):
        out = engine.recognize(_line_crop(image, scale, line), RecognitionRequest(languages, "text", round(scale * 72)))
        found += holds_script("Han", scripts_in("".join(ln.text for ln in out.lines)))
        if found >= needed:
            return True
    return False


def script_of_poor_lines(
    image: Image.Image, scale: float, blocks: list[Block], options: ProcessOptions, scripts: tuple[str, ...]
) -> str | None:
    """The script OSD sees in the poorly read lines of a page read as Latin, when it is another
    one with a model (not Han: ``holds_han`` asks about Chinese): a Persian page of a LaTeX manual
    full of code is Latin to OSD's look at its middle, and its Persian lines come back as Latin
    garbage of low confidence (lshort-fa p. 99 and 112, dev: CER 0.37 and 0.40; read with Arabic and
    English 0.19 and 0.18). Up to ``PROBE_LINES`` of them, spread over the page, are stacked into one
    image for OSD; the script it names must then hold the reading of two of those lines, each read
    on its own for it. When it names none, the lines poor in their words of letters are asked
    likewise (``_probe_groups``): code read poorly for its symbols outvoted the Persian lines. Only
    when languages are auto, and two lines or more were read poorly."""
    if options.languages != (AUTO,) or scripts[:1] != ("Latin",):
        return None
    detector = first_look_engine(options)
    if detector is None or not detector.capabilities.detects_script:
        return None
    read_by = engine_capabilities(choose(options, scripts)[0])
    if read_by is not None and not read_by.languages:
        return None
    poor = _poor(_lines(blocks))
    if len(poor) < MIXED_MIN_POOR_LINES:
        return None
    for group in _probe_groups(poor):
        script = _script_of_lines(image, scale, group, detector)
        if script is not None:
            return script
    return None


def _probe_groups(poor: list[Line]) -> list[list[Line]]:
    """The groups of poor lines OSD is asked about in turn: up to ``PROBE_LINES`` spread over all
    of them, then as many spread over those poor in their words of letters (``_poor_in_letters``)
    when that is another group of two or more. A line of code is read poorly for its symbols
    ("(20,30)" and "{\\circle{1}}" at 0.0-0.3 beside "\\put" at 0.92), a line of another script read
    as Latin for its letters: on lshort-fa p. 99 (dev) with its deskew angle 0.71 degree, 32 of its
    36 lines were poor, the spread sample 10 lines of code and 2 of Persian, and OSD said Latin;
    on the 9 lines poor in their letters (the 6 Persian ones and 3 short ones) it says Arabic."""
    spread = _spread(poor)
    groups = [spread]
    lettered = _spread([ln for ln in poor if _poor_in_letters(ln)])
    if len(lettered) >= MIXED_MIN_POOR_LINES and lettered != spread:
        groups.append(lettered)
    return groups


def _spread(lines: list[Line]) -> list[Line]:
    """Up to ``PROBE_LINES`` of ``lines``, spread evenly over them."""
    step = max(1, len(lines) / PROBE_LINES)
    return [lines[int(i * step)] for i in range(min(len(lines), PROBE_LINES))]


def _poor_in_letters(line: Line) -> bool:
    """Whether the words of ``line`` that are mostly letters were read with a mean confidence under
    ``POOR_LINE_CONFIDENCE`` (a line with no such word is not)."""
    lettered = [
        w.confidence
        for w in line.words
        if w.confidence is not None and 2 * sum(c.isalpha() for c in w.text) > len(w.text)
    ]
    return bool(lettered) and sum(lettered) / len(lettered) < POOR_LINE_CONFIDENCE


def _line_crop(image: Image.Image, scale: float, line: Line) -> Image.Image:
    """A line's crop of the page (its box in points, ``scale`` pixels a point), padded."""
    box = line.bbox.scaled(scale)
    crop, _, _ = padded_crop(image, (int(box.x0), int(box.y0), int(box.x1) + 1, int(box.y1) + 1))
    return crop


def _script_of_lines(image: Image.Image, scale: float, lines: list[Line], detector: OrientationDetector) -> str | None:
    """The script OSD names for ``lines`` stacked into one image, when it is one with a model other
    than Latin and Han and two of the lines, each read on its own with it and Latin, hold it."""
    crops = [_line_crop(image, scale, line).convert("L") for line in lines]
    stacked = Image.new("L", (max(c.width for c in crops), sum(c.height for c in crops)), 255)
    top = 0
    for crop in crops:
        stacked.paste(crop, (0, top))
        top += crop.height
    found = detector.orientation(stacked, round(scale * 72))
    script = osd_script(found.script) if found is not None else "Latin"
    if script in ("Latin", "Han") or script not in SCRIPT_MODELS:
        return None
    # OSD alone is not enough to read the whole page again (OCRmyPDF's poster, display type read
    # poorly, was read twice and passed its memory bound): the lines must read as that script.
    languages = languages_to_ask((script, "Latin"), detector.capabilities.languages)
    held = 0
    for crop in crops:
        out = detector.recognize(crop, RecognitionRequest(languages, "text", round(scale * 72)))
        held += script in scripts_in("".join(ln.text for ln in out.lines))
        if held >= MIXED_MIN_HAN_LINES:
            return script
    return None


def _lines(blocks: list[Block]) -> list[Line]:
    return [ln for b in blocks for ln in b.lines if ln.confidence is not None]


def _poor(lines: list[Line]) -> list[Line]:
    """The lines read under ``POOR_LINE_CONFIDENCE``, but for web addresses (address_lines.py:
    Latin read unsurely for its symbols, which the probes of other scripts only paid for)."""
    return [
        ln
        for ln in lines
        if ln.confidence is not None and ln.confidence < POOR_LINE_CONFIDENCE and not reads_as_address(ln.text)
    ]
