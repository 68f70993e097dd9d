#!/usr/bin/env bash
# run.sh — what `make run` runs: the whole system on this machine, in the foreground.
#
# Installs what is missing (deps.sh), starts this checkout's persistent PostgreSQL + Redis
# under var/stack (ports 55432 and 56379 unless PG_PORT / REDIS_PORT say otherwise; a stack
# already running keeps its ports), builds bin/ojd and bin/ojctl, writes var/ojd.yaml if it
# does not exist (an existing one is kept as the operator left it), checks it with `ojd
# config`, applies the migrations, creates an admin token once (var/admin.token, mode 0600)
# and runs `ojd all`. Once ojd is ready — the API bound and the worker's self-check passed —
# it prints a banner (banner.sh): every role ojd all runs (the API at the address it bound —
# not the one asked for: with port 0 the kernel picks the port — the dispatcher and the
# worker) with what each does, the stack under them, the admin token by name and role as
# OJCTL_SERVER / OJCTL_TOKEN, and the `ojd token create` command for this checkout. A failed self-check ends ojd, and so this script, with the
# reason as the last line and a non-zero exit.
#
# The judge's work dir is var/work, unless the checkout is under /tmp (or /dev, /proc, /w),
# which every sandboxed run gets a fresh one of and where the worker refuses a work dir:
# then it is /var/tmp/oj-work-NAME-HASH (scripts/checkout.sh), and this script says so.
# API_ADDR=host:port chooses the address (over OJ_API_LISTEN and the config's api.listen);
# API_ADDR=127.0.0.1:0 takes any free port. Ctrl-C stops ojd; the stack keeps running
# until `make stop`, which also stops an ojd still running (var/ojd.pid) and unmounts what
# a killed one left.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
# shellcheck source=scripts/deps.sh
. "$ROOT/scripts/deps.sh"
# shellcheck source=scripts/checkout.sh
. "$ROOT/scripts/checkout.sh"
# shellcheck source=scripts/banner.sh
. "$ROOT/scripts/banner.sh"

VAR="$ROOT/var"
STACK_DIR="$VAR/stack"
CONFIG="$VAR/ojd.yaml"
TOKEN_FILE="$VAR/admin.token"
# The token's name, for the banner (the database keeps only its hash).
TOKEN_NAME_FILE="$VAR/admin.token.name"
# ojd writes the address it bound here (and removes it when it exits).
ADDR_FILE="$VAR/api.addr"
# make stop finds the ojd to stop here (this script's pid, which ojd takes over by exec).
PID_FILE="$VAR/ojd.pid"
WORK_DIR=$(oj_work_dir "$ROOT")
mkdir -p "$VAR" "$VAR/objects"

args=(start --dir "$STACK_DIR")
[[ -n "${PG_PORT:-}" ]] && args+=(--pg-port "$PG_PORT")
[[ -n "${REDIS_PORT:-}" ]] && args+=(--redis-port "$REDIS_PORT")
bash "$ROOT/scripts/stack.sh" "${args[@]}" >/dev/null
# shellcheck disable=SC1091 # written by stack.sh
. "$STACK_DIR/stack.env"

echo "== go build -o bin/ ./cmd/..."
mkdir -p bin
go build -o bin/ ./cmd/...

if [[ ! -f "$CONFIG" ]]; then
	echo "== writing $CONFIG"
	if [[ "$WORK_DIR" != "$VAR/work" ]]; then
		echo "== this checkout is under $(oj_sandbox_dir "$ROOT"), which every sandboxed run gets a fresh one of, so the"
		echo "   worker cannot keep its work dir in var/: judge.work_dir is $WORK_DIR"
		echo "   (make distclean removes it)"
	fi
	cat >"$CONFIG" <<EOT
# Written once by scripts/run.sh for this checkout's stack (var/stack); edit freely, it is
# not overwritten. OJ_* environment variables and flags override these keys.
postgres:
  url: $OJ_POSTGRES_URL
redis:
  addr: $OJ_REDIS_ADDR
api:
  listen: 127.0.0.1:8080
judge0:
  enabled: true # Judge0 CE's API under /judge0 (docs/judge0.md); false turns it off
storage:
  backend: fs
  fs:
    root: $VAR/objects
judge:
  work_dir: $WORK_DIR
  cache:
    dir: $VAR/cache
log:
  level: info
EOT
else
	echo "== keeping $CONFIG"
	if ! grep -qF "$OJ_POSTGRES_URL" "$CONFIG" || ! grep -qF "$OJ_REDIS_ADDR" "$CONFIG"; then
		echo "warning: $CONFIG does not mention this stack's $OJ_POSTGRES_URL / $OJ_REDIS_ADDR" >&2
		echo "warning: (the stack's ports changed?) edit it or remove it to have it rewritten" >&2
	fi
fi

OJD=("$ROOT/bin/ojd" --config "$CONFIG")

# The whole configuration is checked before anything starts: an unknown key stops here
# with its name and the nearest valid one, as ojd would at start.
effective=$("${OJD[@]}" config)
work_dir=$(printf '%s\n' "$effective" | awk '/^judge:/ { j = 1; next } /^[^ ]/ { j = 0 } j && /^  work_dir:/ { print $2 }')
work_dir=${work_dir//\"/}
if [[ -n "$(oj_sandbox_dir "$work_dir")" ]]; then
	echo "warning: judge.work_dir $work_dir (in $CONFIG) is inside $(oj_sandbox_dir "$work_dir"): the worker will refuse it." >&2
	echo "warning: set it to $WORK_DIR, or remove $CONFIG to have it rewritten" >&2
fi

echo "== ojd migrate up"
"${OJD[@]}" migrate up

# A token is made once per database: a new cluster (var/stack/pg recreated) gets a new one.
if [[ ! -s "$TOKEN_FILE" || "$STACK_DIR/pg/PG_VERSION" -nt "$TOKEN_FILE" ]]; then
	echo "== ojd token create (admin)"
	token_name="admin-$(date +%Y%m%d%H%M%S)"
	out=$("${OJD[@]}" token create --name "$token_name" --role admin)
	token=$(printf '%s\n' "$out" | tail -n 1)
	[[ -n "$token" ]] || { echo "ojd token create printed no token" >&2; exit 1; }
	(umask 077 && printf '%s\n' "$token" >"$TOKEN_FILE")
	printf '%s\n' "$token_name" >"$TOKEN_NAME_FILE"
fi
token_name=$(cat "$TOKEN_NAME_FILE" 2>/dev/null || true)
token_name=${token_name:-made before its name was kept}
lanes=$(printf '%s\n' "$effective" | oj_lanes)
chmod 0600 "$TOKEN_FILE"

# announce waits for ojd (process $1, this script's pid once exec'd) to be ready — ojd
# writes the address it bound once its worker's self-check passed — then prints that
# address; it gives up quietly if ojd exits first (a busy port, a failed self-check: ojd
# says why, last).
announce() {
	local pid=$1 addr host port
	until [[ -s "$ADDR_FILE" ]]; do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	addr=$(<"$ADDR_FILE")
	host=${addr%:*} port=${addr##*:}
	# An address bound on every interface is reached on loopback from here.
	case "$host" in "" | 0.0.0.0 | "[::]") host=127.0.0.1 ;; esac
	oj_banner "http://$host:$port" "$CONFIG" "$STACK_DIR" "$TOKEN_FILE" "$token_name" "$lanes" "$work_dir" \
		"$OJ_POSTGRES_URL" "$OJ_REDIS_ADDR" "${OJD[@]}"
}

all=(all --addr-file "$ADDR_FILE")
if [[ -n "${API_ADDR:-}" ]]; then
	all+=(--listen "$API_ADDR")
	echo "== ojd all (API_ADDR=$API_ADDR)"
else
	echo "== ojd all (api.listen of $CONFIG, or OJ_API_LISTEN; API_ADDR=host:port chooses)"
fi
rm -f "$ADDR_FILE"
echo $$ >"$PID_FILE"
announce $$ &
exec "${OJD[@]}" "${all[@]}"
