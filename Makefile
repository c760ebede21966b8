# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint browser services clean

$(BIN)/sternhalma: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/sternhalma

setup: $(BIN)/sternhalma

# The web app on 127.0.0.1:8000; a browser tab opens where there is one.
run: setup
	$(BIN)/sternhalma serve --open

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src

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

test: lint browser services
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
