# shellcheck shell=bash
# throwaway.sh — sourced by test.sh and bench.sh: a throwaway PostgreSQL + Redis (and, on
# request, MinIO) in a mktemp dir, always stopped and removed when the script exits, also
# on failure or Ctrl-C. Defines oj_throwaway_stack NAME [minio].
#
# Exports for the tests: OJ_TEST_POSTGRES_URL, OJ_TEST_REDIS_ADDR, OJ_TEST_STACK_SCRIPT
# (stack.sh, to stop/start this stack or start others), OJ_TEST_STACK_DIR, and with minio
# OJ_TEST_S3_ENDPOINT, OJ_TEST_S3_ACCESS_KEY, OJ_TEST_S3_SECRET_KEY.

oj_throwaway_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	bash "$ROOT/scripts/minio.sh" stop "$STACK_DIR/minio" >/dev/null 2>&1 || true
	bash "$ROOT/scripts/stack.sh" stop --dir "$STACK_DIR" || true
	rm -rf "$STACK_DIR"
	exit "$rc"
}

oj_throwaway_stack() {
	STACK_DIR=$(mktemp -d "/tmp/oj-$1.XXXXXX")
	chmod 0755 "$STACK_DIR"
	trap oj_throwaway_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	echo "== stack in $STACK_DIR"
	bash "$ROOT/scripts/stack.sh" start --dir "$STACK_DIR" --pg-port auto --redis-port auto
	# shellcheck disable=SC1091 # written by stack.sh
	. "$STACK_DIR/stack.env"
	export OJ_TEST_POSTGRES_URL="$OJ_POSTGRES_URL"
	export OJ_TEST_REDIS_ADDR="$OJ_REDIS_ADDR"
	export OJ_TEST_STACK_SCRIPT="$ROOT/scripts/stack.sh"
	export OJ_TEST_STACK_DIR="$STACK_DIR"
	unset OJ_POSTGRES_URL OJ_REDIS_ADDR
	if [[ "${2:-}" == minio ]]; then
		# A real MinIO server for the S3 object-store tests (built once with go install).
		echo "== minio in $STACK_DIR/minio"
		eval "$(bash "$ROOT/scripts/minio.sh" start "$STACK_DIR/minio")"
	fi
}
