"""Draw the documents of the per-script evaluation and write them into bench/accuracy/scripts.json.

    .venv/bin/python bench/sample_scripts.py            # fetch the packages, draw, write the manifest
    .venv/bin/python bench/sample_scripts.py --check    # exit 1 if the manifest differs from what the rule gives

Candidates are every help guide and message catalogue of the manifest's packages in one of its
languages whose blocks fill MIN_PAGES pages (tests/data/script_sources.py); the rule draws
``documents_per_script`` of them per script and splits them into dev and test. Each keeps
``pages_per_document`` pages, or as many as its text fills.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import argparse  # noqa: E402
import json  # noqa: E402
from typing import Any  # noqa: E402

from realpages import DEFAULT_CACHE  # noqa: E402
from script_sources import MIN_PAGES, document_blocks, draw_documents, find_documents, paginate  # noqa: E402
from scriptpages import SCRIPTS_MANIFEST, unpack_packages  # noqa: E402


def drawn(manifest: dict[str, Any], cache: Path) -> list[dict[str, Any]]:
    """The manifest's documents as the rule draws them, in manifest order (script, split, id)."""
    roots = unpack_packages(manifest["packages"], cache)
    candidates = []
    pages: dict[str, int] = {}
    for package, version in sorted(manifest["packages"].items()):
        for doc in find_documents(package, version, roots[package], manifest["languages"]):
            filled = len(paginate(document_blocks(doc, roots[package]), manifest["pages_per_document"]))
            if filled >= MIN_PAGES:
                candidates.append(doc)
                pages[doc.id] = filled
    splits = draw_documents(candidates, manifest["documents_per_script"])
    chosen = sorted((d for d in candidates if d.id in splits), key=lambda d: (d.script, splits[d.id], d.id))
    return [
        {
            "id": d.id,
            "package": d.package,
            "version": d.version,
            "kind": d.kind,
            "name": d.name,
            "lang": d.lang,
            "script": d.script,
            "split": splits[d.id],
            "pages": pages[d.id],
        }
        for d in chosen
    ]


def dumps(manifest: dict[str, Any]) -> str:
    """One document a line: the manifest stays readable in a diff."""
    head = {k: v for k, v in manifest.items() if k != "documents"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    docs = [json.dumps(d, ensure_ascii=False) for d in manifest["documents"]]
    lines.append('  "documents": [\n    ' + ",\n    ".join(docs) + "\n  ]")
    return "\n".join([*lines, "}", ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--manifest", type=Path, default=SCRIPTS_MANIFEST)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the manifest differs")
    args = parser.parse_args()
    manifest = json.loads(args.manifest.read_text())
    documents = drawn(manifest, args.cache)
    if args.check:
        same = documents == manifest["documents"]
        print("the manifest is what the rule draws" if same else "the manifest differs from what the rule draws")
        sys.exit(0 if same else 1)
    args.manifest.write_text(dumps({**manifest, "documents": documents}))
    print(f"wrote {args.manifest}: {len(documents)} documents")


if __name__ == "__main__":
    main()
