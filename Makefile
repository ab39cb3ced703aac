# accord: two commands on a fresh clone, `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(PYTHON)
VENV := .venv
RUN := $(UV) run --no-sync

.PHONY: demo test lint lint-imports typecheck pytest pytest-fast docs bench env uv clean

uv:
	@$(UV) --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv

$(VENV)/.synced: pyproject.toml uv.lock | uv
	$(UV) sync --locked --compile-bytecode --all-extras --group dev --group peers
	@touch $@

env: $(VENV)/.synced

demo: env
	$(RUN) accord demo

lint: env
	$(RUN) ruff check src tests benchmarks docs/hooks docs/*.py
	$(RUN) ruff format --check src tests benchmarks docs/hooks docs/*.py

# The import contracts of pyproject.toml ([tool.importlinter]): the one-way layers of
# docs/architecture.md. The other architecture rules (no import cycles, no private names across
# packages, short functions) are tests/test_architecture.py, run by `pytest`.
lint-imports: env
	$(RUN) lint-imports --no-cache --no-logo

typecheck: env
	$(RUN) mypy --strict src/accord

# The tests run on every core (pytest-xdist: `-n auto`, idle workers taking tests from busy ones);
# PYTEST_WORKERS=0 runs them in one process.
PYTEST_WORKERS ?= auto
XDIST := -n $(PYTEST_WORKERS) --dist worksteal

# `make test` draws the same hypothesis examples as CI (the "ci" profile of tests/conftest.py),
# so that a fresh clone passes or fails on its code, not on the draw; plain `pytest` (the "dev"
# profile) explores fresh examples while you work.
pytest: env
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(RUN) pytest -q $(XDIST)

# While working: everything but the tests marked @pytest.mark.slow (`make test` runs them too).
pytest-fast: env
	$(RUN) pytest -q $(XDIST) -m "not slow"

# The documentation site (mkdocs.yml): warnings are errors, so a broken link, a page missing
# from the navigation or a docstring the API reference cannot render fails the build.
docs: env
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict --quiet

# The site is built first, and the browser test of the docs (tests/test_docs_browser.py) looks at
# that build instead of building its own.
test: lint lint-imports typecheck docs
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} ACCORD_DOCS_SITE=$(CURDIR)/build/docs $(RUN) pytest -q $(XDIST)

bench: env
	$(RUN) python benchmarks/agreement.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build/docs build/screenshots
