"""The stages both paths end with: they work on blocks, whichever path built them."""

from __future__ import annotations

from ocrqueue.documents.layout.continued import marked_continuations
from ocrqueue.documents.stages import PageContext, stage


@stage("finish.continuations")
def continuations(context: PageContext) -> None:
    """Reads blocks (either path); adds ``continues`` to a paragraph's part in the next column."""
    context.blocks = marked_continuations(context.blocks)
