"""Every output of the pipeline on a fixed set of inputs, written to a folder so two commits compare.

    .venv/bin/python bench/snapshot.py --out /tmp/snap-before     # on the old commit
    .venv/bin/python bench/snapshot.py --out /tmp/snap-after      # on the new one
    .venv/bin/python bench/snapshot.py --compare /tmp/snap-before /tmp/snap-after
    .venv/bin/python bench/snapshot.py --generated-only --out /tmp/quick   # generated samples only
    .venv/bin/python bench/snapshot.py --compare /tmp/snap-before /tmp/quick   # files in both compared

The inputs are the generated samples of tests/data/generate.py and every page of the real-page
evaluation (bench/accuracy/pages.json) in its three variants (text layer, clean render, scan).
Each goes through `ocrqueue convert` as a user runs it, writing Markdown, JSON and the searchable
PDF. `--compare` reports files that differ among those both folders hold; per-stage `timings` in the
JSON are left out since they are measured, and PDFs are compared as drawn (content streams and
resource names, not dates or document ids).
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

import pikepdf  # noqa: E402
from generate import generate  # noqa: E402
from realpages import DEFAULT_CACHE, VARIANTS, fetch, load_pages, variant_bytes  # noqa: E402

MEASURED_KEYS = {"timings"}
OQ_FONT = re.compile(rb"/OQ[\w-]+")


def write_inputs(folder: Path, cache: Path, real_pages: bool, scripts: set[str]) -> list[Path]:
    samples = generate(folder / "generated")
    inputs = sorted({folder / "generated" / s.path for s in samples.values() if not s.error_code})
    if not real_pages:
        return inputs
    pages = [page for page in load_pages() if not scripts or page.script in scripts]
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


def snapshot(out: Path, cache: Path, real_pages: bool, scripts: set[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inputs = write_inputs(Path(tmp), cache, real_pages, scripts)
        command = [sys.executable, "-m", "ocrqueue", "convert", *map(str, inputs), "-o", str(out)]
        subprocess.run([*command, "-f", "md", "-f", "json", "-f", "pdf"], check=True)
    print(f"{len(inputs)} inputs written to {out}")


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in MEASURED_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _pdf_comparable(path: Path) -> bytes:
    """A PDF's pages as drawn (content streams and resource names), the random font names that
    earlier versions gave (`/OQ` + random) folded into one, dates and document ids left out."""
    parts = []
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            contents = page.obj.get("/Contents")
            streams = contents if isinstance(contents, pikepdf.Array) else [contents] if contents is not None else []
            drawn = b"".join(stream.read_bytes() for stream in streams)
            fonts = sorted(page.obj.get("/Resources", pikepdf.Dictionary()).get("/Font", pikepdf.Dictionary()).keys())
            parts.append(drawn + " ".join(fonts).encode())
    return OQ_FONT.sub(b"/OQ", b"\n".join(parts))


def _comparable(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".json":
        return json.dumps(_strip(json.loads(data)), sort_keys=True).encode()
    if path.suffix == ".pdf":
        return _pdf_comparable(path)
    return data


def compare(before: Path, after: Path) -> int:
    """Files both folders hold must be the same; files only one holds are counted apart (inputs
    added to or removed from the set)."""
    in_before = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    in_after = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    differing = [str(n) for n in sorted(in_before & in_after) if _comparable(before / n) != _comparable(after / n)]
    for name in differing:
        print(f"differs: {name}")
    for name in sorted(in_before ^ in_after):
        print(f"only in {'before' if name in in_before else 'after'}: {name}")
    summary = {
        "bench": "snapshot",
        "compared": len(in_before & in_after),
        "differing": len(differing),
        "only_before": len(in_before - in_after),
        "only_after": len(in_after - in_before),
    }
    print(json.dumps(summary))
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="folder to write the outputs into")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--generated-only", action="store_true", help="only the generated samples (a minute)")
    parser.add_argument("--scripts", default="", help="only real pages of these scripts, e.g. Latin,Han")
    args = parser.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare))
    if not args.out:
        parser.error("--out or --compare is needed")
    snapshot(args.out, args.cache, not args.generated_only, {s for s in args.scripts.split(",") if s})


if __name__ == "__main__":
    main()
