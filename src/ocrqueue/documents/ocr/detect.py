"""A cheap first look at a rendered page before it is read: which way up it is and which script it holds.

It is taken by an engine that declares orientation detection (ocr/engine_choice.py picks it; none
found: the page is taken as upright, its script unknown). A band of a few lines across the middle
of the ink is read with ``eng`` first (its upper half first, which on English prose is enough):
when it is plainly English prose (``plainly_english``) the page is upright Latin and OSD is not
asked, which saves about half of the first look on such a page and costs the band on every other
one; when it holds several of Vietnamese's commonest
syllables, the page is upright Vietnamese (OSD would call it Latin), read with that model at
once (it was read with ``eng`` first, only for that reading to say Vietnamese: 0.5-0.9 s of one
core on a dev scan, OSD 0.2-0.4 s). Otherwise Tesseract's orientation and script detection
(OSD, Debian's tesseract-ocr-osd) looks at the middle of the page's ink, at most
``OSD_SIDE_IN`` inches a side at 200 dpi or less (about 0.1 to 0.3 s of one core; on a whole page
it took 0.4 to 0.5 s and was no more often right). When it is unsure there (under ``OSD_SURE``:
the middle of a page with a header, a short text and a footer is blank paper), it looks again at
the square holding the most ink, and the surer answer counts (not when its answer is upright,
agrees with the lines and names a script other than Latin and Han: ``_taken_at_once``); when
neither answers, at the whole ink shrunk to that square (a slide's large type). Its orientation
was right on every page of the evaluation turned every way whenever it answered; an answer of
``OSD_SURE`` or more is taken as it is, a weaker one (``OSD_MIN_CONFIDENCE`` or more) when it
agrees with the direction the page's text lines run (blank rows of paper between lines across an
upright page, blank columns on a page lying on its side; that rule alone was wrong on a dev page
of short list lines turned three ways of eight, where OSD was right at 8 to 14). An answer of 180
degrees naming a script other than Latin and Han is not taken when the densest square of the ink
reads clearly better as it lies than turned with that script's models (``_square_reads_upright_in``):
OSD was sure a dev table of Greek letters under breathings stood upside down. Its script is
right less often (a Chinese page full of code looks Latin to it; Chinese is sometimes called
Japanese): Han and Japanese count as Han, and a script whose language is not installed as Latin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.engines import OcrEngine, Orientation, OrientationDetector, RecognitionRequest
from ocrqueue.documents.layout.straighten import cells_to_pixels, marked_box
from ocrqueue.documents.ocr.accents import ENGLISH_WORDS, OTHER_WORDS, band_reads_as_vietnamese
from ocrqueue.documents.ocr.engine_choice import languages_to_ask
from ocrqueue.documents.scripts import SCRIPT_MODELS, script_read_by

OSD_DPI = 200
OSD_SIDE_IN = 3.0
OSD_MIN_CONFIDENCE = 1.5
OSD_SURE = 5.0
OSD_REPEATS = 6
# Squares of the ink asked for the script of a page lying as OSD did not believe (``_upright_answer``).
TILES = 6
# Answers a script needs among those squares to be worth a reading in the second look
# (``other_scripts``); the whole ink's or the densest square's answer alone counts as that many.
# One square's stray answer on dev pages of Gujarati (no model; OSD said Thai or Cyrillic) named
# Japanese, Thai or Cyrillic, and each cost a reading of the page (RapidOCR's for Japanese).
SQUARE_VOTES = 2
# The band read with ``eng`` before OSD is asked (``plainly_english``): a few lines of body text.
PROBE_HEIGHT_IN = 0.6
PROBE_ENGLISH_WORDS = 6
PROBE_ENGLISH_SHARE = 0.1
# A band that reads this well with ``eng`` as it lies (mean word confidence) may be upright although
# OSD weakly says 180 degrees (``_band_reads_upright``).
BAND_READ_WELL = 0.6
# How much surer (mean word confidence) the densest square must read as it lies than turned for an
# answer of 180 degrees not to be taken (``_square_reads_upright_in``): 0.23-0.31 on a dev Greek
# table page OSD turned wrongly; pages it turned rightly read 0.16-0.37 surer turned.
UPRIGHT_MARGIN = 0.1
# Rows of the band within this share of its rows' range of ink from the lightest may be its cut.
LIGHTEST_SLACK = 0.05
# OSD's names that are not those of documents/scripts.py's table.
OSD_NAMES = {"Japanese": "Han", "Hiragana": "Han", "Katakana": "Han", "Korean": "Hangul", "Fraktur": "Latin"}


@dataclass(frozen=True)
class FirstLook:
    rotation: int  # degrees clockwise the page was turned to stand upright
    scripts: tuple[str, ...]  # the script it holds; () when nothing could be told


def turn(image: Image.Image, rotation: int) -> Image.Image:
    """``image`` turned clockwise by ``rotation`` (0, 90, 180 or 270) degrees."""
    transpose = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}
    return image.transpose(transpose[rotation]) if rotation else image


def look(image: Image.Image, dpi: int, detector: OrientationDetector | None, english_first: bool = True) -> FirstLook:
    """``english_first``: the detector may read a band of the page (``plainly_english``) before
    OSD; off when another engine reads the page, so that of the detector only OSD runs."""
    if detector is None:
        return FirstLook(0, ())
    gray = image if image.mode == "L" else image.convert("L")
    box = _ink_box(gray)
    if box is None:
        return FirstLook(0, ())
    if english_first:
        band = band_words(detector, gray, box, dpi, enough=plainly_english)
        if plainly_english(band):
            return FirstLook(0, ("Latin",))
        if band_reads_as_vietnamese(band) and SCRIPT_MODELS["Vietnamese"].model in detector.capabilities.languages:
            return FirstLook(0, ("Vietnamese",))
    side = round(OSD_SIDE_IN * dpi)
    middle = _middle(box, side)
    found = _osd(detector, gray.crop(middle), dpi)
    answers = [found]
    runs_down = _lines_run_down(gray, box)
    if found is None or not _taken_at_once(found, runs_down):
        densest = _densest(gray, box, side)
        other = _osd(detector, gray.crop(densest), dpi) if densest != middle else None
        answers.append(other)
        if other is not None and (found is None or other.confidence > found.confidence):
            found = other
    if found is None and middle != box:
        # Too little text in the middle (a page of three lines of Arabic): the whole ink box.
        found = _osd(detector, gray.crop(box), dpi)
    scripts_only = found is None and (box[3] - box[1]) * 2 <= side
    if scripts_only:
        # Too little text for OSD at all (two lines): the ink box repeated down a taller image
        # tells the script; the orientation that repetition makes surer is not taken.
        found = _osd(detector, _repeated(gray.crop(box), side), dpi)
    if found is None:
        found = _osd_shrunk(detector, gray, box, round(OSD_SIDE_IN * OSD_DPI))
    if found is None:
        return FirstLook(0, ())
    agrees = (found.rotation in (90, 270)) == runs_down
    sure = not scripts_only and (found.confidence >= OSD_SURE or (found.confidence >= OSD_MIN_CONFIDENCE and agrees))
    read_upright = (
        sure
        and found.rotation == 180
        and found.confidence < OSD_SURE
        and english_first
        and _band_reads_upright(detector, gray, box, dpi)
    )
    script = osd_script(found.script)
    script_upright = (
        sure
        and not read_upright
        and found.rotation == 180
        and english_first
        and script not in ("Latin", "Han")
        and _square_reads_upright_in(detector, gray, box, dpi, script)
    )
    sure = sure and not read_upright and not script_upright
    rotation = found.rotation if sure else 0
    if not detector.capabilities.detects_script:
        return FirstLook(rotation, ())
    if script_upright:
        return FirstLook(0, (script,))
    if not scripts_only and found.rotation != rotation:
        upright = _upright_answer(detector, gray, box, dpi, [a for a in answers if a is not None])
        if upright is None and read_upright:
            return FirstLook(0, ())
        found = upright or found
    return FirstLook(rotation, (osd_script(found.script),))


def _taken_at_once(found: Orientation, lines_run_down: bool) -> bool:
    """Whether OSD's answer on the middle square is taken without asking the densest square too:
    one of ``OSD_SURE`` or more; or an upright one of ``OSD_MIN_CONFIDENCE`` or more that agrees
    with the page's lines running across and names a script other than Latin and Han (with
    Japanese). OSD names Latin for scripts it reads poorly (a dev Thai scan and a Gujarati one,
    whose densest squares it called Thai), and Han or Japanese for a square of a Chinese LaTeX
    page whose code it calls Latin elsewhere; every other script it named so upright on the dev
    pages (scripts and pages corpora, clean and scanned, upright and turned by 180 degrees), it
    named on the densest square too, or less surely: that square cost 0.26-0.32 s of one core on
    dev Greek and Cyrillic scans for the same first look."""
    if found.confidence >= OSD_SURE:
        return True
    if found.rotation != 0 or found.confidence < OSD_MIN_CONFIDENCE:
        return False
    return osd_script(found.script) not in ("Latin", "Han") and not lines_run_down


def _upright_answer(
    detector: OrientationDetector, gray: Image.Image, box: tuple[int, int, int, int], dpi: int, asked: list[Orientation]
) -> Orientation | None:
    """OSD's answer for a page it was not believed about and that is kept as it lies: OSD names
    the script it sees at the turn it finds, so a script named for a page it takes to lie on its
    side is one of letters seen sideways. On Chromium-printed Korean help pages scanned (dev,
    other scan seeds), its answers in the middle square were Bengali, Devanagari, Cyrillic or
    Arabic turned 270 or 90 degrees, at 1.7 to 3.3 (not sure, against the lines running across:
    not taken), and the page was read for that script (CER 0.75-0.81, or 32 s of readings for
    the second look to find Hangul); its answers upright were Korean nearly always. The surest
    answer upright among those asked counts; with none, ``TILES`` squares of the ink are asked,
    the script named upright by most of them (then the surest) counts. None: no answer upright."""
    upright = [a for a in asked if a.rotation == 0]
    if not upright:
        side = round(OSD_SIDE_IN * dpi)
        answers = (_osd(detector, gray.crop(tile), dpi) for tile in _tiles(box, side)[:TILES])
        upright = [a for a in answers if a is not None and a.rotation == 0]
        if not upright:
            return None
        votes: dict[str, int] = {}
        for a in upright:
            votes[a.script] = votes.get(a.script, 0) + 1
        upright = [a for a in upright if votes[a.script] == max(votes.values())]
    return max(upright, key=lambda a: a.confidence)


def _tiles(box: tuple[int, int, int, int], side: int) -> list[tuple[int, int, int, int]]:
    """``side``-pixel squares across ``box``, row by row (the last of a row or column clipped)."""
    x0, y0, x1, y1 = box
    return [
        (x, y, min(x1, x + side), min(y1, y + side))
        for y in range(y0, max(y0 + 1, y1 - side // 2), side)
        for x in range(x0, max(x0 + 1, x1 - side // 2), side)
    ]


def other_scripts(
    image: Image.Image, dpi: int, detector: OrientationDetector | None, seen: str, squares: bool = False
) -> tuple[str, ...]:
    """The scripts other than ``seen`` (the first look's) that the detector names upright on the
    upright page's whole ink or its densest square, or (``squares``: the reading was poor) on two
    or more of up to ``TILES`` 3-inch squares across its ink (``SQUARE_VOTES``; each square costs
    about 0.3 s of OSD), most often named first: a second look for a page
    whose reading does not hold the script it was read for. OSD's script is least sure on Hebrew
    (script confidence 1 to 6 on the dev pages of gedit's and the GNOME control centre's Hebrew
    messages): one of them was called Thai on its middle and its densest square, Hebrew on its
    whole ink; on the dev Hebrew pages (clean and two scan seeds) one to four squares of each were
    called Hebrew (two or more on 14 of 15), zero to three Thai. An answer at another turn names
    letters seen sideways (``_upright_answer``) and does not count."""
    if detector is None or not detector.capabilities.detects_script:
        return ()
    gray = image if image.mode == "L" else image.convert("L")
    box = _ink_box(gray)
    if box is None:
        return ()
    side = round(OSD_SIDE_IN * dpi)
    whole = list(dict.fromkeys([box, _densest(gray, box, side)]))
    across = [tile for tile in _tiles(box, side)[:TILES] if tile not in whole] if squares else []
    votes: dict[str, int] = {}
    for crop in [*whole, *across]:
        answer = _osd(detector, gray.crop(crop), dpi)
        if answer is not None and answer.rotation == 0:
            script = osd_script(answer.script)
            votes[script] = votes.get(script, 0) + (SQUARE_VOTES if crop in whole else 1)
    ranked = sorted(votes, key=lambda script: -votes[script])
    return tuple(script for script in ranked if script != seen and votes[script] >= SQUARE_VOTES)


def band_words(
    reader: OcrEngine,
    gray: Image.Image,
    box: tuple[int, int, int, int],
    dpi: int,
    enough: Callable[[list[str]], bool] | None = None,
) -> list[str]:
    """The words of a band of a few lines across the middle of the ink, read with ``eng`` (none
    when ``eng`` is not installed): the first look's cheap reading (``plainly_english``, and
    accents.band_reads_as_vietnamese). The band is read in two parts, cut at its lightest row
    about its middle (between two lines of text); when the upper part's words are ``enough``,
    the lower part is not read: on the dev English scans the upper part alone was plainly English
    on every page the whole band was but one, and cost 0.05-0.11 s of one core of the whole
    band's 0.11-0.17 s."""
    if "eng" not in reader.capabilities.languages:
        return []
    x0, top, x1, bottom = _band(box, dpi)
    cut = _lightest_row(gray, (x0, top, x1, bottom))
    if cut is None:
        return _read_band(reader, gray, (x0, top, x1, bottom), dpi)
    words = _read_band(reader, gray, (x0, top, x1, cut), dpi)
    if enough is not None and enough(words):
        return words
    return words + _read_band(reader, gray, (x0, cut, x1, bottom), dpi)


def _band(box: tuple[int, int, int, int], dpi: int) -> tuple[int, int, int, int]:
    """The band ``PROBE_HEIGHT_IN`` tall across the middle of the ink ``box`` (pixels)."""
    x0, y0, x1, y1 = box
    middle, half = (y0 + y1) // 2, round(PROBE_HEIGHT_IN * dpi) // 2
    return x0, max(y0, middle - half), x1, min(y1, middle + half)


def _band_reads_upright(detector: OcrEngine, gray: Image.Image, box: tuple[int, int, int, int], dpi: int) -> bool:
    """Whether the band across the middle of the ink reads well with ``eng`` as it lies (mean word
    confidence ``BAND_READ_WELL`` or more) and better than turned by 180 degrees: asked when OSD's
    answer of 180 is weak, which it gave at 1.8 for an upright form in capitals (H, I, N, O, S, X
    and Z read the same either way up; its band 0.68 as it lies, 0.43 turned), and the page was
    read upside down as Chinese. A page in another script reads poorly with ``eng`` either way (a
    Chinese page 0.30 and 0.31) and is turned as OSD says."""
    if "eng" not in detector.capabilities.languages:
        return False
    band = gray.crop(_band(box, dpi))
    as_it_lies = _mean_confidence(detector, band, dpi)
    if as_it_lies < BAND_READ_WELL:
        return False
    return as_it_lies > _mean_confidence(detector, band.transpose(Image.Transpose.ROTATE_180), dpi)


def _square_reads_upright_in(
    detector: OcrEngine, gray: Image.Image, box: tuple[int, int, int, int], dpi: int, script: str
) -> bool:
    """Whether the square of the ink holding the most ink reads better as it lies than turned by
    180 degrees (mean word confidence, by ``UPRIGHT_MARGIN`` or more) with the models a page of
    ``script`` (the one OSD named) is read with: asked when OSD says 180 for a script other than
    Latin and Han, however sure (no model of it installed: False). OSD was sure at 7-13 that a dev
    page of Greek table rows ("Αἀα Αἁα ...": capitals and alphas under breathings and accents)
    stood upside down, upright and scanned (greek-utf8 p. 7), and that it stood upright once
    turned. Its densest square reads with Greek and Latin at 0.74 / 0.70 (clean / scan) as it lies
    and 0.43 / 0.47 turned, and, the page turned, 0.47 against 0.75; the dev pages OSD rightly
    called upside down where a band of a few lines misled (two Greek table pages, a Persian
    calculus page: the band read better as it lay) read 0.40-0.53 as they lay, 0.61-0.90 turned."""
    languages = languages_to_ask((script,), detector.capabilities.languages)
    if script_read_by(languages[0]) != script:
        return False
    square = gray.crop(_densest(gray, box, round(OSD_SIDE_IN * dpi)))
    as_it_lies = _mean_confidence(detector, square, dpi, languages)
    turned = _mean_confidence(detector, square.transpose(Image.Transpose.ROTATE_180), dpi, languages)
    return as_it_lies >= turned + UPRIGHT_MARGIN


def _mean_confidence(reader: OcrEngine, image: Image.Image, dpi: int, languages: tuple[str, ...] = ("eng",)) -> float:
    out = reader.recognize(image, RecognitionRequest(languages, "text", dpi))
    confidences = [w.confidence for ln in out.lines for w in ln.words if w.confidence is not None]
    return sum(confidences) / len(confidences) if confidences else 0.0


def _lightest_row(gray: Image.Image, band: tuple[int, int, int, int]) -> int | None:
    """The row of ``band`` (page pixels) nearest its middle among those of its middle half with
    the least ink (within ``LIGHTEST_SLACK`` of the range of its rows' ink: a scan's paper is not
    one grey), or None when the band is too short to cut."""
    x0, top, x1, bottom = band
    if bottom - top < 8 or x1 <= x0:
        return None
    low, high = top + (bottom - top) // 4, bottom - (bottom - top) // 4
    darkness = (255 - np.asarray(gray.crop((x0, low, x1, high)), dtype=np.int64)).sum(axis=1)
    least, most = int(darkness.min()), int(darkness.max())
    rows = np.flatnonzero(darkness <= least + LIGHTEST_SLACK * (most - least)) + low
    return int(rows[np.argmin(np.abs(rows - (top + bottom) // 2))])


def _read_band(reader: OcrEngine, gray: Image.Image, band: tuple[int, int, int, int], dpi: int) -> list[str]:
    out = reader.recognize(gray.crop(band), RecognitionRequest(("eng",), "text", dpi))
    return [w.text for ln in out.lines for w in ln.words]


def plainly_english(band: list[str]) -> bool:
    """Whether the band's words (``band_words``) are upright English prose: ``PROBE_ENGLISH_WORDS``
    or more of English's commonest words (accents.py), at least ``PROBE_ENGLISH_SHARE`` of the
    words read, and more of them than of other languages'. Such a page needs no OSD (0.22-0.28 s
    of one core on a 200-dpi scan; the band 0.11-0.22 s). On the dev scans (bench/ocr_cost.py
    pages: every Latin page at 0, 90 and 180 degrees, two pages of every other script) the
    English prose pages had 7-17 such words, every other reading 3 or fewer: pages turned, in
    other scripts, or of code and figures, which OSD looks at as before."""
    words = [w.strip(".,;:!?()[]\"'").lower() for w in band]
    english = sum(1 for w in words if w in ENGLISH_WORDS)
    other = sum(1 for w in words if w in OTHER_WORDS)
    return english >= PROBE_ENGLISH_WORDS and english >= PROBE_ENGLISH_SHARE * len(words) and english > other


def _osd_shrunk(
    detector: OrientationDetector, gray: Image.Image, box: tuple[int, int, int, int], side: int
) -> Orientation | None:
    """The detector's answer on the whole of ``box`` shrunk to ``side`` pixels: on a slide's large
    type no 3-inch square holds enough letters (a dev slide: no answer in the middle or the densest
    square, its right turn at 3.2 to 4.3 from the whole page shrunk; on two figure pages it gave
    none or under 0.7, so nothing is turned there)."""
    width, height = box[2] - box[0], box[3] - box[1]
    factor = side / max(width, height)
    if factor >= 1:
        return None  # the page is no bigger than a square already looked at
    crop = gray.crop(box).resize((max(1, round(width * factor)), max(1, round(height * factor))), Image.Resampling.BOX)
    return detector.orientation(crop, OSD_DPI)


def _osd(detector: OrientationDetector, crop: Image.Image, dpi: int) -> Orientation | None:
    """The detector's answer on ``crop`` of the page, at OSD_DPI or less."""
    if dpi > OSD_DPI:
        crop = crop.resize((crop.width * OSD_DPI // dpi, crop.height * OSD_DPI // dpi), Image.Resampling.BILINEAR)
    return detector.orientation(crop, min(dpi, OSD_DPI))


def _repeated(crop: Image.Image, height: int) -> Image.Image:
    """``crop`` repeated downwards until it is ``height`` tall (at most ``OSD_REPEATS`` times)."""
    times = max(2, min(OSD_REPEATS, -(-height // max(1, crop.height))))
    tall = Image.new("L", (crop.width, crop.height * times), 255)
    for i in range(times):
        tall.paste(crop, (0, i * crop.height))
    return tall


def osd_script(name: str) -> str:
    """The script of documents/scripts.py's table that OSD's ``name`` stands for."""
    name = OSD_NAMES.get(name, name)
    return name if name in SCRIPT_MODELS else "Latin"


def _middle(box: tuple[int, int, int, int], side: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    cx, cy, half = (x0 + x1) // 2, (y0 + y1) // 2, side // 2
    return max(x0, cx - half), max(y0, cy - half), min(x1, cx + half), min(y1, cy + half)


def _lines_run_down(gray: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Text lines leave blank rows of paper between them: across the ink's box, a page standing
    upright has many blank rows and few blank columns (a gutter or two), a page on its side the
    reverse (0.2-0.6 against 0.0-0.15 on the evaluation's pages)."""
    x0, y0, x1, y1 = box
    dark = _dark(np.asarray(gray)[y0:y1:2, x0:x1:2])
    blank_rows = float((dark.mean(axis=1) <= 0.01).mean())
    blank_cols = float((dark.mean(axis=0) <= 0.01).mean())
    return blank_cols >= 0.1 and blank_cols > blank_rows + 0.05


def _densest(gray: Image.Image, box: tuple[int, int, int, int], side: int) -> tuple[int, int, int, int]:
    """The ``side``-pixel square inside ``box`` holding the most dark pixels (looked for on every
    fourth pixel), clipped to ``box``."""
    x0, y0, x1, y1 = box
    dark = _dark(np.asarray(gray)[y0:y1:4, x0:x1:4]).view(np.uint8)
    rows, cols = dark.shape
    h, w = min(rows, max(1, side // 4)), min(cols, max(1, side // 4))
    sums = cv2.integral(dark)
    windows = sums[h:, w:] - sums[:-h, w:] - sums[h:, :-w] + sums[:-h, :-w]
    top, left = np.unravel_index(int(np.argmax(windows)), windows.shape)
    return x0 + int(left) * 4, y0 + int(top) * 4, min(x1, x0 + (int(left) + w) * 4), min(y1, y0 + (int(top) + h) * 4)


def _ink_box(gray: Image.Image) -> tuple[int, int, int, int] | None:
    """The box around the page's dark pixels (looked for on every fourth pixel), or None for a blank page."""
    cells = marked_box(_dark(np.asarray(gray)[::4, ::4]), min_marks=2)
    return None if cells is None else cells_to_pixels(cells, 4, 0, (gray.height, gray.width))


def _dark(pixels: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Pixels darker than the page's paper: the page is not straightened yet, so there is no ink
    threshold of its own (layout/straighten.py) to use."""
    return pixels < min(160, int(pixels.mean()) - 40)
