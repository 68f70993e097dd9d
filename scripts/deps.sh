#!/usr/bin/env bash
# deps.sh — installs the Debian packages oj needs (only the missing ones) and checks Go.
#
#   bash scripts/deps.sh        check and install
#   . scripts/deps.sh           the same, and leaves Go's directory on the caller's PATH
#
# Quick when everything is there: one dpkg-query, no apt-get. Add a package by adding it
# to OJ_DEB_PACKAGES below.
set -euo pipefail

OJ_DEB_PACKAGES="postgresql redis-server openssl libseccomp-dev gcc g++ make tmux python3 openjdk-17-jdk-headless rustc curl git ca-certificates"
# The toolchains of the judge's languages: the "packages" of languages.yaml
# (scripts/languages.sh), so that every language's tests run here and in CI.
# shellcheck source=languages.sh
. "$(dirname "${BASH_SOURCE[0]}")/languages.sh"
OJ_DEB_PACKAGES+=" $(oj_language_packages | tr '\n' ' ')"
# promtool (monitoring/check.sh) comes with Debian's prometheus.
command -v promtool >/dev/null 2>&1 || OJ_DEB_PACKAGES+=" prometheus"
OJ_GO_MIN="1.22"
OJ_GO_DIR="/usr/local/go/bin"

oj_deps_missing() {
	local pkg status
	for pkg in $OJ_DEB_PACKAGES; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		if [[ "$status" != "install ok installed" ]]; then
			printf '%s\n' "$pkg"
		fi
	done
}

oj_deps_install() {
	local missing=()
	mapfile -t missing < <(oj_deps_missing)
	[[ ${#missing[@]} -eq 0 ]] && return 0
	echo "deps: installing missing packages: ${missing[*]}" >&2
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || { echo "deps: not root and no sudo; install as root: ${missing[*]}" >&2; return 1; }
		sudo=(sudo)
	fi
	# The packages' own services (postgresql on 5432, redis on 6379) are not used: oj runs
	# private instances (scripts/stack.sh). Where no policy-rc.d exists, add one for the
	# length of the install so the package scripts do not start them.
	local policy=/usr/sbin/policy-rc.d added_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
		"${sudo[@]}" chmod 0755 "$policy"
		added_policy=1
	fi
	local rc=0
	{
		"${sudo[@]}" apt-get update -qq &&
			"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
	} || rc=$?
	if [[ $added_policy -eq 1 ]]; then
		"${sudo[@]}" rm -f "$policy"
	fi
	if [[ $rc -ne 0 ]]; then
		echo "deps: apt-get failed (exit $rc)" >&2
		return "$rc"
	fi
	mapfile -t missing < <(oj_deps_missing)
	if [[ ${#missing[@]} -ne 0 ]]; then
		echo "deps: still missing after apt-get install: ${missing[*]}" >&2
		return 1
	fi
}

# oj_version_ge A B: true when version A >= version B (dotted numbers).
oj_version_ge() {
	[[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

oj_deps_go() {
	if ! command -v go >/dev/null 2>&1 && [[ -x "$OJ_GO_DIR/go" ]]; then
		PATH="$OJ_GO_DIR:$PATH"
		export PATH
	fi
	if ! command -v go >/dev/null 2>&1; then
		echo "deps: Go >= $OJ_GO_MIN is required: no 'go' on PATH and no $OJ_GO_DIR/go." >&2
		echo "deps: install Go from the official tarball into /usr/local/go (see README.md)." >&2
		return 1
	fi
	local v
	v=$(go env GOVERSION 2>/dev/null || true)
	v=${v#go}
	v=${v%%[!0-9.]*}
	if [[ -z "$v" ]] || ! oj_version_ge "$v" "$OJ_GO_MIN"; then
		echo "deps: Go >= $OJ_GO_MIN is required, found '$(command -v go)' version '${v:-unknown}'." >&2
		return 1
	fi
}

oj_deps_main() {
	oj_deps_install
	oj_deps_go
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	oj_deps_main
	echo "deps: ok ($(go env GOVERSION))"
else
	oj_deps_main
fi
