#!/usr/bin/env bash
# banner.sh — what `make run` prints once `ojd all` is ready (sourced by run.sh): every
# role the process runs, where it is reached and what it does, the stack under it, and
# the token it hands out with its name and role. scripts_test.go checks it.

# oj_lanes reads `ojd config` on stdin and prints the worker's concurrency per lane, as
# "heavy 2, light 2, rejudge 1, run 1".
oj_lanes() {
	awk '
		/^worker:/ { w = 1; next }
		/^[^ ]/ { w = 0; c = 0 }
		w && /^  concurrency:/ { c = 1; next }
		w && c && /^    [^ ]/ { k = $1; sub(/:$/, "", k); out = out (out == "" ? "" : ", ") k " " $2; next }
		w && /^  [^ ]/ { c = 0 }
		END { print out }'
}

# oj_banner URL CONFIG STACK_DIR TOKEN_FILE TOKEN_NAME LANES WORK_DIR PG_URL REDIS_ADDR OJD...
# prints the banner; OJD... is the ojd command line for this checkout.
oj_banner() {
	local url=$1 config=$2 stack=$3 token_file=$4 token_name=$5 lanes=$6 work_dir=$7 pg=$8 redis=$9
	shift 9
	local token
	token=$(cat "$token_file")
	cat <<EOT

oj is running: \`ojd all\`, one process with three roles (config: $config)

  api         $url
              submissions, problems, the results feed, runs, /admin/v1 (ojctl);
              /healthz, /readyz and /metrics
  dispatcher  no address: moves committed submissions from PostgreSQL's outbox to the Redis
              streams, re-drives those whose stream entry was lost, sends webhooks, prunes
              old events and runs
  worker      no address: claims and judges submissions in the sandbox, $lanes at
              once per lane (worker.concurrency); its self-check passed; work dir $work_dir

  under them: PostgreSQL $pg and Redis $redis (stack: $stack)

The token below is the admin token "$token_name" (role admin: every route, /admin/v1
included), saved in $token_file. For ojctl:

  export OJCTL_SERVER=$url
  export OJCTL_TOKEN=$token

More tokens (the token is the last line printed; --role user|reader|admin):

  $(printf '%q ' "$@")token create --name NAME --role user

Ctrl-C stops ojd (it answers 503 while it drains); \`make stop\` stops it too, then
PostgreSQL and Redis, and unmounts what a killed ojd left (judge.work_dir: $work_dir).

EOT
}
