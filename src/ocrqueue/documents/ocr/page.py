"""The OCR path's stages: a page rendered and recognised by an OCR engine.

The page is rendered, looked at once cheaply (detect.py: which way up, which scripts), turned
upright, straightened, its ruling lines found, and read by the engine and languages chosen for it
(engine_choice.py): either the engine reads the whole page once and its words are split by layout
(whole_page.py, classic OCR engines), or each layout region is cropped and read on its own
(by_region.py, engines whose capabilities say ``reads_regions``, such as vision models). A page read as Latin that
holds Chinese is read again as Chinese; one read with English that shows accents, again with the
model for the whole Latin script (accents.py); a page whose reading holds another script than the
one it was read for, again with that script's model (script_recheck.py); a script without a model,
or a reading of very low confidence, is said in the page's warnings. Boxes are converted from pixels back to
points so both the OCR and the text-layer path share one coordinate frame: that of the page as
read, upright, until the page's result puts them on the page as delivered (documents/turns.py).
pipeline.py runs these stages in order (``OCR_PATH``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace

from ocrqueue.documents.engines import OcrEngine, engine_capabilities, get_engine
from ocrqueue.documents.layout.raster import PageLayout, find_rules
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.layout.vertical import ink_in_columns, is_column, is_vertical, vertical_blocks
from ocrqueue.documents.model import Block
from ocrqueue.documents.ocr.accents import needs_latin_model, reads_as_vietnamese
from ocrqueue.documents.ocr.arabic_language import (
    ARABIC_LANGUAGE,
    PERSIAN_LANGUAGE,
    arabic_language_models,
    page_language,
    persian_language_models,
)
from ocrqueue.documents.ocr.assemble import Figures, OcrPage
from ocrqueue.documents.ocr.by_region import read_regions
from ocrqueue.documents.ocr.detect import look, other_scripts, turn
from ocrqueue.documents.ocr.engine_choice import (
    LANGUAGE_MODEL_SURE,
    by_language_models,
    choose,
    first_look_engine,
    language_models,
    missing_models,
    with_latin_model,
)
from ocrqueue.documents.ocr.line_scripts import reread_foreign_lines
from ocrqueue.documents.ocr.script_recheck import (
    HAN,
    POOR_READING,
    holds_han,
    holds_script,
    low_confidence,
    mean_word_confidence,
    read_for_another_script,
    script_of_poor_lines,
    script_share,
    script_to_reread,
)
from ocrqueue.documents.ocr.unseen_scripts import AloneReadings, unseen_script, unseen_warning
from ocrqueue.documents.ocr.whole_page import read_whole_page, start_layout
from ocrqueue.documents.options import AUTO
from ocrqueue.documents.scripts import script_read_by, scripts_in
from ocrqueue.documents.stages import PageContext, needed, stage

# Scripts whose capitals OSD takes Latin capitals for (A, B, E, H, K, M, O, P, T, X).
LATIN_LOOKALIKES = frozenset({"Cyrillic", "Greek"})


@stage("ocr.render")
def render(context: PageContext) -> None:
    """Reads the page and options.dpi; adds the raster (and a warning when it had to be coarser)."""
    raster = context.page.render(context.options.dpi)
    if raster.lowered_from is not None:
        context.warn(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    context.raster = raster


@stage("ocr.detect")
def detect(context: PageContext) -> None:
    """Reads the raster; adds the rotation and scripts of a first look, and turns the raster upright.
    The first look reads a band with ``eng`` before OSD only when the engine that took it may read
    the page (engine auto or named). The render is let go once turned: held beside the turned
    copy, a page lying on its side would keep two colour copies while it is read."""
    raster = needed(context.raster, "raster")
    detector = first_look_engine(context.options)
    english_first = context.options.engine in (AUTO, detector.name if detector is not None else None)
    first = look(raster.image, raster.dpi, detector, english_first)
    if first.rotation:
        context.warn(_turned(first.rotation))
    context.rotation, context.scripts = first.rotation, first.scripts
    context.raster = replace(raster, image=turn(raster.image, first.rotation))


@stage("ocr.straighten")
def straighten(context: PageContext) -> None:
    """Reads the upright raster; adds the straightened page (and a warning when it was tilted)."""
    raster = needed(context.raster, "raster")
    straight = deskew(raster.image, raster.dpi)
    if straight.angle:
        context.warn(f"straightened by {straight.angle:.2f} degrees")
    context.straight = straight


@stage("ocr.rules")
def rules(context: PageContext) -> None:
    """Reads the straightened page and options.tables; adds its ruling lines (None: no tables wanted)."""
    straight = needed(context.straight, "straightened page")
    context.rules = find_rules(straight, needed(context.dpi, "dpi")) if context.options.tables else None


@stage("ocr.choose_engine")
def choose_engine(context: PageContext) -> None:
    """Reads the scripts and options.engine and languages; adds the engine and languages to read
    with: on a page set in vertical columns, each language's vertical model beside it where the
    engine has one (Tesseract's Japanese_vert beside Japanese: the horizontal model alone reads such
    a page as garbage, CER 0.99); and a warning for each script found that no installed model reads."""
    engine, languages = _chosen(context, context.scripts)
    languages = _arabic_script_languages(context, engine, languages)
    by_language = language_models(languages, engine.capabilities.languages)
    if by_language is not None and context.options.languages == (AUTO,):
        languages = by_language
    vertical = with_vertical_models(languages, engine.capabilities.languages)
    if vertical != languages and ink_in_columns(needed(context.straight, "straightened page").ink):
        languages = vertical
    context.engine, context.languages = engine, languages
    for warning in missing_models(context.options, engine.name, context.scripts):
        context.warn(warning)


def _arabic_script_languages(context: PageContext, engine: OcrEngine, languages: tuple[str, ...]) -> tuple[str, ...]:
    """``languages`` led by the Arabic script model, with no languages named: with the model of
    the language the straightened page's letters read with the Arabic model are in, Arabic
    (``Arabic+ara``) or Persian (``Arabic+fas+eng``), where installed; else ``languages``."""
    offered = engine.capabilities.languages
    arabic, persian = arabic_language_models(languages, offered), persian_language_models(languages, offered)
    if not (arabic or persian) or context.options.languages != (AUTO,):
        return languages
    straight, raster = needed(context.straight, "straightened page"), needed(context.raster, "raster")
    language = page_language(engine, straight.image, straight.content, raster.dpi)
    chosen = arabic if language == ARABIC_LANGUAGE else persian if language == PERSIAN_LANGUAGE else None
    return chosen or languages


@stage("ocr.read")
def read(context: PageContext) -> None:
    """Reads the straightened page, rules, engine and languages; adds the blocks and figure crops.
    A page read with a language's model (``engine_choice.LANGUAGE_MODELS``) under
    ``LANGUAGE_MODEL_SURE`` is read again with its script's model, and that reading kept: the
    first look may have named the script wrongly, and only the script model's poor reading lets
    recheck_script find the page's own."""
    engine = needed(context.engine, "engine")
    blocks, figures = _read(context, engine, context.languages)
    if by_language_models(context.languages) and (mean_word_confidence(blocks) or 0.0) < LANGUAGE_MODEL_SURE:
        _, context.languages = _chosen(context, context.scripts)
        blocks, figures = _read(context, engine, context.languages)
    context.source, context.blocks, context.images = engine.name, blocks, figures.images


@stage("ocr.recheck_script")
def recheck_script(context: PageContext) -> None:
    """Reads the blocks and scripts; adds a reading with another script's model when a page read
    as Latin has poorly read lines in that script (OSD on them), else a reading as Chinese when it
    holds Chinese (asked second: Tesseract's Chinese model reads Persian lines as Han, and a dev
    Persian page was read again whole by RapidOCR, 3.5 s of one core, before its Arabic was
    found), a reading with the model of a script OSD cannot see when a page read poorly is in it
    (ocr/unseen_scripts.py: turned by 180 degrees when its lines read well only so), a reading with
    another script's model when the reading's letters are of that script (Vietnamese read as
    Latin), a reading by the engine ranked first for a script set vertically (Japanese,
    engine_choice.VERTICAL_RANKING), the scripts read, and a warning when the reading's confidence
    is very low (when 40 % of the lines or more read poorly, saying so; naming the unseen scripts whose models are
    missing when most of the page's text did).
    A page whose script's missing model is named already is left as read: read again as Chinese,
    dev Tamil and Telugu pages came back as Han with no doubt left but the missing model."""
    straight, raster = needed(context.straight, "straightened page"), needed(context.raster, "raster")
    options, unseen_warned = context.options, None
    read_alone: AloneReadings = {}
    if not missing_models(options, needed(context.engine, "engine").name, context.scripts):
        if not _poor_lines_reread(context) and not _han_reread(context):
            unseen = unseen_script(
                straight.image, raster.scale, context.blocks, options, context.scripts, context.languages, read_alone
            )
            if unseen is not None:
                confidence = mean_word_confidence(context.blocks)
                _reread(context, (unseen.script,), _surer(unseen.script, confidence), flip=unseen.flipped)
            scripts = script_to_reread(options, _text(context.blocks), context.languages)
            if scripts is not None:
                _reread(context, scripts, lambda again, _: scripts[0] in again)
            elif read_for_another_script(options, context.scripts, _text(context.blocks)):
                _second_look(context)
            unseen_warned = unseen_warning(
                straight.image, raster.scale, context.blocks, options, context.scripts, context.languages, read_alone
            )
        context.scripts = scripts_in(_text(context.blocks)) or context.scripts
    vertical = _vertical_script_elsewhere(context)
    if vertical is not None:
        _reread(context, vertical, lambda again, blocks: vertical[0] in again and _in_columns(blocks), vertical=True)
    warning = unseen_warned or low_confidence(context.blocks)
    if warning is not None:
        context.warn(warning)


@stage("ocr.line_scripts")
def line_scripts(context: PageContext) -> None:
    """Reads the blocks and languages; adds each line in a script the page was not read for as
    read by that script's model, in its place (ocr/line_scripts.py: a letter in six scripts, an
    English page quoting Russian), and those models to the languages and scripts. Only when
    languages are auto, for an engine asked for languages, on a page not set in columns."""
    engine = needed(context.engine, "engine")
    capabilities = engine_capabilities(engine.name)
    detector = first_look_engine(context.options)
    if context.options.languages != (AUTO,) or capabilities is None or not capabilities.languages:
        return
    if detector is None or not detector.capabilities.detects_script or _in_columns(context.blocks):
        return
    straight, raster = needed(context.straight, "straightened page"), needed(context.raster, "raster")
    ink = straight.ink if context.rules is None else straight.ink & ~context.rules.mask
    blocks, added = reread_foreign_lines(straight.image, ink, raster.scale, context.blocks, context.languages, detector)
    if added:
        context.blocks, context.languages = blocks, (*context.languages, *added)
        context.scripts = scripts_in(_text(blocks)) or context.scripts


def _han_reread(context: PageContext) -> bool:
    """A page read as Latin that holds Chinese or Japanese (script_recheck.holds_han): read again
    as Chinese, kept (True) when that reading holds either."""
    straight, raster = needed(context.straight, "straightened page"), needed(context.raster, "raster")
    han = holds_han(straight.image, raster.scale, list(context.blocks), context.options, context.scripts)
    return han and _reread(context, HAN, lambda found, _: holds_script("Han", found))


def _poor_lines_reread(context: PageContext) -> bool:
    """A page read as Latin whose poorly read lines OSD takes for another script with a model:
    read again for that script and Latin; kept (True) when that reading holds it and its words
    were read with more confidence (script_recheck.script_of_poor_lines)."""
    straight, raster = needed(context.straight, "straightened page"), needed(context.raster, "raster")
    blocks = list(context.blocks)
    script = script_of_poor_lines(straight.image, raster.scale, blocks, context.options, context.scripts)
    return script is not None and _reread(context, (script, "Latin"), _surer(script, mean_word_confidence(blocks)))


def _second_look(context: PageContext) -> None:
    """A page whose reading does not hold the script the first look gave it: read again for each
    other script (not Latin: a wrong model reads any script as Latin letters) that OSD names
    upright on the page's whole ink, its densest square or, when the reading was poor
    (``POOR_READING``), squares across it (most often named first), until a reading is led by
    that script and holds a larger share of it than the first reading held of its own."""
    if _latin_after_all(context):
        return
    raster = needed(context.raster, "raster")
    detector = first_look_engine(context.options)
    first = script_share(context.scripts[0], _text(context.blocks))
    poor = (mean_word_confidence(context.blocks) or 0.0) < POOR_READING
    for script in other_scripts(raster.image, raster.dpi, detector, context.scripts[0], squares=poor):
        if script != "Latin" and _reread(context, (script,), _better(script, first)):
            return


def _latin_after_all(context: PageContext) -> bool:
    """A page the first look gave a script whose capitals OSD takes Latin ones for
    (``LATIN_LOOKALIKES``) and whose reading with that script's model beside Latin's holds hardly
    any of it: read again as Latin, kept (True) when read well (``POOR_READING``). A form's labels
    in capitals were Cyrillic to OSD, and the Cyrillic model made a few of its English words
    Cyrillic ("ago," as "адо,"). A page in a third script OSD named so (Hebrew read as Latin letters)
    reads poorly as Latin too, and is left to the second look."""
    script = context.scripts[0]
    if script not in LATIN_LOOKALIKES or holds_script(script, scripts_in(_text(context.blocks))):
        return False
    return _reread(context, ("Latin",), lambda found, blocks: found[:1] == ("Latin",) and _read_well(blocks))


def _read_well(blocks: tuple[Block, ...]) -> bool:
    return (mean_word_confidence(blocks) or 0.0) >= POOR_READING


def _surer(script: str, confidence: float | None) -> Callable[[tuple[str, ...], tuple[Block, ...]], bool]:
    """A reading that holds ``script`` (kana or kanji for Japanese and Han, ``SAME_READING``) and
    whose words were read with more confidence."""
    return lambda found, blocks: (
        holds_script(script, found) and (mean_word_confidence(blocks) or 0.0) > (confidence or 0.0)
    )


def _better(script: str, share: float) -> Callable[[tuple[str, ...], tuple[Block, ...]], bool]:
    return lambda found, blocks: found[:1] == (script,) and script_share(script, _text(blocks)) > share


def _vertical_script_elsewhere(context: PageContext) -> tuple[str, ...] | None:
    """The scripts of a page set in vertical columns when they are read otherwise than it was:
    Japanese, whose kana OSD does not see there (it says Han), shows only in a reading, even one
    too poor to come back as columns; it is read better by another engine
    (engine_choice.VERTICAL_RANKING) or, with the engine named, with its own vertical model.
    None otherwise (a script without a vertical model is read as it was), and when languages were
    named."""
    if context.options.languages != (AUTO,):
        return None
    if not ink_in_columns(needed(context.straight, "straightened page").ink):
        return None
    found = scripts_in("\n".join(b.text for b in context.blocks))
    if not found:
        return None
    engine, languages = _chosen(context, found, vertical=True)
    if (engine.name, languages) == (needed(context.engine, "engine").name, context.languages):
        return None
    return found if any(lang.endswith("_vert") for lang in languages) else None


def _in_columns(blocks: tuple[Block, ...]) -> bool:
    return is_vertical([ln for b in blocks for ln in b.lines])


def _reread(
    context: PageContext,
    scripts: tuple[str, ...],
    keep: Callable[[tuple[str, ...], tuple[Block, ...]], bool],
    vertical: bool = False,
    flip: bool = False,
) -> bool:
    """The page read again for ``scripts`` (set in vertical columns: with the vertical models;
    turned by 180 degrees first when ``flip``); that reading kept (True) when ``keep`` says its
    scripts and blocks are right, else the page left as it was."""
    before = (context.rotation, context.raster, context.straight, context.rules, list(context.warnings))
    if flip:
        _flip(context)
    engine, languages = _chosen(context, scripts, vertical)
    blocks, figures = _read(context, engine, languages)
    found = scripts_in(_text(blocks))
    if not keep(found, blocks):
        context.rotation, context.raster, context.straight, context.rules, context.warnings[:] = before
        return False
    context.engine, context.languages, context.scripts = engine, languages, found
    context.source, context.blocks, context.images = engine.name, blocks, figures.images
    return True


def _flip(context: PageContext) -> None:
    """The page turned by 180 degrees more than the first look turned it, straightened and its
    rules found again; the warning that said how it was turned says so."""
    raster = needed(context.raster, "raster")
    context.rotation = (context.rotation + 180) % 360
    context.raster = replace(raster, image=turn(raster.image, 180))
    context.warnings[:] = [w for w in context.warnings if not w.startswith(("turned ", "straightened by "))]
    if context.rotation:
        context.warn(_turned(context.rotation))
    straighten.run(context)
    rules.run(context)


@stage("ocr.recheck_accents")
def recheck_accents(context: PageContext) -> None:
    """Reads the blocks, engine and languages; adds a reading with the Latin script model when a
    page read with English shows another language (ocr/accents.py), or with the Vietnamese model
    when that reading holds many Vietnamese syllables and the Vietnamese model's reading is
    Vietnamese (that is the reading recheck_script would have come to after reading the page with
    the Latin model: a dev Vietnamese scan was read three times, 1.2-1.5 s of one core each). A
    page the first look called Vietnamese (its band, ocr/detect.py) was read with the Vietnamese
    model: it is read with ``eng`` instead, and checked as above, when that reading holds no
    Vietnamese letters. Only when languages are auto: ``eng`` asked for by name is read as asked."""
    engine = needed(context.engine, "engine")
    if context.options.languages != (AUTO,):
        return
    if _vietnamese_kept(context) or not needs_latin_model(context.blocks):
        return
    if reads_as_vietnamese(context.blocks) and _reread(context, VIETNAMESE, lambda found, _: "Vietnamese" in found):
        return
    languages = with_latin_model(context.languages, engine.capabilities.languages)
    if languages is None:
        return
    blocks, figures = _read(context, engine, languages)
    context.languages, context.blocks, context.images = languages, blocks, figures.images


def _vietnamese_kept(context: PageContext) -> bool:
    """Whether the page was read with the Vietnamese model because the first look's band read as
    Vietnamese, and that reading holds Vietnamese letters (True: it stays). One that holds none
    is replaced by the reading with ``eng`` the page would have had."""
    if context.scripts[:1] != ("Vietnamese",) or "eng" in context.languages:
        return False
    return "Vietnamese" in scripts_in(_text(context.blocks)) or not _reread(context, ("Latin",), lambda *_: True)


def _chosen(
    context: PageContext, scripts: tuple[str, ...], vertical: bool = False
) -> tuple[OcrEngine, tuple[str, ...]]:
    """The engine and languages for ``scripts``; set in vertical columns, with the vertical models."""
    engine_name, languages = choose(context.options, scripts, vertical)
    engine = get_engine(engine_name)
    return engine, with_vertical_models(languages, engine.capabilities.languages) if vertical else languages


def _read(context: PageContext, engine: OcrEngine, languages: tuple[str, ...]) -> tuple[tuple[Block, ...], Figures]:
    """The page read by ``engine``: the whole page once with the layout found beside it, or region
    by region for engines that read regions. Text read in vertical columns is read column by
    column, right to left (layout/vertical.py); figures without columns stay."""
    raster, straight = needed(context.raster, "raster"), needed(context.straight, "straightened page")
    height = context.size[1]
    page = OcrPage(context.page.index, height, straight, context.rules, raster.dpi, raster.scale, engine, languages)
    if engine.capabilities.reads_regions:
        blocks, figures = read_regions(page, context.options.layout_model, context.resources)
    else:
        blocks, figures = read_whole_page(page, _layout(context, page))
    lines = [ln for b in blocks for ln in b.lines]
    if is_vertical(lines):
        # The layout model takes a page of columns for a figure: its columns are text.
        kept = [b for b in blocks if b.type == "figure" and not any(map(is_column, b.lines))]
        blocks = [*vertical_blocks([ln for b in blocks if b not in kept for ln in b.lines]), *kept]
    return tuple(blocks), figures


def _layout(context: PageContext, page: OcrPage) -> Future[PageLayout]:
    """The layout of the page as it is straightened and ruled now: found once (beside its first
    reading) and kept for the readings after it; found again when the page was turned (``_flip``)."""
    kept = context.layout
    if kept is None or kept[0] is not page.straight or kept[1] is not page.rules:
        kept = (page.straight, page.rules, start_layout(page, context.options.layout_model, context.resources))
        context.layout = kept
    return kept[2]


# What a page that reads as Vietnamese is read again for (script_recheck.script_to_reread's
# scripts for such a page: Vietnamese, then the Latin of its commands and names).
VIETNAMESE = ("Vietnamese", "Latin")


def _turned(rotation: int) -> str:
    return f"turned {rotation} degrees clockwise to read it upright"


def with_vertical_models(languages: tuple[str, ...], offered: frozenset[str]) -> tuple[str, ...]:
    """``languages`` and, beside each, its vertical model where the engine offers one, without the
    models for Latin then: Latin on a vertical page turns with its columns, and the Latin model
    beside Japanese_vert read one of three Chromium-printed pages as garbage (CER 0.885 against
    0.033 without it; the other two the same or better)."""
    if not any(f"{lang}_vert" in offered for lang in languages):
        return languages
    kept = (lang for lang in languages if script_read_by(lang) != "Latin")
    return tuple(dict.fromkeys(m for lang in kept for m in (lang, f"{lang}_vert") if m in offered or m == lang))


def _text(blocks: tuple[Block, ...]) -> str:
    return "\n".join(ln.text for b in blocks for ln in b.lines)
