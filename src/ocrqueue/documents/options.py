"""Per-document processing options, chosen by the user and stored with the task."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, cast

from ocrqueue.documents.errors import InvalidOptionsError
from ocrqueue.documents.input.pagerange import PageSelection, selected_indices

Mode = Literal["auto", "ocr", "text"]
MODES: tuple[Mode, ...] = ("auto", "ocr", "text")
AUTO = "auto"  # engine and languages: chosen per page from the scripts found on it (documents/ocr/engine_choice.py)
# Tesseract's language codes (eng, chi_sim) and its script models' names (Latin, HanS_vert).
_LANGUAGE = re.compile(r"^(?:[a-z]{3}(?:_[a-z]+)?|[A-Z][A-Za-z]+(?:_vert)?)$")


@dataclass(frozen=True)
class ProcessOptions:
    """``auto`` reads good PDF text layers and OCRs the rest; ``ocr`` and ``text`` force one path.
    ``tables`` looks for ruled tables; ``layout_model`` adds rapid-layout's figure, formula and
    caption detection to rendered pages when the package is installed; ``char_boxes`` adds a box
    per character to words read from a text layer (it makes the JSON several times larger);
    ``pages`` reads only those pages (``"1-5,9"``, kept in canonical form), all when None.
    ``engine`` and ``languages`` are ``auto`` (``("auto",)``) unless the user names them: each page
    is then read with what suits the scripts found on it."""

    mode: Mode = "auto"
    engine: str = AUTO
    languages: tuple[str, ...] = (AUTO,)
    dpi: int = 200
    tables: bool = True
    layout_model: bool = True
    char_boxes: bool = False
    pages: str | None = None

    def __post_init__(self) -> None:
        if self.pages is not None:
            object.__setattr__(self, "pages", str(PageSelection.parse(self.pages)))
        if self.mode not in MODES:
            raise InvalidOptionsError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if not 72 <= self.dpi <= 600:
            raise InvalidOptionsError(f"dpi must be between 72 and 600, not {self.dpi}")
        if self.languages != (AUTO,) and (
            not self.languages or not all(_LANGUAGE.match(lang) and lang != AUTO for lang in self.languages)
        ):
            raise InvalidOptionsError(
                'languages must be ["auto"] or Tesseract languages like eng, chi_sim or Latin (a script model), '
                f"not {list(self.languages)!r}"
            )

    @property
    def page_selection(self) -> PageSelection | None:
        return None if self.pages is None else PageSelection.parse(self.pages)

    def page_indices(self, page_count: int) -> list[int]:
        """The pages to read, as indices from 0; raises PageRangeError for pages the document lacks."""
        return selected_indices(self.pages, page_count)

    def to_dict(self) -> dict[str, Any]:
        """`pages` only when set, so whole-document options keep the dedup keys they always had."""
        d: dict[str, Any] = {
            "mode": self.mode,
            "engine": self.engine,
            "languages": list(self.languages),
            "dpi": self.dpi,
            "tables": self.tables,
            "layout_model": self.layout_model,
            "char_boxes": self.char_boxes,
        }
        if self.pages is not None:
            d["pages"] = self.pages
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProcessOptions:
        return cls(
            mode=cast(Mode, d.get("mode", "auto")),
            engine=str(d.get("engine", AUTO)),
            languages=tuple(d.get("languages", (AUTO,))),
            dpi=int(d.get("dpi", 200)),
            tables=bool(d.get("tables", True)),
            layout_model=bool(d.get("layout_model", True)),
            char_boxes=bool(d.get("char_boxes", False)),
            pages=None if d.get("pages") is None else str(d["pages"]),
        )
