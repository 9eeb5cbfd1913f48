"""A venv made from nothing but the lock (constraints.txt) the way `make` and the container make it
(scripts/install-python.sh) loads every engine, and holds one OpenCV: the headless build, which
links no GUI library (no libGL, no X11, no GTK)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
SOURCE = ["pyproject.toml", "constraints.txt", "README.md", "LICENSE", "scripts", "src"]
"""What deploy/Containerfile copies: the install is made from a copy of these, as in the image."""
GUI_LIBRARIES = ("libGL", "libX11", "libxcb", "libgtk", "libgthread")
PROBE = """
import importlib.metadata, json
import cv2
from ocrqueue.documents import available_engines, get_engine
from ocrqueue.documents.layout.detector import load_layout_model
from ocrqueue.service.engines import configure_vlm
from ocrqueue.settings import Settings

configure_vlm(Settings(vlm_base_url="http://127.0.0.1:9/v1").vlm_config())
print(json.dumps({
    "engines": {name: type(get_engine(name)).__name__ for name in available_engines()},
    "layout_model": type(load_layout_model()).__name__,
    "cv2": cv2.__file__,
    "opencv": sorted(d.metadata["Name"] for d in importlib.metadata.distributions() if "opencv" in d.metadata["Name"]),
}))
"""


def test_a_venv_from_the_lock_loads_every_engine_with_headless_opencv(tmp_path: Path) -> None:
    source, venv = tmp_path / "source", tmp_path / "venv"
    for name in SOURCE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy(ROOT / name, source / name)
    installed = subprocess.run(
        [str(source / "scripts" / "install-python.sh"), str(venv), "."], capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stderr[-4000:]
    probed = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PROBE], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert probed.returncode == 0, probed.stderr[-4000:]
    found = json.loads(probed.stdout.strip().splitlines()[-1])
    assert set(found["engines"]) == {"rapidocr", "tesseract", "vlm"}, found
    assert found["layout_model"] == "LayoutModel"
    assert found["opencv"] == ["opencv-python-headless"]
    module = next(Path(found["cv2"]).parent.glob("cv2*.so"))
    linked = subprocess.run(["ldd", str(module)], capture_output=True, text=True, timeout=60, check=True).stdout
    assert not [line for line in linked.splitlines() if any(lib in line for lib in GUI_LIBRARIES)], linked
