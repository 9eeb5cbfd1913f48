#!/usr/bin/env bash
# Install the Debian packages ocrqueue needs. Usage: scripts/system-deps.sh serve|container|test|container-check|bench|all-scripts
# "serve": the Tesseract models (English, Simplified Chinese, a model for every script the default
# reads, Arabic's language model for Arabic-language pages, and osd: which way up a page is, and
# its script; about 200 MiB, the budget is in
# docs/documents.md) and fonts; RapidOCR's models come inside its wheel, and the Python wheels
# bring their own native libraries (opencv-python-headless links none of the GUI ones).
# "container": that plus Debian's Python to make the venv with and CA certificates (S3, model
# servers over TLS): what scripts/container-install.sh puts in the image.
# "test": serve plus PostgreSQL, Chromium (browser tests), libfaketime (the clock-jump chaos tests),
# qpdf (checks the searchable PDFs), poppler-utils (pdftotext: a second viewer copying their
# right-to-left text), fonts for Thai, Lao and Devanagari (pages typeset in those
# scripts by Chromium, tests/support/printed.py), and the Armenian model (a script OSD cannot see,
# read by tests/documents/test_unseen_scripts.py). "container-check": debootstrap and iproute2 for
# `make container-check` only.
# "bench": serve plus the producers bench/documents.py makes documents with (Chromium, LibreOffice
# Writer and Calc, Ghostscript, groff).
# "all-scripts": serve plus every other script model Debian ships (tesseract-ocr-script-*: Armenian,
# Georgian, Bengali, Tamil, Khmer, Ethiopic, …; documents/scripts.py names the script of each), so
# that no page warns that its script has no model.
set -euo pipefail

# Tesseract's models for whole scripts: Latin (with Vietnamese), Cyrillic, Greek, Han Simplified
# and Traditional, Japanese (and vertical Japanese), Korean, Thai, Arabic, Hebrew, Devanagari.
script_models=(tesseract-ocr-script-latn tesseract-ocr-script-viet tesseract-ocr-script-cyrl tesseract-ocr-script-grek
  tesseract-ocr-script-hans tesseract-ocr-script-hant tesseract-ocr-script-jpan tesseract-ocr-script-jpan-vert tesseract-ocr-script-hang
  tesseract-ocr-script-thai tesseract-ocr-script-arab tesseract-ocr-script-hebr tesseract-ocr-script-deva)
# The Arabic and Persian languages' models, read beside the Arabic script model on Arabic and on
# Persian pages (documents/ocr/arabic_language.py); the Thai language's model, read instead of the
# Thai script model (documents/ocr/engine_choice.py, LANGUAGE_MODELS).
language_models=(tesseract-ocr-eng tesseract-ocr-chi-sim tesseract-ocr-ara tesseract-ocr-fas tesseract-ocr-tha)
serve_packages=(tesseract-ocr "${language_models[@]}" "${script_models[@]}" tesseract-ocr-osd fonts-dejavu-core fonts-noto-cjk)
container_packages=(python3 python3-venv ca-certificates "${serve_packages[@]}")
test_fonts=(fonts-tlwg-garuda-ttf fonts-lao fonts-lohit-deva)
test_packages=("${serve_packages[@]}" postgresql chromium faketime qpdf poppler-utils "${test_fonts[@]}" tesseract-ocr-script-armn)
container_check_packages=(debootstrap iproute2)
bench_packages=("${serve_packages[@]}" chromium libreoffice-writer-nogui libreoffice-calc-nogui ghostscript groff-base)

case "${1:-serve}" in
  serve) wanted=("${serve_packages[@]}") ;;
  container) wanted=("${container_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  container-check) wanted=("${container_check_packages[@]}") ;;
  bench) wanted=("${bench_packages[@]}") ;;
  all-scripts) mapfile -t every_script < <(apt-cache search --names-only '^tesseract-ocr-script-' | cut -d' ' -f1)
    [ ${#every_script[@]} -gt 0 ] || { echo "apt-cache lists no tesseract-ocr-script-* package: run apt-get update" >&2; exit 1; }
    wanted=("${serve_packages[@]}" "${every_script[@]}") ;;
  *) echo "usage: $0 serve|container|test|container-check|bench|all-scripts" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  apt_get=(apt-get)
elif command -v sudo >/dev/null 2>&1; then
  apt_get=(sudo apt-get)
else
  echo "ocrqueue needs these Debian packages: ${missing[*]}" >&2
  echo "install them as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${apt_get[@]}" update -qq
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
