# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint browser services sanitize pure clean

# The compiled core (src/sternhalma/_core/) is built by the install; editing it reinstalls.
CORE_SOURCES := CMakeLists.txt $(wildcard src/sternhalma/_core/*.cpp src/sternhalma/_core/*.hpp)

# The editable install maps every module of the package by name, so a module added,
# moved or removed reinstalls too: the list of the package's modules is kept in a
# file that changes only when the list does.
MODULES := build/modules.txt
$(shell mkdir -p build && find src/sternhalma -name '*.py' | sort > $(MODULES).new && \
	(cmp -s $(MODULES).new $(MODULES) || mv $(MODULES).new $(MODULES)); rm -f $(MODULES).new)

$(BIN)/sternhalma: pyproject.toml $(CORE_SOURCES) $(MODULES)
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/sternhalma

# Pyodide from npm among the web files: local games run in the browser (docs/browser.md).
PYODIDE := src/sternhalma/web/pyodide/pyodide.mjs
$(PYODIDE): package.json package-lock.json tools/build_browser.py
	$(PYTHON) tools/build_browser.py

# The engine's snapshot for a browser's first visit: made again when the engine changes.
setup: $(BIN)/sternhalma $(PYODIDE)
	$(BIN)/python tools/build_browser.py --snapshot

# The web app on 127.0.0.1:8000; a browser tab opens where there is one.
# ARGS go to `sternhalma serve`: make run ARGS="--host 0.0.0.0 --port 8080".
ARGS ?=
run: setup
	$(BIN)/sternhalma serve --open $(ARGS)

lint: setup
	$(BIN)/ruff check src tests bench tools
	$(BIN)/ruff format --check src tests bench tools
	$(BIN)/mypy src bench

# The browser tests drive Debian's Chromium (never a downloaded browser build).
browser:
	@if [ ! -e /usr/bin/chromium ]; then \
		apt-get update && apt-get install -y --no-install-recommends chromium; \
	fi

# The cluster and fault tests start PostgreSQL 15 (Debian's /usr/lib/postgresql/15/bin)
# and redis-server on 127.0.0.1 themselves (tests/services.py) and stop them afterwards.
services:
	@if ! command -v redis-server >/dev/null; then \
		apt-get update && apt-get install -y --no-install-recommends redis-server; \
	fi

# A debug build of the compiled core under AddressSanitizer and UndefinedBehaviorSanitizer,
# beside the installed one; `make test` runs the differential tests once against it.
ASAN_BUILD := build/sanitize
$(ASAN_BUILD)/ok: $(CORE_SOURCES) | setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSTERNHALMA_SANITIZE=ON \
		-DPython_EXECUTABLE=$(abspath $(BIN)/python) >/dev/null
	cmake --build $(ASAN_BUILD)
	touch $@

sanitize: $(ASAN_BUILD)/ok
	STERNHALMA_CORE_FILE=$$(ls $(abspath $(ASAN_BUILD))/_native*.so) \
	LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so)" ASAN_OPTIONS=detect_leaks=0 \
	UBSAN_OPTIONS=print_stacktrace=1 $(BIN)/pytest -p no:cacheprovider tests/test_core.py

# The engine and players once more on the pure-Python engine (the fallback without a compiler).
pure: setup
	STERNHALMA_PURE=1 $(BIN)/pytest -p no:cacheprovider tests/test_core.py tests/test_race_rules.py \
		tests/test_halma.py tests/test_board.py tests/test_players.py tests/test_cli_engine.py \
		tests/test_hard_moves.py tests/test_timeman.py

test: lint browser services sanitize pure
	$(BIN)/pytest

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache node_modules src/sternhalma/web/pyodide
	git worktree prune 2>/dev/null || true  # bench/same_choices.py's checkouts were under build/
