"""Which script the first look names, and how each script reads, on pages of real translated prose.

Every page holds 14 sentences of one language drawn (seeded) from one of Debian's message
catalogs in /usr/share/locale (apt, glib, GTK, …: sentences translators wrote), drawn with the
script's Debian font (tests/data/script_pages.py) at 200 dpi. A catalog is a document: catalogs
are split into ``dev`` and ``test`` by the parity of their place in the sorted list of a language's
usable catalogs, so no sentence of a test page is ever tuned on. For each page it prints what OSD
alone names (the first look), the scripts the page is recorded with after the second look, the
languages read with, CER against the sentences, and the mean word confidence.

    python bench/script_pages.py --split dev [--languages Cyrillic+Latin] [--lang rus,ell]
"""

from __future__ import annotations

import argparse
import gettext
import io
import json
import random
import re
import sys
import time
import unicodedata
from pathlib import Path

from rapidfuzz.distance import Levenshtein

# In place of this folder, whose queue.py would hide the standard library's.
sys.path[0] = str(Path(__file__).resolve().parent.parent / "tests" / "data")

from script_pages import DPI, script_page  # noqa: E402

from ocrqueue.documents import DocumentLimits, ProcessOptions, open_document, process_page  # noqa: E402
from ocrqueue.documents.ocr.detect import look  # noqa: E402
from ocrqueue.documents.ocr.engine_choice import first_look_engine  # noqa: E402
from ocrqueue.documents.scripts import scripts_in  # noqa: E402

# Language (Tesseract code) -> (locale folder, script).
LANGUAGES = {
    "rus": ("ru", "Cyrillic"),
    "ukr": ("uk", "Cyrillic"),
    "bul": ("bg", "Cyrillic"),
    "ell": ("el", "Greek"),
    "kor": ("ko", "Hangul"),
    "jpn": ("ja", "Japanese"),
    "tha": ("th", "Thai"),
    "ara": ("ar", "Arabic"),
    "fas": ("fa", "Arabic"),
    "heb": ("he", "Hebrew"),
    "hin": ("hi", "Devanagari"),
    "vie": ("vi", "Vietnamese"),
    "hye": ("hy", "Armenian"),
    "kat": ("ka", "Georgian"),
    "fra": ("fr", "Latin"),
    "deu": ("de", "Latin"),
}
SENTENCES = 14
SKIP = re.compile(r"[%\\<>{}\[\]_=|@$\n\t&*/]")


def catalogs(locale: str, script: str) -> dict[str, list[str]]:
    """Usable sentences (45-75 characters, no markup or placeholders, mostly in ``script``: some
    catalogs leave strings untranslated) per catalog of ``locale``."""
    found: dict[str, list[str]] = {}
    for path in sorted(Path("/usr/share/locale", locale, "LC_MESSAGES").glob("*.mo")):
        if path.stem.startswith(("iso_", "xkeyboard")):
            continue
        with path.open("rb") as handle:
            catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
        sentences = sorted({v for k, v in catalog.items() if k and isinstance(v, str) and 45 <= len(v) <= 75})
        sentences = [s for s in sentences if not SKIP.search(s) and scripts_in(s)[:1] == (script,)]
        if len(sentences) >= SENTENCES:
            found[path.stem] = sentences
    return found


def pages(language: str, split: str, per_split: int) -> list[tuple[str, list[str]]]:
    locale, script = LANGUAGES[language]
    usable = catalogs(locale, script)
    names = [name for i, name in enumerate(sorted(usable)) if (i % 2 == 0) == (split == "dev")]
    random.Random(f"{language}-{split}").shuffle(names)
    chosen = []
    for name in names[:per_split]:
        rng = random.Random(f"{language}-{name}")
        chosen.append((name, rng.sample(usable[name], SENTENCES)))
    return chosen


def cer(truth: str, read: str, joiner: str = " ") -> float:
    """Character error rate of ``read`` against ``truth``, NFC, whitespace runs as ``joiner``
    ("": spaces ignored, the letters alone, for scripts written without spaces between words)."""
    a = unicodedata.normalize("NFC", joiner.join(truth.split()))
    b = unicodedata.normalize("NFC", joiner.join(read.split()))
    return Levenshtein.distance(a, b) / max(1, len(a))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--lang", default=",".join(LANGUAGES))
    parser.add_argument("--languages", default="auto", help="read with these (+-joined) instead of auto")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--per-split", type=int, default=2, help="documents (catalogs) per language and split")
    args = parser.parse_args()
    options = ProcessOptions(engine=args.engine, languages=tuple(args.languages.split("+")), tables=False)
    detector = first_look_engine(ProcessOptions())
    for language in args.lang.split(","):
        _, script = LANGUAGES[language]
        for name, sentences in pages(language, args.split, args.per_split):
            image = script_page(sentences, script)
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", dpi=(DPI, DPI))
            path = Path("/tmp") / f"script-page-{language}-{name}.png"
            path.write_bytes(buffer.getvalue())
            osd = detector.orientation(image.convert("L"), DPI) if detector is not None else None
            first = look(image, DPI, detector)
            started = time.perf_counter()
            with open_document(path, DocumentLimits()) as document:
                page = process_page(next(iter(document.select([0]))), options)
            seconds = time.perf_counter() - started
            text = "\n".join(ln.text for b in page.blocks for ln in b.lines)
            words = [w.confidence for b in page.blocks for ln in b.lines for w in ln.words if w.confidence is not None]
            row = {
                "language": language,
                "script": script,
                "document": name,
                "osd_whole_page": None if osd is None else f"{osd.script} {osd.script_confidence:.1f}",
                "first_look": first.scripts,
                "scripts": page.scripts,
                "languages": page.languages,
                "source": page.source,
                "cer": round(cer("\n".join(sentences), text), 3),
                "cer_letters": round(cer("\n".join(sentences), text, ""), 3),
                "confidence": round(sum(words) / len(words), 2) if words else None,
                "warnings": page.warnings,
                "seconds": round(seconds, 1),
            }
            print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
