#!/usr/bin/env bash
# bench.sh — what `make bench` runs: the benchmarks on a throwaway PostgreSQL + Redis.
#
# The same stack and environment as test.sh (OJ_TEST_POSTGRES_URL, OJ_TEST_REDIS_ADDR,
# OJ_TEST_STACK_SCRIPT, OJ_TEST_STACK_DIR), always stopped and removed afterwards.
# Benchmarks print their own tables; this prints go test's output as it comes.
#
# Variables: BENCH (the -bench pattern, default .), PKGS (default ./...), BENCHTIME
# (default: go test's 1s; the pipeline and load benchmarks run their fixed workload once,
# the sandbox and judge benchmarks repeat runs for about a second), BENCH_ARGS (extra go test
# arguments, split on spaces).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
# shellcheck source=scripts/deps.sh
. "$ROOT/scripts/deps.sh"

read -ra pkgs <<<"${PKGS:-./...}"
read -ra bench_args <<<"${BENCH_ARGS:-}"

# shellcheck source=scripts/throwaway.sh
. "$ROOT/scripts/throwaway.sh"
oj_throwaway_stack bench

benchtime=()
[[ -n "${BENCHTIME:-}" ]] && benchtime=(-benchtime "$BENCHTIME")
echo "== go test -bench ${BENCH:-.} ${benchtime[*]} ${pkgs[*]} ${bench_args[*]}"
go test -run '^$' -bench "${BENCH:-.}" "${benchtime[@]}" -benchmem -count=1 \
	-timeout 60m "${bench_args[@]}" "${pkgs[@]}"
