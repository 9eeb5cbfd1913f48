"""A small tmpfs a test mounts, fills to the last byte, and frees again: a disk that is really full.

Mounting needs root (or CAP_SYS_ADMIN); without it the test is skipped with the reason. CI runs
the suite as root.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_tmpfs(path: Path, size: str = "4m") -> Iterator[Path]:
    """Mount a tmpfs of `size` at `path` (created if missing); unmounted on exit."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs at {path} (needs root or CAP_SYS_ADMIN): {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        # Lazy, so a file some thread still holds open cannot leave the mount behind.
        subprocess.run(["umount", "--lazy", str(path)], capture_output=True, check=False)


def fill(directory: Path) -> Path:
    """Write a filler file into `directory` until its file system refuses another byte; returns it."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for block in (1 << 16, 1 << 12, 1):
            chunk = b"\0" * block
            while True:
                try:
                    os.write(fd, chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
    assert os.statvfs(directory).f_bavail == 0, "the file system still has free blocks"
    return filler


def files_under(directory: Path, *, except_: tuple[Path, ...] = ()) -> list[str]:
    """Every file below `directory` (relative paths), leaving out `except_`."""
    skip = {p.resolve() for p in except_}
    return sorted(
        str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file() and p.resolve() not in skip
    )
