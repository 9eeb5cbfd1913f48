"""Text layers written the way other PDF producers write them, for the text-layer path's tests.

macOS Quartz and Acrobat Distiller set every font at size 1 and scale the text with the text
matrix; Quartz also flips the page (a CTM with y going down) and the text matrix back. Others
scale with the CTM. What they draw looks the same as ``/F1 12 Tf``; what ``Tf`` says is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generate import PdfBuilder, _pdf_string, raw_pdf

HEIGHT = PdfBuilder.HEIGHT


@dataclass(frozen=True)
class Run:
    """Lines of one size set one under another from ``top`` (points from the page's top)."""

    x: float
    top: float
    size: float
    lines: Sequence[str]
    font: str = "F1"
    leading: float = 1.25  # baseline to baseline, in sizes

    def baselines(self) -> list[float]:
        """Each line's baseline, in points from the page's top."""
        return [self.top + self.size * (0.8 + i * self.leading) for i in range(len(self.lines))]


def _string(text: str, font: str) -> str:
    """A PDF string of ``text``: two-byte UCS-2 codes in the CJK font F3, Latin-1 otherwise."""
    return f"<{text.encode('utf-16-be').hex()}>" if font == "F3" else _pdf_string(text)


def _shown(text: str, spacing: float, font: str) -> str:
    """``Tj`` of the text, or a ``TJ`` array placing each letter ``spacing`` ems apart (the way
    letter-spaced titles are written: one glyph per element, the gap as a kern); a space in the
    text is a word space on top of the spacing."""
    if not spacing:
        return f"{_string(text, font)} Tj"
    kern = f" {-spacing * 1000:g} "
    return "[" + kern.join(_string(ch, font) for ch in text) + "] TJ"


def distiller(run: Run, spacing: float = 0.0) -> str:
    """Acrobat Distiller: size 1, a text matrix per line scaled to the size."""
    s = run.size
    out = [f"BT /{run.font} 1 Tf"]
    for baseline, text in zip(run.baselines(), run.lines, strict=True):
        out.append(f"{s:g} 0 0 {s:g} {run.x:.2f} {HEIGHT - baseline:.2f} Tm {_shown(text, spacing, run.font)}")
    return " ".join(out) + " ET"


def quartz(run: Run, spacing: float = 0.0) -> str:
    """macOS Quartz: the page flipped to y going down by the CTM, each line's text matrix flipped
    back and scaled to the size, the font set at size 1."""
    s = run.size
    out = [f"q 1 0 0 -1 0 {HEIGHT:g} cm BT"]
    for baseline, text in zip(run.baselines(), run.lines, strict=True):
        out.append(f"{s:g} 0 0 {-s:g} {run.x:.2f} {baseline:.2f} Tm /{run.font} 1 Tf {_shown(text, spacing, run.font)}")
    return " ".join(out) + " ET Q"


def ctm_scaled(run: Run, spacing: float = 0.0) -> str:
    """A producer that scales the whole drawing with the CTM and sets text at a tenth of its size."""
    scale = 10.0
    out = [f"q {scale:g} 0 0 {scale:g} 0 0 cm BT /{run.font} {run.size / scale:g} Tf"]
    for baseline, text in zip(run.baselines(), run.lines, strict=True):
        out.append(
            f"1 0 0 1 {run.x / scale:.3f} {(HEIGHT - baseline) / scale:.3f} Tm {_shown(text, spacing, run.font)}"
        )
    return " ".join(out) + " ET Q"


WRITERS = {"distiller": distiller, "quartz": quartz, "ctm": ctm_scaled}


def page_pdf(runs: Sequence[Run], writer: str, spacing: dict[int, float] | None = None) -> bytes:
    """One A4 page of ``runs`` written as ``writer`` writes text; ``spacing`` letter-spaces the
    runs at those positions by that many ems."""
    write = WRITERS[writer]
    pdf = PdfBuilder()
    pdf.add_page([write(run, (spacing or {}).get(i, 0.0)) for i, run in enumerate(runs)])
    return pdf.build()


SECTIONS = [
    (
        "Introduction",
        [
            "Durable queues keep every task until a worker finishes it, and a",
            "worker that dies loses nothing: its lease runs out and another one",
            "takes the task over and resumes at the first unfinished page.",
        ],
    ),
    (
        "Method",
        [
            "Every write is fenced by the lease token, so a worker that lost its",
            "lease cannot overwrite the pages of the worker that took over.",
        ],
    ),
    (
        "Results",
        [
            "Over a thousand killed workers no page was lost or written twice,",
            "and the queue drained at the same rate as before the faults began.",
            "The slowest task finished within two lease periods of its deadline.",
        ],
    ),
]


def report_runs(x: float = 72.0, width_lines: Sequence[tuple[str, list[str]]] = SECTIONS) -> list[Run]:
    """A report's page: a 20 pt title, then for each section a 14 pt heading over a paragraph
    of 10 pt lines, a line's height between paragraphs."""
    runs = [Run(x, 60.0, 20.0, ["Queue Reliability Report"], "F2")]
    top = 110.0
    for heading, body in width_lines:
        runs.append(Run(x, top, 14.0, [heading], "F2"))
        top += 14.0 * 1.25 + 6.0
        runs.append(Run(x, top, 10.0, body))
        top += 10.0 * 1.25 * len(body) + 14.0
    return runs


def type3_pdf(runs: Sequence[Run], unit: float) -> bytes:
    """One A4 page of ``runs`` written as Distiller writes them, in a Type3 font (as dvips and
    Quartz embed bitmap and outline glyphs) whose glyph space has ``unit`` units to the em
    (FontMatrix 1/unit): every printable ASCII code draws a box half an em wide, ToUnicode maps
    the codes to themselves."""
    glyph = f"{unit * 0.6:g} 0 0 0 {unit * 0.5:g} {unit * 0.7:g} d1 0 0 {unit * 0.5:g} {unit * 0.7:g} re f".encode()
    space = f"{unit * 0.3:g} 0 d0".encode()
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3 def "
        b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <20> <7E> <0020> endbfrange "
        b"endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    content = " ".join(distiller(run) for run in runs).encode("latin-1")
    widths = " ".join([f"{unit * 0.3:g}"] + [f"{unit * 0.6:g}"] * 94)

    def stream(data: bytes) -> bytes:
        return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"

    font = (
        f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 {unit * 0.5:g} {unit * 0.7:g}] "
        f"/FontMatrix [{1 / unit:g} 0 0 {1 / unit:g} 0 0] /CharProcs << /g 6 0 R /space 7 0 R >> "
        f"/Encoding << /Type /Encoding /Differences [32 /space {' '.join(['/g'] * 94)}] >> "
        f"/FirstChar 32 /LastChar 126 /Widths [{widths}] /ToUnicode 8 0 R /Resources << >> >>"
    ).encode()
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R /F2 5 0 R >> >> >>",
            stream(content),
            font,
            stream(glyph),
            stream(space),
            stream(cmap),
        ]
    )
