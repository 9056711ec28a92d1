# gw: the two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.bun/bin:$(PATH)
# hnswlib-node is a native addon; node-gyp must build it against the machine's Node headers.
export npm_config_nodedir ?= /usr

.PHONY: run test build bench install bun typecheck clean

bun:
	@command -v bun >/dev/null 2>&1 || npm install -g bun
	@bun --version >/dev/null

node_modules/.installed: package.json bun.lock | bun
	bun install --frozen-lockfile
	@touch $@

install: node_modules/.installed

run: install
	bun run src/main.ts serve

typecheck: install
	bunx tsc --noEmit -p .

test: install typecheck
	bun test

build: install
	bun run scripts/build.ts

bench: install
	bun run bench/run.ts

clean:
	rm -rf dist node_modules/.installed
