"""What every bench script and manifest sampler under bench/ does the same way."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def git_commit() -> str:
    """The checkout's short commit, for the JSON line a benchmark prints ("unknown" outside git)."""
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    )
    return result.stdout.strip() or "unknown"


def run_sampler(description: str, manifest: Path, cache: Path, draw: Callable[[dict[str, Any], Path], str]) -> None:
    """A manifest sampler's command line: ``draw`` gives the manifest's text from the manifest as
    it is (its sources and rules) and the fetch cache; --check compares instead of writing."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=cache)
    parser.add_argument("--manifest", type=Path, default=manifest)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the manifest differs")
    args = parser.parse_args()
    text = draw(json.loads(args.manifest.read_text()), args.cache)
    write_or_check(args.manifest, text, args.check)


def write_or_check(manifest: Path, text: str, check: bool) -> None:
    """Write the sampled manifest ``text``, or with ``check`` only say whether the file already
    holds it (exit status 1 when not), so a changed rule or source shows before it is committed."""
    if check:
        same = json.loads(text) == json.loads(manifest.read_text())
        print("the manifest is what the rule draws" if same else "the manifest differs from what the rule draws")
        sys.exit(0 if same else 1)
    manifest.write_text(text)
    print(f"wrote {manifest}")
