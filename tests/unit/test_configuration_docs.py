"""docs/configuration.md must list every setting with the default the code has."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ocrqueue.settings import Settings

DOC = Path(__file__).parents[2] / "docs" / "configuration.md"


def _documented() -> dict[str, str]:
    rows = re.findall(r"^\| (\w+) \| `(OCRQUEUE_\w+)` \| ([^|]+) \|", DOC.read_text(), flags=re.MULTILINE)
    for name, variable, _ in rows:
        assert variable == f"OCRQUEUE_{name.upper()}", name
    return {name: default.strip() for name, _, default in rows}


def _shown(value: object) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, list):
        return f"`{json.dumps(value)}`"
    return f"`{value}`"


def test_every_setting_is_documented_with_its_default() -> None:
    documented = _documented()
    fields = Settings.model_fields
    assert set(documented) == set(fields)
    defaults = Settings.model_construct()
    for name in fields:
        value = getattr(defaults, name)
        shown = f"`./{value}`" if isinstance(value, Path) else _shown(value)
        assert documented[name] == shown, name
