# accord: two commands on a fresh clone, `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(PYTHON)
VENV := .venv
RUN := $(UV) run --no-sync

.PHONY: demo test lint typecheck pytest bench env uv clean

uv:
	@$(UV) --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv

$(VENV)/.synced: pyproject.toml uv.lock | uv
	$(UV) sync --locked --all-extras --group dev --group peers
	@touch $@

env: $(VENV)/.synced

demo: env
	$(RUN) accord demo

lint: env
	$(RUN) ruff check src tests benchmarks
	$(RUN) ruff format --check src tests benchmarks

typecheck: env
	$(RUN) mypy --strict src/accord

pytest: env
	$(RUN) pytest -q

test: lint typecheck pytest

bench: env
	$(RUN) python benchmarks/agreement.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
