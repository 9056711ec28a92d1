# gw: the two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.bun/bin:$(PATH)
# hnswlib-node is a native addon; node-gyp must build it against the machine's Node headers.
export npm_config_nodedir ?= /usr

.PHONY: run test build bench install bun typecheck clean chromium nginx python-client services

bun:
	@command -v bun >/dev/null 2>&1 || npm install -g bun
	@bun --version >/dev/null

node_modules/.installed: package.json bun.lock | bun
	bun install --frozen-lockfile
	@touch $@

install: node_modules/.installed

# The dashboard's bundle, embedded by the server and dist/gw (docs/dashboard.md "Building the dashboard").
DASHBOARD_ASSETS := src/dashboard/generated-assets.ts
$(DASHBOARD_ASSETS): node_modules/.installed scripts/build-dashboard.ts $(shell find src/dashboard/ui -type f)
	bun run scripts/build-dashboard.ts
	@touch $@

run: install $(DASHBOARD_ASSETS)
	bun run src/main.ts serve

typecheck: install $(DASHBOARD_ASSETS)
	bunx tsc --noEmit -p .
	bunx tsc --noEmit -p src/dashboard/ui
	bunx tsc --noEmit -p clients/node/test

# Bun reads its per-test timeout only from the command line (bunfig.toml has no such setting).
# Tests start real servers, workers and child processes; a loaded 2-core machine needs room.
test: install $(DASHBOARD_ASSETS) typecheck chromium nginx services
	bun test --timeout 120000
	$(MAKE) python-client

# The Python client (clients/python/README.md): its own virtual environment (pip from the configured
# index), mypy --strict, the pytest suite against a real gw it starts itself, and a wheel build.
PY_CLIENT := clients/python
# An unreachable default index is given up on at once, so a machine with a local mirror among its
# extra indexes installs in seconds rather than minutes.
PIP_FLAGS ?= --retries 0 --timeout 10
$(PY_CLIENT)/.venv/.installed: $(PY_CLIENT)/pyproject.toml
	python3 -m venv $(PY_CLIENT)/.venv
	$(PY_CLIENT)/.venv/bin/pip install -q $(PIP_FLAGS) pytest mypy httpx
	$(PY_CLIENT)/.venv/bin/pip install -q $(PIP_FLAGS) -e ./$(PY_CLIENT)
	@touch $@

python-client: install $(PY_CLIENT)/.venv/.installed
	cd $(PY_CLIENT) && .venv/bin/mypy --strict src/gw_client
	bunx tsc --noEmit -p $(PY_CLIENT)/tests
	cd $(PY_CLIENT) && .venv/bin/pytest -q
	tmp=$$(mktemp -d) && $(PY_CLIENT)/.venv/bin/pip wheel -q $(PIP_FLAGS) --no-deps -w $$tmp ./$(PY_CLIENT) && ls $$tmp/gw_client-1.1.0-py3-none-any.whl && rm -rf $$tmp

# The browser tests (test/browser/) drive the system's chromium through playwright-core.
chromium:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium: $$(command -v chromium)"; else \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  echo "chromium missing: $$sudo apt-get update && $$sudo apt-get install -y chromium"; \
	  $$sudo apt-get update && $$sudo apt-get install -y chromium; fi

# The nginx streaming test (test/deploy/nginx-stream.test.ts) runs Debian's nginx in front of gw,
# with a throwaway certificate made by openssl.
nginx:
	@if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then echo "nginx: $$(command -v nginx || echo /usr/sbin/nginx)"; else \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  echo "nginx missing: $$sudo apt-get install -y --no-install-recommends nginx openssl"; \
	  $$sudo apt-get update && $$sudo apt-get install -y --no-install-recommends nginx openssl; fi

# The store tests run a real redis-server and a throwaway PostgreSQL 15 cluster on loopback, each
# started and stopped by the test that needs it (test/helpers/services.ts, docs/scale-out.md).
PG_BIN := /usr/lib/postgresql/15/bin
services:
	@missing=""; \
	  command -v redis-server >/dev/null 2>&1 || missing="redis-server"; \
	  for b in initdb pg_ctl postgres; do command -v $$b >/dev/null 2>&1 || [ -x $(PG_BIN)/$$b ] || missing="$$missing postgresql-15"; done; \
	  missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	  if [ -n "$${missing// }" ]; then \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    echo "services missing: $$sudo apt-get install -y --no-install-recommends $$missing"; \
	    $$sudo apt-get update && $$sudo apt-get install -y --no-install-recommends $$missing || exit 1; fi; \
	  echo "redis-server: $$(command -v redis-server) ($$(redis-server --version | grep -Eo 'v=[0-9.]+'))"; \
	  pg=$$(command -v postgres || echo $(PG_BIN)/postgres); echo "postgres: $$pg ($$($$pg --version))"

build: install $(DASHBOARD_ASSETS)
	bun run scripts/build.ts

bench: install
	bun run bench/run.ts

clean:
	rm -rf dist node_modules/.installed
