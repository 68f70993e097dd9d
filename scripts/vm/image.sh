#!/usr/bin/env bash
# image.sh — builds (once) the Debian 12 guest that `make test-vm` boots, from Debian's
# packages only, and prints the directory that holds it.
#
#   bash scripts/vm/image.sh            prints var/vm/image-<key>, building it if missing
#
# The guest: mmdebstrap of bookworm through this host's apt sources (/etc/apt/sources.list*),
# with systemd as init, Debian's kernel, openssh-server (root login with a key made here),
# and what oj runs with in production baked in: postgresql, redis-server, libseccomp2 and
# the toolchains (g++, python3). The guest gets no network but the host's port forwards, so
# everything it needs is in the image. The image directory holds:
#   rootfs.raw    ext4 filesystem image (sparse; made with mkfs.ext4 -d, no loop mount)
#   vmlinuz, initrd.img   the guest's own kernel and initramfs (booted with qemu -kernel)
#   id_ed25519    the ssh key for root@guest
# The key is the sha256 of this script and customize.sh: edit either and a new image is
# built; older ones are left for `make distclean` (or rm -rf var/vm/image-*).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
HERE="$ROOT/scripts/vm"
VMDIR=${OJ_VM_DIR:-$ROOT/var/vm}

# Packages of the guest. Everything oj's .deb Depends on or Recommends must be here: the
# guest cannot download anything.
GUEST_PACKAGES=(
	systemd systemd-sysv udev dbus kmod procps iproute2 openssh-server
	linux-image-amd64 initramfs-tools e2fsprogs
	postgresql redis-server adduser
	libseccomp2 gcc g++ libc6-dev python3 ca-certificates curl
)

key=$(cat "${BASH_SOURCE[0]}" "$HERE/customize.sh" | sha256sum | cut -c1-16)
out="$VMDIR/image-$key"
if [[ -f "$out/ok" ]]; then
	echo "$out"
	exit 0
fi

for tool in mmdebstrap mkfs.ext4 ssh-keygen; do
	command -v "$tool" >/dev/null || { echo "image.sh: $tool missing (scripts/vm/deps.sh installs it)" >&2; exit 1; }
done
[[ $(id -u) -eq 0 ]] || { echo "image.sh: mmdebstrap needs root here" >&2; exit 1; }

# The host's apt sources (one-line .list and deb822 .sources files), as mmdebstrap takes them.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -s "$f" ]] && grep -qE '^[[:space:]]*(deb |Types:.*deb)' "$f" && sources+=("$f")
done
# Only Debian's own archive: third-party repositories of the host (their keys are not in
# the guest) are left out.
debian_sources=()
for f in "${sources[@]}"; do
	if grep -qE 'debian\.org|debian-security|/debian/?( |$)' "$f" && ! grep -qE 'nodesource|google|docker' "$f"; then
		debian_sources+=("$f")
	fi
done
[[ ${#debian_sources[@]} -gt 0 ]] || { echo "image.sh: no Debian apt source found in /etc/apt/sources.list*" >&2; exit 1; }

tmp="$VMDIR/build-$key"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
ssh-keygen -q -t ed25519 -N '' -C oj-vm-test -f "$tmp/id_ed25519"

echo "image.sh: mmdebstrap bookworm (${#GUEST_PACKAGES[@]} packages) from ${debian_sources[*]}" >&2
t0=$(date +%s)
mmdebstrap --mode=root --variant=apt --format=directory \
	--include="$(IFS=,; echo "${GUEST_PACKAGES[*]}")" \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--customize-hook="bash '$HERE/customize.sh' \"\$1\" '$tmp/id_ed25519.pub'" \
	--customize-hook="cp -L \"\$1\"/boot/vmlinuz-* '$tmp/vmlinuz'; cp -L \"\$1\"/boot/initrd.img-* '$tmp/initrd.img'" \
	bookworm "$tmp/root" "${debian_sources[@]}" >&2
echo "image.sh: mmdebstrap took $(($(date +%s) - t0)) s" >&2

# ext4 image from the directory (no loop device, no mount), sparse, 8 GiB of room.
mkfs.ext4 -q -L ojroot -d "$tmp/root" "$tmp/rootfs.raw" 8G
rm -rf "$tmp/root"
touch "$tmp/ok"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "image.sh: built $out in $(($(date +%s) - t0)) s" >&2
echo "$out"
