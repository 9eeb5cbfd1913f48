# ocrqueue: `make serve` runs the service on SQLite; `make test` runs the whole suite on SQLite and PostgreSQL.

VENV ?= .venv
PY := $(VENV)/bin/python
BOOTSTRAP_PYTHON ?= python3
PYTEST_ARGS ?=
# test processes for `make test` (pytest-xdist): tests mostly wait on real processes, so two overlap well on 2 cores
TEST_PROCESSES ?= 2

.PHONY: serve test lint typecheck imports check chaos corpus bench bench-queue bench-ocr bench-ocr-cost bench-accuracy bench-accuracy-scripts bench-documents bench-viewer bench-memory bench-bigdoc venv venv-runtime system-deps-serve system-deps-test lock container-check clean

INSTALL_PYTHON := BOOTSTRAP_PYTHON=$(BOOTSTRAP_PYTHON) scripts/install-python.sh

# Two stamps: `make serve` installs what the service runs on; `make test` (and every tool target)
# adds the test tools, also into a venv that `make serve` made first.
$(VENV)/.installed-runtime: pyproject.toml constraints.txt scripts/install-python.sh
	$(INSTALL_PYTHON) $(VENV) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt scripts/install-python.sh
	$(INSTALL_PYTHON) $(VENV) -e ".[test]"
	touch $@

venv-runtime: $(VENV)/.installed-runtime

venv: $(VENV)/.installed-test

system-deps-serve:
	scripts/system-deps.sh serve

system-deps-test:
	scripts/system-deps.sh test

## serve: create .venv with the runtime dependencies (no test tools), start ocrqueue on SQLite in ./ocrqueue-data
serve: system-deps-serve venv-runtime
	$(VENV)/bin/ocrqueue serve

## test: lint, type-check, then every test on SQLite and PostgreSQL
test: system-deps-test venv check
	scripts/ensure-postgres.sh
	$(PY) -m pytest -n $(TEST_PROCESSES) --dist worksteal $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

typecheck: venv
	$(VENV)/bin/mypy

## imports: the layer contracts in pyproject.toml (api and cli only adapt the service; queue and documents stand alone)
imports: venv
	$(VENV)/bin/lint-imports

check: lint typecheck imports

## chaos: the long chaos runs (300+ documents on PostgreSQL, then SQLite) with their summary tables (docs/chaos.md)
chaos: venv
	OCRQUEUE_CHAOS=full $(PY) -m pytest tests/chaos/test_chaos.py -s -p no:cacheprovider $(PYTEST_ARGS)

## corpus: every file of OCRmyPDF's test corpus through `ocrqueue convert` (make test runs the quick ones)
corpus: venv
	OCRQUEUE_CORPUS=full $(PY) -m pytest tests/documents/test_ocrmypdf_corpus.py -p no:cacheprovider $(PYTEST_ARGS)

## bench-queue: drain no-op tasks on SQLite and PostgreSQL (see docs/benchmarks.md)
bench-queue: venv
	$(PY) bench/queue.py --db sqlite:///$(CURDIR)/ocrqueue-data/bench.db --jobs 20000 --concurrency 4 --processes 2
	$(PY) bench/queue.py --db postgresql://postgres@127.0.0.1:5432/ocrq_bench --jobs 20000 --concurrency 4 --processes 2

## bench-ocr-cost: CPU a page per script, the pipeline against bare Tesseract and bare RapidOCR on the same scans, one thread each
bench-ocr-cost: venv
	$(PY) bench/ocr_cost.py --split dev
	$(PY) bench/ocr_cost.py --split test

## bench-ocr: accuracy and speed of each OCR engine on generated sample pages
bench-ocr: venv
	$(PY) bench/ocr.py

## bench-accuracy: CER and bag-of-words F1 on real pages from Debian packages (fetched with apt-get download), three ways each;
## then the documents corpus (bench-documents)
bench-accuracy: venv bench-documents
	$(PY) bench/accuracy.py

## bench-accuracy-scripts: the per-script evaluation alone (every script beyond Latin and Han), dev and test
bench-accuracy-scripts: venv
	$(PY) bench/accuracy.py --corpus scripts

## bench-documents: the issue-22 corpus, dev and test: every page through the text layer, 24 pages a split clean and scanned, and the real scans with a hand-checked transcription
bench-documents: venv
	scripts/system-deps.sh bench
	$(PY) bench/documents.py --variants text_layer
	$(PY) bench/documents.py --limit 24 --variants clean,scan
	$(PY) bench/documents.py --variants scanned

## bench-viewer: how long the web page's document view takes for long results, in chromium
bench-viewer: venv
	$(PY) bench/viewer.py

## bench-memory: peak RSS of 1,000/5,000 text-layer pages and a 300-page scan through convert and a worker
bench-memory: venv
	$(PY) bench/memory.py

## bench-bigdoc: time to result of a 200-page scan with one worker process against two (SQLite)
bench-bigdoc: venv
	$(PY) bench/bigdoc.py

bench: bench-queue bench-ocr bench-ocr-cost bench-accuracy

## lock: rewrite constraints.txt from a fresh venv of pyproject.toml at today's pins (a package no longer
## needed drops out, a new one comes in at its newest); to move a pin, edit or delete its line first
LOCK_VENV := $(CURDIR)/.venv-lock
lock:
	rm -rf $(LOCK_VENV)
	$(INSTALL_PYTHON) $(LOCK_VENV) -e ".[test]"
	$(LOCK_VENV)/bin/python -m pip freeze --exclude-editable | grep -v '^-e ' > constraints.txt
	rm -rf $(LOCK_VENV)

## container-check: deploy/Containerfile's steps in a fresh Debian root (debootstrap), serve started there
## as the container starts it, reached from another network namespace (root; slow, not part of `make test`)
container-check: venv
	scripts/system-deps.sh container-check
	OCRQUEUE_CONTAINER_CHECK=1 $(PY) -m pytest tests/container -s -p no:cacheprovider $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache .mypy_cache .ruff_cache
