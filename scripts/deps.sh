#!/usr/bin/env bash
# deps.sh — installs the Debian packages oj needs (only the missing ones) and checks Go.
#
#   bash scripts/deps.sh [run|test]   check and install what running (make run, the
#                                     default) or testing (make test) needs
#   . scripts/deps.sh                 the same, for OJ_DEPS (run unless set), and leaves
#                                     Go's directory on the caller's PATH
#
# Quick when everything is there: one dpkg-query, no apt-get. Add a package by adding it
# to the list of what needs it below. oj runs PostgreSQL and Redis as private instances
# under var/ (scripts/stack.sh): the system services their packages enable are disabled
# again right after the install, as is any other the install enabled.
set -euo pipefail

# What running oj needs: the stack, the build (cgo with libseccomp, which cgo finds
# through pkg-config; git for Go's VCS stamp, the module proxy over HTTPS) and the
# toolchains of the default languages.
OJ_DEB_PACKAGES="postgresql redis-server libseccomp-dev pkg-config gcc g++ make git ca-certificates python3 openjdk-17-jdk-headless rustc"
# What the tests need besides: openssl (the Redis TLS tests' certificates), curl (MinIO's
# health check, scripts/minio.sh), tmux (the dashboard's end-to-end test).
OJ_DEB_TEST_PACKAGES="openssl curl tmux"
# promtool (monitoring/check.sh, make test only) comes with Debian's prometheus, unless
# one is on PATH already.
command -v promtool >/dev/null 2>&1 || OJ_DEB_TEST_PACKAGES+=" prometheus"
# The toolchains of the judge's languages: the "packages" of languages.yaml
# (scripts/languages.sh), so that every language runs here and its tests run in CI.
# shellcheck source=languages.sh
. "$(dirname "${BASH_SOURCE[0]}")/languages.sh"
OJ_DEB_PACKAGES+=" $(oj_language_packages | tr '\n' ' ')"
OJ_GO_MIN="1.22"
OJ_GO_DIR="/usr/local/go/bin"

# oj_deps_packages run|test: the packages that purpose needs, one a line, each once (a
# language's toolchain may be one oj itself needs: gcc, g++, openjdk-17-jdk-headless).
oj_deps_packages() {
	# shellcheck disable=SC2086 # the lists are split on spaces
	case "${1:-run}" in
	run) printf '%s\n' $OJ_DEB_PACKAGES ;;
	test) printf '%s\n' $OJ_DEB_PACKAGES $OJ_DEB_TEST_PACKAGES ;;
	*)
		echo "deps: unknown purpose '$1' (want run or test)" >&2
		return 2
		;;
	esac | awk '!seen[$0]++'
}

# oj_deps_missing run|test: the packages of that purpose not installed, one a line.
oj_deps_missing() {
	local pkg status pkgs
	pkgs=$(oj_deps_packages "$1") || return
	for pkg in $pkgs; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		if [[ "$status" != "install ok installed" ]]; then
			printf '%s\n' "$pkg"
		fi
	done
}

# OJ_DEPS_ROOT prefixes the paths of the system this changes besides installing (the
# services' boot-time links under /etc, /usr/sbin/policy-rc.d): empty but in the tests.
OJ_DEPS_ROOT=${OJ_DEPS_ROOT:-}
OJ_DEPS_ETC=$OJ_DEPS_ROOT/etc

# oj_services_enabled: the units started at boot, one a line: systemd's wants links and
# SysV's start links (S01redis-server stands for redis-server.service).
oj_services_enabled() {
	local f n
	for f in "$OJ_DEPS_ETC"/systemd/system/*.wants/* "$OJ_DEPS_ETC"/rc[2-5].d/S*; do
		[[ -e $f || -L $f ]] || continue
		n=${f##*/}
		if [[ $f == "$OJ_DEPS_ETC"/rc* ]]; then
			n=${n#S}
			n=${n#[0-9][0-9]}.service
		fi
		printf '%s\n' "$n"
	done | sort -u
}

# oj_services_disable_new BEFORE: disables every unit enabled now that BEFORE (the output
# of oj_services_enabled) did not list — the services a package install enabled. systemctl
# disables a unit with or without systemd running (and its SysV links too); without it,
# update-rc.d disables the SysV links and deb-systemd-helper the systemd ones.
oj_services_disable_new() {
	local before=$1 unit
	local -a sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		sudo=(sudo)
	fi
	while read -r unit; do
		[[ -z $unit ]] && continue
		echo "deps: disabling $unit, which the install enabled (oj runs its own instances under var/)" >&2
		if command -v systemctl >/dev/null 2>&1; then
			"${sudo[@]}" systemctl ${OJ_DEPS_ROOT:+"--root=$OJ_DEPS_ROOT"} disable --quiet "$unit" ||
				echo "deps: systemctl disable $unit failed" >&2
			continue
		fi
		if command -v update-rc.d >/dev/null 2>&1 && compgen -G "$OJ_DEPS_ETC/rc[2-5].d/S[0-9][0-9]${unit%.service}" >/dev/null; then
			"${sudo[@]}" update-rc.d "${unit%.service}" disable >/dev/null || echo "deps: update-rc.d ${unit%.service} disable failed" >&2
		fi
		if command -v deb-systemd-helper >/dev/null 2>&1; then
			"${sudo[@]}" deb-systemd-helper disable "$unit" || echo "deps: deb-systemd-helper disable $unit failed" >&2
		fi
	done < <(comm -13 <(printf '%s\n' "$before") <(oj_services_enabled))
}

# oj_deps_install run|test: installs the missing packages of that purpose.
oj_deps_install() {
	local missing=()
	mapfile -t missing < <(oj_deps_missing "$1")
	[[ ${#missing[@]} -eq 0 ]] && return 0
	echo "deps: installing missing packages: ${missing[*]}" >&2
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || { echo "deps: not root and no sudo; install as root: ${missing[*]}" >&2; return 1; }
		sudo=(sudo)
	fi
	# The packages' own services (postgresql on 5432, redis on 6379) are not used: oj runs
	# private instances (scripts/stack.sh). Where no policy-rc.d exists, add one for the
	# length of the install so the package scripts do not start them; what they enable is
	# disabled afterwards.
	local policy=$OJ_DEPS_ROOT/usr/sbin/policy-rc.d added_policy=0 enabled
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
		"${sudo[@]}" chmod 0755 "$policy"
		added_policy=1
	fi
	enabled=$(oj_services_enabled)
	local rc=0
	{
		"${sudo[@]}" apt-get update -qq &&
			"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
	} || rc=$?
	oj_services_disable_new "$enabled"
	if [[ $added_policy -eq 1 ]]; then
		"${sudo[@]}" rm -f "$policy"
	fi
	if [[ $rc -ne 0 ]]; then
		echo "deps: apt-get failed (exit $rc)" >&2
		return "$rc"
	fi
	mapfile -t missing < <(oj_deps_missing "$1")
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
		echo "deps: install Go from the official tarball into /usr/local/go (https://go.dev/doc/install)." >&2
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

# oj_deps_main run|test
oj_deps_main() {
	oj_deps_install "$1"
	oj_deps_go
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	oj_deps_main "${1:-run}"
	echo "deps: ok ($(go env GOVERSION))"
else
	oj_deps_main "${OJ_DEPS:-run}"
fi
