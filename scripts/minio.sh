#!/usr/bin/env bash
# Starts a throwaway MinIO server on 127.0.0.1 for the S3 tests and prints the variables
# the tests read. Usage:
#   eval "$(scripts/minio.sh start DIR)"   # builds MinIO if missing; exports OJ_TEST_S3_*
#   scripts/minio.sh stop DIR              # stops it and removes DIR
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[[ -n $cmd && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
bin="$(go env GOPATH)/bin/minio"
case $cmd in
start)
	if [[ ! -x $bin ]]; then
		echo "building MinIO (several minutes the first time)…" >&2
		go install github.com/minio/minio@latest >&2
	fi
	mkdir -p "$dir/data"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	MINIO_ROOT_USER=ojtestaccess MINIO_ROOT_PASSWORD=ojtestsecret MINIO_BROWSER=off MINIO_UPDATE=off \
		nohup "$bin" server --quiet --address "127.0.0.1:$port" --console-address 127.0.0.1:0 "$dir/data" \
		>"$dir/minio.log" 2>&1 &
	echo $! >"$dir/minio.pid"
	for _ in $(seq 300); do
		curl -fsS "http://127.0.0.1:$port/minio/health/live" >/dev/null 2>&1 && break
		sleep 0.1
	done
	curl -fsS "http://127.0.0.1:$port/minio/health/live" >/dev/null || { cat "$dir/minio.log" >&2; exit 1; }
	echo "export OJ_TEST_S3_ENDPOINT=127.0.0.1:$port OJ_TEST_S3_ACCESS_KEY=ojtestaccess OJ_TEST_S3_SECRET_KEY=ojtestsecret"
	;;
stop)
	if [[ -f $dir/minio.pid ]]; then
		kill "$(cat "$dir/minio.pid")" 2>/dev/null || true
		rm -f "$dir/minio.pid"
	fi
	rm -rf "$dir"
	;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
