#!/usr/bin/env bash
# install.sh — what `make install` runs, and what `make deb` stages its package with, so
# both install the same files.
#
#   make install                          # into /usr/local (binaries), /etc/oj, /etc/systemd/system
#   make install PREFIX=/opt/oj DESTDIR=/tmp/root
#
# Environment: DESTDIR (""), PREFIX (/usr/local), SYSCONFDIR (/etc), UNITDIR
# (/etc/systemd/system for PREFIX=/usr/local, else PREFIX/lib/systemd/system; the .deb
# uses /lib/systemd/system), BIN_SRC (the built ojd and ojctl, default bin/).
#
# Installs: BINDIR/ojd, BINDIR/ojctl; the units and timers of systemd/ with their paths
# rewritten to BINDIR and DOCDIR; SYSCONFDIR/oj/ojd.yaml from packaging/ojd.yaml (never
# over an existing one: the template then goes to ojd.yaml.dist beside it); the docs, the
# runbooks, the alert rules and the dashboard in DOCDIR (PREFIX/share/doc/oj).
# Creating the oj user and starting the units is left to the package's postinst, or to
# the steps printed at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
if [[ -z "${UNITDIR:-}" ]]; then
	if [[ "$PREFIX" == /usr/local ]]; then UNITDIR=/etc/systemd/system; else UNITDIR=$PREFIX/lib/systemd/system; fi
fi
BIN_SRC=${BIN_SRC:-$ROOT/bin}
BINDIR=$PREFIX/bin
DOCDIR=$PREFIX/share/doc/oj

for b in ojd ojctl; do
	[[ -x "$BIN_SRC/$b" ]] || { echo "install.sh: $BIN_SRC/$b missing (make build first)" >&2; exit 1; }
done

d() { install -d -m 0755 "$DESTDIR$1"; }
f() { install -m "$1" "$2" "$DESTDIR$3"; }

d "$BINDIR"
f 0755 "$BIN_SRC/ojd" "$BINDIR/ojd"
f 0755 "$BIN_SRC/ojctl" "$BINDIR/ojctl"

# Units: the repository's name /usr/local/bin and /usr/local/share/doc/oj; point them at
# where this install put the binaries and docs.
d "$UNITDIR"
for u in systemd/*.service systemd/*.timer; do
	sed -e "s|/usr/local/bin/|$BINDIR/|g" -e "s|/usr/local/share/doc/oj|$DOCDIR|g" "$u" >"$DESTDIR$UNITDIR/$(basename "$u")"
	chmod 0644 "$DESTDIR$UNITDIR/$(basename "$u")"
done

d "$SYSCONFDIR/oj"
if [[ -e "$DESTDIR$SYSCONFDIR/oj/ojd.yaml" ]]; then
	f 0640 packaging/ojd.yaml "$SYSCONFDIR/oj/ojd.yaml.dist"
	echo "install.sh: kept $DESTDIR$SYSCONFDIR/oj/ojd.yaml; the current template is ojd.yaml.dist beside it" >&2
else
	f 0640 packaging/ojd.yaml "$SYSCONFDIR/oj/ojd.yaml"
fi

d "$DOCDIR"
d "$DOCDIR/runbooks"
d "$DOCDIR/api"
d "$DOCDIR/monitoring"
d "$DOCDIR/examples"
f 0644 README.md "$DOCDIR/README.md"
f 0644 systemd/README.md "$DOCDIR/install.md"
f 0644 packaging/copyright "$DOCDIR/copyright"
gzip -9n <packaging/changelog >"$DESTDIR$DOCDIR/changelog.gz"
chmod 0644 "$DESTDIR$DOCDIR/changelog.gz"
for r in runbooks/*.md; do f 0644 "$r" "$DOCDIR/runbooks/$(basename "$r")"; done
# Every page of docs/ beside the README (the problem format, the bounds, plugging a site
# in, configuration, ojctl, operations, …), and the HTTP API reference with its OpenAPI
# description in api/; the Judge0 face's OpenAPI description beside judge0.md, its page.
for m in docs/*.md; do
	[[ $m == docs/api.md ]] || f 0644 "$m" "$DOCDIR/$(basename "$m")"
done
f 0644 docs/judge0-openapi.yaml "$DOCDIR/judge0-openapi.yaml"
for a in docs/api.md docs/openapi.yaml; do f 0644 "$a" "$DOCDIR/api/$(basename "$a")"; done
for m in monitoring/oj-alerts.yml monitoring/grafana-dashboard.json; do f 0644 "$m" "$DOCDIR/monitoring/$(basename "$m")"; done
f 0644 systemd/crontab.example "$DOCDIR/examples/crontab.example"
f 0644 packaging/ojd.yaml "$DOCDIR/examples/ojd.yaml"
f 0644 packaging/ojd.env.example "$DOCDIR/examples/ojd.env"
# The worker refuses to start while a configured language's toolchain is missing: a
# languages file with only the languages of the package's Recommends (gcc, g++, python3),
# cut from the built-in defaults, for judge.languages_file.
{
	echo "# The built-in c11, cpp17 and python3 of oj's core/judge/lang/languages.yaml: the"
	echo "# languages whose toolchains oj's package recommends. Copy to /etc/oj/languages.yaml"
	echo "# and set judge.languages_file to it, or add the others once their toolchains are in."
	awk '/^languages:/ {print; next} /^  - id: / {keep = ($3 == "c11" || $3 == "cpp17" || $3 == "python3")} keep' \
		core/judge/lang/languages.yaml
} >"$DESTDIR$DOCDIR/examples/languages.yaml"
chmod 0644 "$DESTDIR$DOCDIR/examples/languages.yaml"

if [[ -z "$DESTDIR" ]]; then
	cat <<EOF
Installed oj into $PREFIX (units in $UNITDIR, configuration in $SYSCONFDIR/oj).
Next (see $DOCDIR/install.md):
  useradd --system --user-group --home-dir /var/lib/oj --shell /usr/sbin/nologin oj
  chown root:oj $SYSCONFDIR/oj $SYSCONFDIR/oj/ojd.yaml && chmod 0750 $SYSCONFDIR/oj
  edit $SYSCONFDIR/oj/ojd.yaml (and $SYSCONFDIR/oj/ojd.env for secrets), then
  ojd --config $SYSCONFDIR/oj/ojd.yaml migrate up
  systemctl daemon-reload && systemctl enable --now ojd-api ojd-dispatcher ojd-worker
EOF
fi
