"""Every output of the pipeline on a fixed set of inputs, written to a folder so two commits compare.

    .venv/bin/python bench/snapshot.py --out /tmp/snap-before     # on the old commit
    .venv/bin/python bench/snapshot.py --out /tmp/snap-after      # on the new one
    .venv/bin/python bench/snapshot.py --compare /tmp/snap-before /tmp/snap-after
    .venv/bin/python bench/snapshot.py --generated-only --out /tmp/quick   # generated samples only
    .venv/bin/python bench/snapshot.py --only-after --compare /tmp/snap-before /tmp/quick

The inputs are the generated samples of tests/data/generate.py and every page of the real-page
evaluation (bench/accuracy/pages.json) in its three variants (text layer, clean render, scan).
Each goes through `ocrqueue convert` as a user runs it, writing Markdown, JSON and the searchable
PDF. `--compare` reports files that differ; per-stage `timings` in the JSON are left out of the
comparison since they are measured, and so are the PDFs' creation dates and document ids.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

from generate import generate  # noqa: E402
from realpages import DEFAULT_CACHE, VARIANTS, fetch, load_pages, variant_bytes  # noqa: E402

MEASURED_KEYS = {"timings"}
PDF_VOLATILE = re.compile(rb"/(CreationDate|ModDate|ID)\s*(\([^)]*\)|\[[^\]]*\])|<x(mp)?:[^>]*Date>[^<]*<")


def write_inputs(folder: Path, cache: Path, real_pages: bool) -> list[Path]:
    samples = generate(folder / "generated")
    inputs = sorted({folder / "generated" / s.path for s in samples.values() if not s.error_code})
    if not real_pages:
        return inputs
    pages = load_pages()
    fetch(pages, cache)
    real = folder / "real"
    real.mkdir(parents=True, exist_ok=True)
    for page in pages:
        for variant in VARIANTS:
            suffix = {"text_layer": "pdf", "clean": "png", "scan": "jpg"}[variant]
            path = real / f"{page.id}-{variant}.{suffix}"
            path.write_bytes(variant_bytes(page, variant, cache))
            inputs.append(path)
    return inputs


def snapshot(out: Path, cache: Path, real_pages: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inputs = write_inputs(Path(tmp), cache, real_pages)
        command = [sys.executable, "-m", "ocrqueue", "convert", *map(str, inputs), "-o", str(out)]
        subprocess.run([*command, "-f", "md", "-f", "json", "-f", "pdf"], check=True)
    print(f"{len(inputs)} inputs written to {out}")


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in MEASURED_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _comparable(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".json":
        return json.dumps(_strip(json.loads(data)), sort_keys=True).encode()
    if path.suffix == ".pdf":
        return PDF_VOLATILE.sub(b"", data)
    return data


def compare(before: Path, after: Path, only_after: bool) -> int:
    names = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    if not only_after:
        names |= {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    differing = []
    for name in sorted(names):
        a, b = before / name, after / name
        if not a.exists() or not b.exists() or _comparable(a) != _comparable(b):
            differing.append(str(name))
    for name in differing:
        print(f"differs: {name}")
    print(json.dumps({"bench": "snapshot", "files": len(names), "differing": len(differing)}))
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="folder to write the outputs into")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--generated-only", action="store_true", help="only the generated samples (a minute)")
    parser.add_argument("--only-after", action="store_true", help="compare only the files AFTER has")
    args = parser.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare, args.only_after))
    if not args.out:
        parser.error("--out or --compare is needed")
    snapshot(args.out, args.cache, not args.generated_only)


if __name__ == "__main__":
    main()
