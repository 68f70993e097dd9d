#!/usr/bin/env bash
# check.sh — checks monitoring/ and the runbooks (scripts/test.sh runs it):
#   promtool check rules    the alert rules parse and their templates compile
#   promtool test rules     oj-alerts.test.yml: chosen alerts fire on made-up series
#   metric names            every oj_* name in the rules, the dashboard, the runbooks,
#                           the READMEs and docs/ is registered by the Go code (a histogram's
#                           _bucket/_count/_sum count as the histogram)
#   the dashboard is valid JSON
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"

command -v promtool >/dev/null || { echo "check.sh: promtool missing (scripts/deps.sh test installs Debian's prometheus)" >&2; exit 1; }
promtool check rules monitoring/oj-alerts.yml
(cd monitoring && promtool test rules oj-alerts.test.yml)
python3 -m json.tool monitoring/grafana-dashboard.json >/dev/null

registered=$(grep -rhoE 'Name: *"oj_[a-z0-9_]+"' --include='*.go' --exclude='*_test.go' core cmd sandbox |
	grep -oE 'oj_[a-z0-9_]+' | sort -u)
used=$(grep -ohE '\boj_[a-z0-9_]+' monitoring/oj-alerts.yml monitoring/grafana-dashboard.json runbooks/*.md README.md docs/*.md systemd/README.md |
	sed -E 's/_(bucket|count|sum)$//' | grep -v '_$' | sort -u)
missing=$(comm -23 <(printf '%s\n' "$used") <(printf '%s\n' "$registered"))
if [[ -n "$missing" ]]; then
	echo "check.sh: these metric names are used in monitoring/, runbooks/, docs/ or the READMEs but no Go code registers them:" >&2
	# shellcheck disable=SC2086 # one name a line
	printf '  %s\n' $missing >&2
	exit 1
fi
echo "metric names: $(wc -w <<<"$used") used, all registered"
