#!/usr/bin/env bash
# languages.sh — the Debian packages of the judge's languages, read from a languages
# file's "packages:" lists (core/judge/lang/languages.yaml by default).
#
#   bash scripts/languages.sh [FILE]    prints them, one a line
#   . scripts/languages.sh              defines oj_language_packages [FILE]
#
# scripts/deps.sh installs them with the rest; production hosts use
# "ojd languages install", which reads judge.languages_file.

oj_language_packages() {
	local file=${1:-"$(dirname "${BASH_SOURCE[0]}")/../core/judge/lang/languages.yaml"}
	# "    packages: [gcc, libc6-dev]" → gcc, libc6-dev (flow lists only: the file's style).
	awk '/^[[:space:]]+packages:[[:space:]]*\[/ {
		sub(/^[^[]*\[/, ""); sub(/\].*$/, "")
		n = split($0, p, ",")
		for (i = 1; i <= n; i++) { gsub(/[[:space:]"'\'']/, "", p[i]); if (p[i] != "" && !seen[p[i]]++) print p[i] }
	}' "$file"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	oj_language_packages "$@"
fi
