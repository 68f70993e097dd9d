#!/usr/bin/env bash
# check-deb.sh — checks a built .deb (what .ci/run runs after `make deb`): its control
# data, that it ships ojd and ojctl, the systemd units and timers, the README and docs/,
# and /etc/oj/ojd.yaml as a conffile (an operator's edits survive an upgrade), and, when
# systemd-analyze is installed, that the units verify with the package's own binaries.
#
#   bash packaging/check-deb.sh var/deb/oj_VERSION_amd64.deb
set -euo pipefail

deb=${1:?usage: check-deb.sh PACKAGE.deb}
fail=0
bad() { echo "check-deb.sh: $*" >&2; fail=1; }

info=$(dpkg-deb --info "$deb")
grep -q '^ *Package: oj$' <<<"$info" || bad "control: Package is not oj"
grep -q '^ *Architecture: amd64$' <<<"$info" || bad "control: Architecture is not amd64"
grep -q '^ *Depends:.*libseccomp2' <<<"$info" || bad "control: Depends lacks libseccomp2"
# Every language's Debian packages (languages.yaml) are among the package's Depends,
# Recommends or Suggests, so that apt shows a deployer what each language needs.
related=$(grep -E '^ *(Depends|Recommends|Suggests):' <<<"$info" | sed -E 's/^ *[A-Za-z]+://; s/\([^)]*\)//g' | tr ',' '\n' | tr -d ' ')
for p in $(bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/languages.sh"); do
	grep -qxF "$p" <<<"$related" || bad "control: language package $p is not in Depends, Recommends or Suggests (packaging/nfpm.yaml)"
done

contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}' | sed 's|^\./|/|')
want=(/usr/bin/ojd /usr/bin/ojctl /etc/oj/ojd.yaml
	/lib/systemd/system/ojd-api.service /lib/systemd/system/ojd-dispatcher.service
	/lib/systemd/system/ojd-worker.service
	/lib/systemd/system/ojctl-trim.service /lib/systemd/system/ojctl-trim.timer
	/lib/systemd/system/ojctl-dlq-replay.service /lib/systemd/system/ojctl-dlq-replay.timer)
for f in "${want[@]}"; do
	grep -qxF "$f" <<<"$contents" || bad "contents: $f missing"
done
# Every unit of systemd/ is shipped, not only those named above.
for u in "$(dirname "${BASH_SOURCE[0]}")"/../systemd/*.service "$(dirname "${BASH_SOURCE[0]}")"/../systemd/*.timer; do
	grep -qxF "/lib/systemd/system/$(basename "$u")" <<<"$contents" || bad "contents: unit $(basename "$u") missing"
done

# The README and every page of docs/ are shipped (docs/api.md in api/, beside openapi.yaml).
grep -qxF /usr/share/doc/oj/README.md <<<"$contents" || bad "contents: README.md missing"
for m in "$(dirname "${BASH_SOURCE[0]}")"/../docs/*.md; do
	n=$(basename "$m")
	[[ $n == api.md ]] && n=api/api.md
	grep -qxF "/usr/share/doc/oj/$n" <<<"$contents" || bad "contents: docs/$(basename "$m") missing"
done
for y in api/openapi.yaml judge0-openapi.yaml; do
	grep -qxF "/usr/share/doc/oj/$y" <<<"$contents" || bad "contents: docs/$(basename "$y") missing"
done

conffiles=$(dpkg-deb --info "$deb" conffiles 2>/dev/null || true)
grep -qxF /etc/oj/ojd.yaml <<<"$conffiles" || bad "conffiles: /etc/oj/ojd.yaml is not a conffile (conffiles: ${conffiles:-none})"

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
dpkg-deb --extract "$deb" "$tree"
for b in ojd ojctl; do
	file "$tree/usr/bin/$b" 2>/dev/null | grep -q 'pie executable' || [[ ! -x /usr/bin/file ]] || bad "/usr/bin/$b is not a PIE executable"
done
"$tree/usr/bin/ojd" --config "$tree/etc/oj/ojd.yaml" config >/dev/null || bad "the packaged ojd does not read the packaged /etc/oj/ojd.yaml"

# systemd-analyze verify checks the units' syntax, their dependencies and that their
# programs exist: on copies whose /usr/bin/ points into the package's tree (the host
# need not have oj installed; --root would hide the host's own targets). Optional: a
# build host without systemd skips it.
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir "$tree/verify"
	for u in "$tree"/lib/systemd/system/*.service "$tree"/lib/systemd/system/*.timer; do
		sed "s|/usr/bin/|$tree/usr/bin/|g" "$u" >"$tree/verify/$(basename "$u")"
	done
	if ! out=$(cd "$tree/verify" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no ./*.service ./*.timer 2>&1); then
		bad "systemd-analyze verify failed:"
		echo "$out" >&2
	elif [[ -n "$out" ]]; then
		echo "$out" >&2
	fi
else
	echo "check-deb.sh: systemd-analyze not installed: units not verified" >&2
fi

if ((fail)); then
	exit 1
fi
echo "check-deb.sh: $deb ok ($(wc -l <<<"$contents") paths; binaries, units, /etc/oj/ojd.yaml a conffile)"
