#!/usr/bin/env bash
# build.sh — what `make deb` runs: builds ojd and ojctl (cgo, for libseccomp; PIE, full
# RELRO, stripped), stages them with install.sh (the files `make install` installs, with
# PREFIX=/usr and the units in /lib/systemd/system), and packs var/deb/oj_VERSION_amd64.deb
# with nfpm (built once from the Go module proxy into var/tools/).
#
#   bash packaging/build.sh            prints the path of the .deb on its last line
#
# Environment: OJ_VERSION (default 0.1.0~gitYYYYMMDD.SHORTSHA), OJ_MAINTAINER,
# OJ_DEB_DIR (default var/deb).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
# shellcheck source=scripts/deps.sh
. "$ROOT/scripts/deps.sh"

NFPM_VERSION=v2.44.0 # later ones need modules the Go module proxy does not serve
TOOLS=$ROOT/var/tools
OUT=${OJ_DEB_DIR:-$ROOT/var/deb}

if [[ -z "${OJ_VERSION:-}" ]]; then
	sha=$(git rev-parse --short HEAD 2>/dev/null || echo 0)
	OJ_VERSION="0.1.0~git$(date -u +%Y%m%d).$sha"
fi
export OJ_VERSION
export OJ_MAINTAINER=${OJ_MAINTAINER:-oj maintainers <oj@example.org>}

if [[ ! -x "$TOOLS/nfpm" ]] || ! go version -m "$TOOLS/nfpm" 2>/dev/null | grep -qE "^\s+mod\s+github.com/goreleaser/nfpm/v2\s+$NFPM_VERSION\b"; then
	echo "== go install nfpm@$NFPM_VERSION" >&2
	GOBIN=$TOOLS go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION"
fi

rm -rf "${OUT:?}/bin" "${OUT:?}/stage"
mkdir -p "$OUT/bin" "$OUT/stage"
echo "== go build ojd ojctl (cgo, pie)" >&2
CGO_ENABLED=1 \
	CGO_CFLAGS="-O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong" \
	CGO_LDFLAGS="-Wl,-z,relro,-z,now" \
	go build -trimpath -buildmode=pie -ldflags="-s -w -linkmode=external -extldflags=-Wl,-z,relro,-z,now" \
	-o "$OUT/bin/" ./cmd/ojd ./cmd/ojctl

# The template documents every key with its default: the same SET of keys as `ojd config`
# (order is free: the file groups keys the way its comments explain them), each at the
# value ojd has by default. Keys are compared as dotted paths (api.limits.run_rate), so a
# key added to ojd's config and not to the template is named, as is one the template
# has and ojd does not know (which `ojd config` would refuse anyway).
paths() {
	sed -e 's/#.*//' "$1" | awk '
		match($0, /^ *[a-z_0-9]+:/) {
			end = RLENGTH
			ind = match($0, /[^ ]/) - 1
			key = substr($0, ind + 1, end - ind - 1)
			while (depth > 0 && indent[depth] >= ind) depth--
			depth++; indent[depth] = ind; name[depth] = key
			p = name[1]; for (i = 2; i <= depth; i++) p = p "." name[i]
			print p
		}' | sort -u
}
defaults=$(mktemp -d)
trap 'rm -rf "$defaults"' EXIT
env -i PATH="$PATH" "$OUT/bin/ojd" --config /dev/null config >"$defaults/defaults"
paths "$defaults/defaults" >"$defaults/known"
paths packaging/ojd.yaml >"$defaults/packaged"
missing=$(comm -23 "$defaults/known" "$defaults/packaged")
extra=$(comm -13 "$defaults/known" "$defaults/packaged")
if [[ -n "$missing$extra" ]]; then
	[[ -z "$missing" ]] || printf 'build.sh: keys of `ojd config` missing from packaging/ojd.yaml (add each with its default and a comment):\n%s\n' "$(sed 's/^/  /' <<<"$missing")" >&2
	[[ -z "$extra" ]] || printf 'build.sh: keys in packaging/ojd.yaml that `ojd config` does not list:\n%s\n' "$(sed 's/^/  /' <<<"$extra")" >&2
	exit 1
fi
# Both outputs are in ojd's own order, so this compares values only.
env -i PATH="$PATH" "$OUT/bin/ojd" --config packaging/ojd.yaml config >"$defaults/template"
if ! diff -u "$defaults/defaults" "$defaults/template" >&2; then
	echo "build.sh: packaging/ojd.yaml sets values that differ from ojd's defaults (above)" >&2
	exit 1
fi

echo "== stage (packaging/install.sh, PREFIX=/usr)" >&2
DESTDIR="$OUT/stage" PREFIX=/usr UNITDIR=/lib/systemd/system BIN_SRC="$OUT/bin" bash packaging/install.sh
install -d "$OUT/stage/DEBIAN"
install -m 0755 packaging/scripts/postinst packaging/scripts/prerm packaging/scripts/postrm "$OUT/stage/DEBIAN/"

deb="$OUT/oj_${OJ_VERSION}_amd64.deb"
rm -f "$deb"
echo "== nfpm package" >&2
# nfpm.yaml names the files relative to the stage.
(cd "$OUT/stage" && "$TOOLS/nfpm" package --config "$ROOT/packaging/nfpm.yaml" --packager deb --target "$deb" >&2)
echo "$deb"
