#!/usr/bin/env bash
# stack.sh — a private PostgreSQL 15 + Redis for one checkout or one test run.
#
#   stack.sh start  --dir DIR [--pg-port N|auto] [--redis-port N|auto]
#   stack.sh stop   --dir DIR
#   stack.sh status --dir DIR
#   stack.sh pg-stop|pg-start|redis-stop|redis-start --dir DIR
#
# Both listen on 127.0.0.1 only. PostgreSQL runs as the `postgres` user (it refuses root)
# with its data in DIR/pg; Redis runs with appendonly in DIR/redis. `start` writes
# DIR/stack.env (OJ_POSTGRES_URL, OJ_REDIS_ADDR, PG_PORT, REDIS_PORT) and prints it.
# Every command is idempotent: start on a running stack and stop on a stopped one succeed
# and change nothing. pg-stop/redis-stop keep the data (tests use them to simulate an
# outage); pg-start/redis-start bring the same instance back on the same port.
#
# Environment: OJ_PG_BIN (default /usr/lib/postgresql/15/bin), OJ_STACK_TIMEOUT (seconds
# to wait for a server to answer, default 60).
set -euo pipefail

PG_BIN=${OJ_PG_BIN:-/usr/lib/postgresql/15/bin}
TIMEOUT=${OJ_STACK_TIMEOUT:-60}
DEFAULT_PG_PORT=55432
DEFAULT_REDIS_PORT=56379

die() {
	echo "stack: $*" >&2
	exit 1
}
log() { echo "stack: $*" >&2; }

usage() {
	sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# --- arguments ---------------------------------------------------------------------------

CMD=${1:-}
case "$CMD" in
start | stop | status | pg-stop | pg-start | redis-stop | redis-start) ;;
*) usage ;;
esac
shift
DIR="" PG_PORT_ARG="" REDIS_PORT_ARG=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	--dir) DIR=${2:?--dir needs a value}; shift 2 ;;
	--dir=*) DIR=${1#*=}; shift ;;
	--pg-port) PG_PORT_ARG=${2:?--pg-port needs a value}; shift 2 ;;
	--pg-port=*) PG_PORT_ARG=${1#*=}; shift ;;
	--redis-port) REDIS_PORT_ARG=${2:?--redis-port needs a value}; shift 2 ;;
	--redis-port=*) REDIS_PORT_ARG=${1#*=}; shift ;;
	-h | --help) usage ;;
	*) die "unknown argument: $1" ;;
	esac
done
[[ -n "$DIR" ]] || die "--dir DIR is required"
for p in "$PG_PORT_ARG" "$REDIS_PORT_ARG"; do
	[[ -z "$p" || "$p" == auto || "$p" =~ ^[0-9]+$ ]] || die "a port is a number or 'auto', not '$p'"
done
[[ $(id -u) -eq 0 ]] || die "run as root (PostgreSQL is started as the postgres user via runuser)"
[[ -x "$PG_BIN/pg_ctl" ]] || die "$PG_BIN/pg_ctl not found: run scripts/deps.sh (package postgresql, version 15)"
command -v redis-server >/dev/null || die "redis-server not found: run scripts/deps.sh"

if [[ ! -d "$DIR" ]]; then
	case "$CMD" in
	start) mkdir -p "$DIR" ;;
	status) echo "postgres: stopped"; echo "redis: stopped"; exit 3 ;;
	pg-start | redis-start) die "$DIR does not exist: run '$0 start --dir $DIR' first" ;;
	*) exit 0 ;; # nothing was ever started there: already stopped
	esac
fi
DIR=$(cd "$DIR" && pwd -P)
PGDATA="$DIR/pg"
PGRUN="$DIR/pg-run" # unix socket and server log, owned by postgres
PGLOG="$PGRUN/postgres.log"
REDIS_DIR="$DIR/redis"
REDIS_PID="$REDIS_DIR/redis.pid"
REDIS_LOG="$REDIS_DIR/redis.log"
ENV_FILE="$DIR/stack.env"

# One command at a time per DIR (two `start`s racing would both run initdb).
exec 9>"$DIR/.stack.lock"
flock -w 120 9 || die "another stack.sh holds $DIR/.stack.lock"

# --- helpers -----------------------------------------------------------------------------

# The lock's fd 9 is closed for every child: a daemon that inherited it would hold the
# lock for its whole life.
as_pg() { (cd / && runuser -u postgres -- "$@" 9>&-); }

# env_get KEY: a value from DIR/stack.env, empty if none.
env_get() {
	[[ -f "$ENV_FILE" ]] || return 0
	sed -n "s/^$1=//p" "$ENV_FILE" | tail -n1
}

# free_ports N: N distinct free TCP ports on 127.0.0.1, one a line (held open together
# while chosen, so two calls in one run cannot return the same port).
free_ports() {
	python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
PY
}

port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# PostgreSQL and every parent of DIR must be traversable by the postgres user.
make_traversable() {
	chmod 0755 "$DIR"
	local d=$DIR
	while [[ "$d" != "/" ]]; do
		d=$(dirname "$d")
		if ! runuser -u postgres -- test -x "$d"; then
			log "chmod o+x $d (PostgreSQL runs as postgres and must reach $DIR)"
			chmod o+x "$d"
		fi
	done
}

pg_running() {
	[[ -f "$PGDATA/PG_VERSION" ]] && as_pg "$PG_BIN/pg_ctl" status -D "$PGDATA" >/dev/null 2>&1
}

redis_pid() {
	local pid
	[[ -f "$REDIS_PID" ]] || return 1
	pid=$(cat "$REDIS_PID" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	# Not someone else's process that reused the pid.
	grep -q redis "/proc/$pid/comm" 2>/dev/null || return 1
	echo "$pid"
}

redis_running() { redis_pid >/dev/null; }

write_env() {
	local tmp="$ENV_FILE.tmp"
	cat >"$tmp" <<EOT
OJ_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/oj?sslmode=disable
OJ_REDIS_ADDR=127.0.0.1:$REDIS_PORT
PG_PORT=$PG_PORT
REDIS_PORT=$REDIS_PORT
OJ_STACK_DIR=$DIR
EOT
	chmod 0644 "$tmp"
	mv -f "$tmp" "$ENV_FILE"
}

# choose_ports: keeps the ports of an existing DIR (so URLs handed out stay true), takes
# explicit ones from the flags, picks free ones for "auto".
choose_ports() {
	local old_pg old_redis
	old_pg=$(env_get PG_PORT)
	old_redis=$(env_get REDIS_PORT)
	if pg_running; then
		[[ -z "$PG_PORT_ARG" || "$PG_PORT_ARG" == auto || "$PG_PORT_ARG" == "$old_pg" ]] ||
			die "PostgreSQL already runs in $DIR on port $old_pg, not $PG_PORT_ARG: stop it first"
		PG_PORT_ARG=$old_pg
	fi
	if redis_running; then
		[[ -z "$REDIS_PORT_ARG" || "$REDIS_PORT_ARG" == auto || "$REDIS_PORT_ARG" == "$old_redis" ]] ||
			die "Redis already runs in $DIR on port $old_redis, not $REDIS_PORT_ARG: stop it first"
		REDIS_PORT_ARG=$old_redis
	fi
	if [[ "$PG_PORT_ARG" == auto && -n "$old_pg" ]]; then PG_PORT_ARG=$old_pg; fi
	if [[ "$REDIS_PORT_ARG" == auto && -n "$old_redis" ]]; then REDIS_PORT_ARG=$old_redis; fi
	PG_PORT=${PG_PORT_ARG:-${old_pg:-$DEFAULT_PG_PORT}}
	REDIS_PORT=${REDIS_PORT_ARG:-${old_redis:-$DEFAULT_REDIS_PORT}}
	if [[ "$PG_PORT" == auto || "$REDIS_PORT" == auto ]]; then
		local ports
		mapfile -t ports < <(free_ports 2)
		[[ ${#ports[@]} -eq 2 ]] || die "could not pick free ports (python3 missing?)"
		[[ "$PG_PORT" == auto ]] && PG_PORT=${ports[0]}
		[[ "$REDIS_PORT" == auto ]] && REDIS_PORT=${ports[1]}
	fi
	[[ "$PG_PORT" != "$REDIS_PORT" ]] || die "PostgreSQL and Redis cannot share port $PG_PORT"
}

# ports_from_env: for the single-service commands; the ports the DIR was started with.
ports_from_env() {
	PG_PORT=$(env_get PG_PORT)
	REDIS_PORT=$(env_get REDIS_PORT)
	[[ -n "$PG_PORT" && -n "$REDIS_PORT" ]] || die "$ENV_FILE missing: run '$0 start --dir $DIR' first"
}

# --- PostgreSQL --------------------------------------------------------------------------

pg_init() {
	[[ -f "$PGDATA/PG_VERSION" ]] && return 0
	log "initdb $PGDATA"
	rm -rf "$PGDATA"
	install -d -o postgres -g postgres -m 0700 "$PGDATA"
	as_pg "$PG_BIN/initdb" -D "$PGDATA" --auth=trust -U postgres -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
		{ tail -n 30 "$DIR/initdb.log" >&2; die "initdb failed (log: $DIR/initdb.log)"; }
	echo "include_if_exists = 'oj.conf'" | as_pg tee -a "$PGDATA/postgresql.conf" >/dev/null
}

pg_write_conf() {
	# Regenerated at every start: the port can change between runs; the data stays.
	as_pg tee "$PGDATA/oj.conf" >/dev/null <<EOT
# written by scripts/stack.sh at every start; edit the script, not this file
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PGRUN'
max_connections = 200
shared_buffers = 256MB
# durability is part of what the tests check: keep fsync and synchronous commit on
fsync = on
synchronous_commit = on
full_page_writes = on
dynamic_shared_memory_type = posix
timezone = 'UTC'
log_timezone = 'UTC'
EOT
}

pg_wait() {
	local i
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -t 1; then
			return 0
		fi
		if ((i > 10)) && ! pg_running; then
			break
		fi
		sleep 0.2
	done
	log "PostgreSQL did not answer on 127.0.0.1:$PG_PORT within ${TIMEOUT}s; last lines of $PGLOG:"
	tail -n 30 "$PGLOG" >&2 || true
	exit 1
}

pg_start() {
	command -v runuser >/dev/null || die "runuser not found (package util-linux)"
	id postgres >/dev/null 2>&1 || die "no postgres user: install the postgresql package (scripts/deps.sh)"
	make_traversable
	install -d -o postgres -g postgres -m 0755 "$PGRUN"
	pg_init
	if pg_running; then
		pg_wait
		return 0
	fi
	port_in_use "$PG_PORT" && die "port $PG_PORT on 127.0.0.1 is taken by another process (use --pg-port N or auto)"
	pg_write_conf
	log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
	as_pg "$PG_BIN/pg_ctl" start -D "$PGDATA" -l "$PGLOG" -W >/dev/null ||
		{ tail -n 30 "$PGLOG" >&2 || true; die "pg_ctl start failed"; }
	pg_wait
	if [[ -z $("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -XtAc \
		"SELECT 1 FROM pg_database WHERE datname = 'oj'" 2>/dev/null || true) ]]; then
		"$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Xq -v ON_ERROR_STOP=1 \
			-c "CREATE DATABASE oj" >/dev/null || die "CREATE DATABASE oj failed"
	fi
}

pg_stop() {
	pg_running || return 0
	log "stopping PostgreSQL in $PGDATA"
	if ! as_pg "$PG_BIN/pg_ctl" stop -D "$PGDATA" -m fast -w -t "$TIMEOUT" >/dev/null 2>&1; then
		log "fast shutdown timed out; immediate shutdown"
		as_pg "$PG_BIN/pg_ctl" stop -D "$PGDATA" -m immediate -w -t "$TIMEOUT" >/dev/null 2>&1 || true
	fi
	if pg_running; then
		log "warning: PostgreSQL in $PGDATA is still running"
	fi
	return 0
}

# --- Redis -------------------------------------------------------------------------------

redis_wait() {
	local i
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		if [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; then
			return 0
		fi
		sleep 0.2
	done
	log "Redis did not answer on 127.0.0.1:$REDIS_PORT within ${TIMEOUT}s; last lines of $REDIS_LOG:"
	tail -n 30 "$REDIS_LOG" >&2 || true
	exit 1
}

redis_start() {
	mkdir -p "$REDIS_DIR"
	if redis_running; then
		redis_wait
		return 0
	fi
	port_in_use "$REDIS_PORT" && die "port $REDIS_PORT on 127.0.0.1 is taken by another process (use --redis-port N or auto)"
	rm -f "$REDIS_PID"
	log "starting Redis on 127.0.0.1:$REDIS_PORT"
	redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
		--appendonly yes --appendfsync everysec --save '' \
		--dir "$REDIS_DIR" --pidfile "$REDIS_PID" --logfile "$REDIS_LOG" 9>&- ||
		{ tail -n 30 "$REDIS_LOG" >&2 || true; die "redis-server failed to start"; }
	redis_wait
}

redis_stop() {
	local pid i
	pid=$(redis_pid) || { rm -f "$REDIS_PID"; return 0; }
	log "stopping Redis (pid $pid)"
	local port
	port=$(env_get REDIS_PORT)
	if [[ -n "$port" ]]; then
		timeout 10 redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
	fi
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		[[ $i -eq 20 ]] && kill -TERM "$pid" 2>/dev/null
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "Redis did not stop; SIGKILL $pid"
		kill -KILL "$pid" 2>/dev/null || true
		for ((i = 0; i < 25; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	fi
	rm -f "$REDIS_PID"
	return 0
}

# --- commands ----------------------------------------------------------------------------

print_env() { cat "$ENV_FILE"; }

case "$CMD" in
start)
	choose_ports
	if pg_running && redis_running; then
		pg_wait
		redis_wait
		write_env
		print_env
		exit 0
	fi
	write_env
	pg_start
	redis_start
	print_env
	;;
stop)
	pg_stop
	redis_stop
	;;
pg-stop) pg_stop ;;
redis-stop) redis_stop ;;
pg-start)
	ports_from_env
	pg_start
	;;
redis-start)
	ports_from_env
	redis_start
	;;
status)
	rc=0
	PG_PORT=$(env_get PG_PORT)
	REDIS_PORT=$(env_get REDIS_PORT)
	if pg_running; then
		echo "postgres: running on 127.0.0.1:${PG_PORT:-?} (data $PGDATA)"
	else
		echo "postgres: stopped"
		rc=3
	fi
	if pid=$(redis_pid); then
		echo "redis: running on 127.0.0.1:${REDIS_PORT:-?} (pid $pid, dir $REDIS_DIR)"
	else
		echo "redis: stopped"
		rc=3
	fi
	[[ -f "$ENV_FILE" ]] && print_env
	exit "$rc"
	;;
*) usage ;;
esac
