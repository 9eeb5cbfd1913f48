#!/usr/bin/env bash
# Everything the container image holds, installed by deploy/Containerfile and, in a Debian root made
# with debootstrap, by `make container-check`: Debian's packages (scripts/system-deps.sh container:
# Python, the OCR models, fonts), ocrqueue in /opt/ocrqueue/venv at the lock's versions
# (scripts/install-python.sh), and the user it runs as with its data directory. Run as root from the
# source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/system-deps.sh container
BOOTSTRAP_PYTHON=/usr/bin/python3 scripts/install-python.sh /opt/ocrqueue/venv .
id ocrqueue >/dev/null 2>&1 || useradd --system --home-dir /var/lib/ocrqueue --shell /usr/sbin/nologin ocrqueue
install -d -o ocrqueue -g ocrqueue /var/lib/ocrqueue
apt-get clean
rm -rf /var/lib/apt/lists/* /root/.cache/pip
