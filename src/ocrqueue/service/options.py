"""OCR options as users give them (a JSON object and single fields, or command-line flags), checked
and filled in from the settings' defaults, so the API and the CLI accept exactly the same things."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ocrqueue.documents import AUTO, DocumentError, PageRangeError, ProcessOptions, available_engines
from ocrqueue.service.errors import InvalidInput
from ocrqueue.settings import Settings

OPTION_NAMES = frozenset({"mode", "engine", "languages", "dpi", "tables", "layout_model", "pages"})


def _parse_json(raw: str) -> dict[str, Any]:
    try:
        given = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput("invalid_options", f"options is not valid JSON: {exc.msg}", field="options") from exc
    except RecursionError as exc:
        raise InvalidInput("invalid_options", "options is nested too deeply", field="options") from exc
    if not isinstance(given, dict):
        raise InvalidInput("invalid_options", "options must be a JSON object", field="options")
    unknown = sorted(set(given) - OPTION_NAMES)
    if unknown:
        raise InvalidInput("invalid_options", f"unknown options: {', '.join(unknown)}", field="options")
    return given


def ocr_options(
    settings: Settings,
    raw: str | None = None,
    *,
    mode: str | None = None,
    engine: str | None = None,
    languages: Sequence[str] | None = None,
    dpi: int | None = None,
    pages: str | None = None,
) -> ProcessOptions:
    """Options from the settings' defaults, then the JSON object `raw`, then the single fields.
    Raises InvalidInput saying which value is wrong (code `invalid_pages`, field `pages`, for a
    malformed page selection such as "5-2")."""
    fields: dict[str, Any] = {
        "mode": "auto",
        "engine": settings.default_engine,
        "languages": settings.default_languages,
        "dpi": settings.render_dpi,
    }
    if raw:
        fields.update(_parse_json(raw))
    for name, value in (("mode", mode), ("engine", engine), ("dpi", dpi), ("pages", pages)):
        if value is not None:
            fields[name] = value
    if languages is not None:
        fields["languages"] = list(languages)
    if fields["engine"] != AUTO and fields["engine"] not in available_engines():
        raise InvalidInput(
            "invalid_options",
            f"unknown engine {fields['engine']!r}; available: {', '.join([AUTO, *available_engines()])}",
            field="engine",
        )
    try:
        return ProcessOptions.from_dict(fields)
    except PageRangeError as exc:
        raise InvalidInput(exc.code, str(exc), field="pages") from exc
    except (DocumentError, TypeError, ValueError, OverflowError) as exc:
        raise InvalidInput("invalid_options", str(exc), field="options") from exc
