# oj — the front door. `make` alone lists the targets.
#
#   make test PKGS=./core/store/... TEST_ARGS='-run TestFinalize -v'
#   make bench BENCH=Pipeline PKGS=./core/...
#
# Every target that runs Go puts /usr/local/go/bin on PATH when go is not found.

SHELL := /bin/bash
export PATH := $(if $(shell command -v go 2>/dev/null),$(PATH),/usr/local/go/bin:$(PATH))

# Passed to the scripts through the environment.
export PKGS TEST_ARGS FUZZTIME BENCH BENCHTIME BENCH_ARGS PG_PORT REDIS_PORT API_ADDR
export PREFIX DESTDIR OJ_VERSION
export N CPP_RUNS SANDBOX_RUNS DD_MB DISK_DIR
export SUBMISSIONS

.DEFAULT_GOAL := help
.PHONY: help run test test-cluster bench bench-compare build lint stop clean distclean deb install test-vm

help: ## list the targets
	@echo "oj — make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 16
	@echo
	@echo "variables: PKGS, TEST_ARGS, FUZZTIME (test); BENCH, BENCHTIME, BENCH_ARGS (bench);"
	@echo "           PG_PORT, REDIS_PORT (run: ports of the var/stack PostgreSQL and Redis);"
	@echo "           API_ADDR (run: the API's host:port; host:0 takes any free port);"
	@echo "           PREFIX, DESTDIR (install); OJ_VERSION (deb);"
	@echo "           N, CPP_RUNS, SANDBOX_RUNS, DD_MB, DISK_DIR (bench-compare)"
	@echo "           SUBMISSIONS (test-cluster: the load, default 1000)"

run: ## install what is missing, start PostgreSQL + Redis under var/, run ojd all (foreground)
	@bash scripts/run.sh

test: ## build, vet, go test -race and a short fuzz pass on a throwaway PostgreSQL + Redis
	@bash scripts/test.sh

test-cluster: ## hosts in network namespaces, SUBMISSIONS (1000) submissions through Redis and PostgreSQL failovers, cut-off, killed and drained workers
	@bash scripts/test-cluster.sh

bench: ## benchmarks on a throwaway PostgreSQL + Redis (they print their own tables)
	@bash scripts/bench.sh

bench-compare: ## judging vs plain fork+exec, a plain Python loop and plain g++, idle and under a disk writer (ratios)
	@bash scripts/bench-compare.sh

build: ## go build -o bin/ ./cmd/...
	@mkdir -p bin
	go build -o bin/ ./cmd/...

lint: ## gofmt -l (must be empty), go vet, staticcheck when installed
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go' 2>/dev/null || find . -name '*.go' -not -path './var/*')); \
	if [ -n "$$out" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$out"; exit 1; fi
	go vet ./...
	@if command -v staticcheck >/dev/null 2>&1; then echo staticcheck ./...; staticcheck ./...; \
	else echo "(staticcheck not installed: skipped)"; fi

deb: ## build var/deb/oj_VERSION_amd64.deb (cgo binaries, units, /etc/oj/ojd.yaml) with nfpm
	@bash packaging/build.sh

install: build ## install binaries, units, /etc/oj/ojd.yaml and docs (PREFIX=/usr/local, DESTDIR)
	@bash packaging/install.sh

test-vm: ## Debian 12 guest (systemd, cgroup v2): .deb, PostgreSQL, Redis, judging, sandbox, reboot
	@bash scripts/vm/test.sh

stop: ## stop what `make run` started (ojd, the var/ PostgreSQL + Redis; data kept), unmount what a killed ojd left
	@bash scripts/stop.sh

clean: ## remove bin/ (var/, the local database and objects, is kept)
	rm -rf bin

distclean: ## `make stop`, then remove bin/, var/ (the local database too) and the judge's work dir
	@bash scripts/stop.sh --remove
