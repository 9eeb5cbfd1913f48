"""How many CPUs this process may use for one engine call: its affinity mask, not the host's count,
capped by `OMP_THREAD_LIMIT`.

`OMP_THREAD_LIMIT` is OpenMP's own knob, read by Tesseract's OpenMP runtime when it loads; honouring it
here too gives every engine (onnxruntime's intra-op threads for RapidOCR) one setting. Worker
processes that share a machine each get a share of its cores (`thread_share`), so that N processes
do not each start as many threads as there are cores and spin against each other.
"""

from __future__ import annotations

import os

THREAD_LIMIT_VARIABLE = "OMP_THREAD_LIMIT"


def _affinity_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def usable_cpus() -> int:
    limit = os.environ.get(THREAD_LIMIT_VARIABLE, "").strip()
    cpus = _affinity_cpus()
    return max(1, min(cpus, int(limit))) if limit.isdigit() and int(limit) > 0 else cpus


def thread_share(engine_slots: int) -> int:
    """Threads per engine call when `engine_slots` calls may run at once on this machine's cores."""
    return max(1, usable_cpus() // max(1, engine_slots))
