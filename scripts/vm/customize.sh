#!/usr/bin/env bash
# customize.sh ROOT PUBKEY — mmdebstrap's customize hook for the test guest (image.sh):
# hostname, root filesystem, DHCP on the virtio NIC, root's ssh key, a serial console, and
# the timers that would only slow a TCG guest down switched off.
set -euo pipefail
root=$1
pubkey=$2

echo oj-vm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 oj-vm\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
printf 'LABEL=ojroot / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"

# User-mode networking: DHCP from qemu's slirp on the one NIC.
mkdir -p "$root/etc/systemd/network"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n' >"$root/etc/systemd/network/20-wired.network"
chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
# Nothing may wait for a network that has no way out.
chroot "$root" systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1 || true

# root over ssh with the test key only.
install -d -m 0700 "$root/root/.ssh"
install -m 0600 "$pubkey" "$root/root/.ssh/authorized_keys"
printf 'PermitRootLogin prohibit-password\nPasswordAuthentication no\nUseDNS no\n' \
	>"$root/etc/ssh/sshd_config.d/oj-vm.conf"

# Console on the serial port (the boot log lands in the run's console.log).
chroot "$root" systemctl enable serial-getty@ttyS0.service >/dev/null 2>&1 || true

# No background apt or housekeeping in a short-lived guest.
for u in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer logrotate.timer dpkg-db-backup.timer; do
	chroot "$root" systemctl mask "$u" >/dev/null 2>&1 || true
done

# The guest has no network but the port forwards: apt inside it would only time out.
rm -f "$root"/etc/apt/sources.list.d/* "$root/etc/apt/sources.list"
# Journald keeps the log across the reboot check.
mkdir -p "$root/var/log/journal"
