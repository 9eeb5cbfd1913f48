"""Every command's --help says what it means: Rich reads `[...]` in help strings as markup and drops
it, which once left "OCR engine ." where "[default: settings.default_engine]" was written."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from ocrqueue.cli import app

runner = CliRunner()
STRAY_PUNCTUATION = re.compile(r"\w \.(?=\s|$)|\w ,")
"""A word, a space, then a full stop ending the sentence (or a comma): where markup was dropped."""


def _commands(group: typer.core.TyperGroup, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    yield path, group
    for name, command in group.commands.items():
        if isinstance(command, typer.core.TyperGroup):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = list(_commands(typer.main.get_command(app)))  # type: ignore[arg-type]


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"serve", "worker", "convert", "submit", "db prune", "keys create", "tasks result"} <= names


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) or "ocrqueue" for p, _ in COMMANDS])
def test_help_renders_every_default_and_no_stray_markup(path: tuple[str, ...], command: object) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "300", "NO_COLOR": "1"}, terminal_width=300)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # one line: Rich wraps and pads the option table
    assert not STRAY_PUNCTUATION.search(text), STRAY_PUNCTUATION.findall(text)
    for param in getattr(command, "params", []):
        assert "[" not in (param.help or ""), f"{param.name}: Rich would take [..] in its help for markup"
        if isinstance(param.show_default, str):
            assert f"[default: ({param.show_default})]" in text, (param.name, text)
