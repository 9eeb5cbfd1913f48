#!/usr/bin/env python
"""How long the web page's document view takes to show a long result, in Debian's chromium.

    python bench/viewer.py                     # 10, 100 and 1,000 pages of 12 blocks
    python bench/viewer.py --pages 5000 --repeat 5

Serves src/ocrqueue/api/static/ on loopback (no API: the renderer is fed a generated result JSON
in the page), then per document size: `build` is `renderDocument` making the DOM (document.js),
`layout` the first layout of the document pane with the page's stylesheet, and `layout_all` the
same with every page laid out (`content-visibility` turned off), which is what the viewer cost
before pages off screen were skipped. Median of --repeat runs. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import statistics
import threading
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).resolve().parents[1] / "src" / "ocrqueue" / "api" / "static"
CHROMIUM = os.environ.get("OCRQUEUE_TEST_CHROMIUM", "/usr/bin/chromium")

MEASURE = """async ({ pages, laidOut }) => {
  const { renderDocument } = await import('/document.js');
  const doc = { pages: [] };
  for (let p = 0; p < pages; p++) {
    const blocks = [{ type: 'title', level: 2, text: `Section ${p}`, bbox: [72, 72, 300, 90] }];
    for (let b = 0; b < 10; b++) {
      blocks.push({ type: 'text', text: `Paragraph ${b} of page ${p}. ` + 'Words of body text. '.repeat(30),
                    bbox: [72, 100 + 60 * b, 520, 150 + 60 * b] });
    }
    const cells = Array.from({ length: 20 }, (_, i) => ({ row: Math.floor(i / 4), col: i % 4, row_span: 1,
                                                       col_span: 1, text: `cell ${i}`, bbox: [0, 0, 1, 1] }));
    blocks.push({ type: 'table', text: '', bbox: [72, 700, 520, 800], table: { n_rows: 5, n_cols: 4, cells } });
    doc.pages.push({ index: p, width: 595, height: 842, source: 'text_layer', dpi: null, warnings: [], blocks });
  }
  const pane = document.createElement('article');
  pane.className = 'document';
  document.body.replaceChildren(pane);
  if (laidOut) document.body.dataset.laidOut = 'true';
  const t0 = performance.now();
  const { root } = renderDocument(doc);
  pane.append(root);
  const t1 = performance.now();
  void pane.offsetHeight;
  const t2 = performance.now();
  return { build: t1 - t0, layout: t2 - t1, nodes: pane.querySelectorAll('*').length };
}"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Requests are not news here."""


@contextlib.contextmanager
def serving_static() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(STATIC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with serving_static() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            for pages in args.pages:
                runs: dict[str, list[float]] = {"build": [], "layout": [], "layout_all": []}
                nodes = 0
                for _ in range(args.repeat):
                    for laid_out in (False, True):
                        page = browser.new_page(viewport={"width": 1280, "height": 800})
                        page.goto(f"{url}/dom.js")
                        page.add_style_tag(url=f"{url}/style.css")
                        page.add_style_tag(
                            content="[data-laid-out] .doc-page { content-visibility: visible !important; }"
                        )
                        result = page.evaluate(MEASURE, {"pages": pages, "laidOut": laid_out})
                        page.close()
                        runs["layout_all" if laid_out else "layout"].append(result["layout"])
                        if not laid_out:
                            runs["build"].append(result["build"])
                        nodes = result["nodes"]
                rows.append(
                    {"pages": pages, "nodes": nodes} | {k: round(statistics.median(v), 1) for k, v in runs.items()}
                )
        finally:
            browser.close()
    print(f"{'pages':>6} {'nodes':>7} {'build ms':>9} {'layout ms':>10} {'layout_all ms':>14}")
    for row in rows:
        print(f"{row['pages']:>6} {row['nodes']:>7} {row['build']:>9} {row['layout']:>10} {row['layout_all']:>14}")
    load = os.getloadavg()[0]
    print(json.dumps({"bench": "viewer", "repeat": args.repeat, "load_1m": round(load, 2), "sizes": rows}))


if __name__ == "__main__":
    main()
