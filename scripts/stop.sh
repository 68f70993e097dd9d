#!/usr/bin/env bash
# stop.sh — what `make stop` and `make distclean` run: stops what `make run` started for this
# checkout and undoes what a killed ojd left behind.
#
#   stop.sh           stops this checkout's ojd if it still runs (SIGTERM, as Ctrl-C; SIGKILL
#                     after 45 s), stops the var/stack PostgreSQL and Redis (data kept), then
#                     unmounts whatever is still mounted under var/ and under the judge's work
#                     dir (an ojd killed before its shutdown leaves its tasks tmpfs there)
#   stop.sh --remove  the same, then removes bin/, var/ and the work dir (make distclean)
#
# The work dir is the one run.sh chose (scripts/checkout.sh: var/work, or a directory
# under /var/tmp for a checkout under /tmp); a judge.work_dir edited elsewhere in
# var/ojd.yaml is the operator's to clean.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
# shellcheck source=scripts/checkout.sh
. "$ROOT/scripts/checkout.sh"

remove=
case "${1:-}" in
"") ;;
--remove) remove=1 ;;
*) echo "usage: stop.sh [--remove]" >&2; exit 2 ;;
esac

VAR="$ROOT/var"
WORK_DIR=$(oj_work_dir "$ROOT")

if pid=$(oj_ojd_pid "$ROOT"); then
	echo "stopping ojd (pid $pid; in-flight judging may take up to worker.shutdown_grace)"
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 450); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "ojd (pid $pid) still runs 45 s after SIGTERM: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	fi
fi
rm -f "$VAR/ojd.pid"

if [[ -d "$VAR/stack" ]]; then
	bash "$ROOT/scripts/stack.sh" stop --dir "$VAR/stack"
else
	echo "no var/stack"
fi

rc=0
oj_unmount_under "$VAR" || rc=1
if [[ "$WORK_DIR" != "$VAR"/* ]]; then
	oj_unmount_under "$WORK_DIR" || rc=1
fi
[[ $rc -eq 0 ]] || exit "$rc"

if [[ -n "$remove" ]]; then
	rm -rf "$ROOT/bin" "$VAR"
	if [[ "$WORK_DIR" != "$VAR"/* && -d "$WORK_DIR" ]]; then
		rm -rf "$WORK_DIR"
		echo "removed $WORK_DIR (this checkout's judge work dir)"
	fi
fi
