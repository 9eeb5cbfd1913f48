"""Session fixture: generate every sample once into a temporary folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))

from generate import Sample, generate


class Samples:
    def __init__(self, folder: Path, items: dict[str, Sample]) -> None:
        self.folder = folder
        self.items = items

    def __getitem__(self, name: str) -> Sample:
        return self.items[name]

    def data(self, name: str) -> bytes:
        return (self.folder / self.items[name].path).read_bytes()


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Samples:
    folder = tmp_path_factory.mktemp("samples")
    return Samples(folder, generate(folder))
