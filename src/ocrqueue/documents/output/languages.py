"""Tesseract's language codes (eng, chi_sim, Latin) as BCP 47 tags, which HTML's `lang`, XML's
`xml:lang` and ALTO's `LANG` (xsd:language) require: `chi_sim` is not a tag at all."""

from __future__ import annotations

import re

from ocrqueue.documents.scripts import SCRIPT_MODELS

_TAGS = {
    "ara": "ar",
    "ben": "bn",
    "ces": "cs",
    "chi_sim": "zh-Hans",
    "chi_sim_vert": "zh-Hans",
    "chi_tra": "zh-Hant",
    "chi_tra_vert": "zh-Hant",
    "dan": "da",
    "deu": "de",
    "ell": "el",
    "eng": "en",
    "fas": "fa",
    "fin": "fi",
    "fra": "fr",
    "heb": "he",
    "hin": "hi",
    "hun": "hu",
    "ita": "it",
    "jpn": "ja",
    "jpn_vert": "ja",
    "kor": "ko",
    "kor_vert": "ko",
    "nld": "nl",
    "nor": "no",
    "pol": "pl",
    "por": "pt",
    "rus": "ru",
    "spa": "es",
    "swe": "sv",
    "tha": "th",
    "tur": "tr",
    "ukr": "uk",
    "vie": "vi",
}
_TAGS |= {"Vietnamese": "vi"}  # a script model, but of one language
_SCRIPTS = {m.model: m.iso15924 for m in SCRIPT_MODELS.values()} | {"HanT": "Hant"}
_LANGUAGE = re.compile(r"^[a-z]{2,3}$")


def bcp47(code: str) -> str | None:
    """The tag for a Tesseract language or script model name; None when there is none to give."""
    if code in _TAGS:
        return _TAGS[code]
    script = _SCRIPTS.get(code.removesuffix("_vert"))
    if script is not None:
        return f"und-{script}"
    return code if _LANGUAGE.match(code) else None


def first_tag(codes: tuple[str, ...]) -> str | None:
    """The tag of the first of `codes` (a page's languages, most used first) that has one."""
    return next((tag for tag in map(bcp47, codes) if tag is not None), None)
