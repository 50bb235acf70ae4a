# `make demo` and `make test` set everything up from a fresh clone (only python3 is needed).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
PYTEST_ARGS ?=
# One test process more than the cores: the tests that wait on the clock (arena_testing.ON_THE_CLOCK) keep one
# process waiting while the others keep every core busy.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1)')
PORT ?= 8000

.PHONY: setup test demo serve bench clean

# The local site runs in DEBUG (no secret key needed; the settings refuse to start without one otherwise).
# `make demo DJANGO_DEBUG=0 DJANGO_SECRET_KEY=...` runs it as production would.
setup demo serve: export DJANGO_DEBUG ?= 1

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)
	@deploy/system-deps.sh
	$(PY) manage.py migrate --noinput -v0

test: $(STAMP)
	@deploy/system-deps.sh
	rm -rf $(CURDIR)/var/test  # test databases and the test broker's queue start empty
	ARENA_DATA_DIR=$(CURDIR)/var/test $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

demo: setup
	$(PY) manage.py demo --port $(PORT)

serve: setup
	$(PY) manage.py serve --port $(PORT)

bench: $(STAMP)
	$(PY) -m engines bench

clean:
	rm -rf var .pytest_cache
