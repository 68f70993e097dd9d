#!/usr/bin/env bash
# test.sh — what `make test-vm` runs: oj's production path in a Debian 12 guest with
# systemd as PID 1 and cgroup v2, checked from the host.
#
#   make test-vm                 # or: bash scripts/vm/test.sh
#
# 1. installs the host tools it needs (qemu, mmdebstrap, ...) when missing;
# 2. builds the guest image once (scripts/vm/image.sh, cached under var/vm/image-*), the
#    .deb (packaging/build.sh) and the sandbox packages' test binaries (go test -c);
# 3. boots a copy-on-write overlay of the image with qemu (KVM when it works, else TCG),
#    user-mode networking with no way out and two port forwards on 127.0.0.1 only (ssh,
#    the API);
# 4. installs the .deb plus the configuration as systemd/README.md says
#    (scripts/vm/guest-setup.sh), enables the units, uploads a problem from the host and
#    judges AC/WA/TLE/MLE/CE in C++ and Python, runs the sandbox test suites in the
#    guest (under systemd-run -p Delegate=yes, as the worker runs), stops ojd-worker
#    during a run and looks for leftovers, reboots and checks the submissions survived;
# 5. prints a table of the checks and `N passed, M failed` last; exit 1 if any failed.
#
# Variables: OJ_VM_DIR (var/vm), OJ_VM_ACCEL (auto|kvm|tcg), OJ_VM_MEM (4096 MiB),
# OJ_VM_CPUS (2), OJ_VM_KEEP=1 leaves the guest running at the end (ssh command printed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$ROOT"
T_START=$SECONDS
VMDIR=${OJ_VM_DIR:-$ROOT/var/vm}
RUN=$VMDIR/run
mkdir -p "$VMDIR"

# --- host tools -------------------------------------------------------------------------
# shellcheck source=scripts/deps.sh
. "$ROOT/scripts/deps.sh"
# shellcheck disable=SC2034 # read by oj_deps_install
OJ_DEB_PACKAGES="qemu-system-x86 qemu-utils mmdebstrap e2fsprogs openssh-client curl python3"
oj_deps_install

# --- results ----------------------------------------------------------------------------
R_NAME=() R_OK=() R_SEC=() R_DETAIL=()
LOG=$VMDIR/run.log
: >"$LOG"
say() { printf '%s\n' "$*" | tee -a "$LOG" >&2; }
record() { R_NAME+=("$1"); R_OK+=("$2"); R_SEC+=("$3"); R_DETAIL+=("$4"); say "-- $2 $1 ($3 s): $4"; }

# check NAME CMD...: runs CMD, records PASS/FAIL with its time and the last line it printed.
check() {
	local name=$1 t0=$SECONDS out rc=0
	shift
	# In this shell, not a subshell: checks set variables (TOKEN, VERDICT, STOP_ID).
	"$@" >"$VMDIR/check.out" 2>&1 || rc=$?
	out=$(cat "$VMDIR/check.out")
	printf '== %s\n%s\n' "$name" "$out" >>"$LOG"
	local detail
	detail=$(printf '%s\n' "$out" | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-90)
	if [[ $rc -eq 0 ]]; then record "$name" PASS $((SECONDS - t0)) "$detail"; else record "$name" FAIL $((SECONDS - t0)) "exit $rc: $detail"; fi
	return $rc
}

report() {
	local i pass=0 fail=0
	echo
	printf '%-44s %-5s %6s  %s\n' CHECK RESULT SECONDS DETAIL
	for i in "${!R_NAME[@]}"; do
		printf '%-44s %-5s %6s  %s\n' "${R_NAME[$i]}" "${R_OK[$i]}" "${R_SEC[$i]}" "${R_DETAIL[$i]}"
		case ${R_OK[$i]} in PASS) pass=$((pass + 1)) ;; INFO) ;; *) fail=$((fail + 1)) ;; esac
	done
	echo
	echo "accelerator: ${ACCEL_NAME:-none}; wall time: $((SECONDS - T_START)) s; log: $LOG, guest console: $RUN/console.log"
	echo "$pass passed, $fail failed"
	[[ $fail -eq 0 ]]
}

# fatal NAME CMD...: a check the rest depends on; on failure the report ends the run.
fatal() { check "$@" || { report || true; exit 1; }; }

# --- build ------------------------------------------------------------------------------
IMG=""
build_image() { bash "$ROOT/scripts/vm/image.sh" && IMG=$(bash "$ROOT/scripts/vm/image.sh" 2>/dev/null | tail -n 1); }
fatal "host: guest image (mmdebstrap, cached)" build_image
DEB=""
build_deb() { bash packaging/build.sh && DEB=$(ls -t "$ROOT"/var/deb/oj_*_amd64.deb | head -n 1); }
fatal "host: make deb" build_deb
rm -rf "$RUN"
mkdir -p "$RUN/sbx"
build_tests() {
	go test -c -o "$RUN/sbx/sandbox.test" ./sandbox/ &&
		go test -c -o "$RUN/sbx/cgroup.test" ./sandbox/cgroup/ &&
		cp -r sandbox/testdata "$RUN/sbx/testdata" && ls "$RUN/sbx"
}
fatal "host: go test -c ./sandbox/ ./sandbox/cgroup/" build_tests

# --- boot -------------------------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
SSH_PORT=$(free_port)
API_PORT=$(free_port)
KEY=$IMG/id_ed25519
SSH_OPTS=(-i "$KEY" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR
	-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=15 -o ServerAliveCountMax=8)
vm() { ssh "${SSH_OPTS[@]}" -p "$SSH_PORT" root@127.0.0.1 "$@"; }
vm_put() { scp "${SSH_OPTS[@]}" -P "$SSH_PORT" -q -r "$@"; }

# KVM when /dev/kvm is usable and a kernel really starts under it (on some hosts qemu
# hangs or aborts with -enable-kvm); else TCG, multi-threaded.
# shellcheck disable=SC2054 # tcg,thread=multi is one argument
ACCEL=(-accel tcg,thread=multi)
ACCEL_NAME=tcg
probe_kvm() {
	[[ -w /dev/kvm ]] || return 1
	timeout 15 qemu-system-x86_64 -accel kvm -cpu host -m 256 -nodefaults -display none -serial stdio \
		-no-reboot -kernel "$IMG/vmlinuz" -append "console=ttyS0 panic=-1" 2>/dev/null |
		head -c 200000 | grep -aq 'Linux version'
}
case ${OJ_VM_ACCEL:-auto} in
kvm) ACCEL=(-accel kvm -cpu host) ACCEL_NAME=kvm ;;
tcg) ;;
*) if probe_kvm; then ACCEL=(-accel kvm -cpu host) ACCEL_NAME=kvm; fi ;;
esac
say "accelerator: $ACCEL_NAME"

qemu-img create -q -f qcow2 -F raw -b "$IMG/rootfs.raw" "$RUN/disk.qcow2"
qemu_pid=""
cleanup() {
	local rc=$?
	if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
		if [[ "${OJ_VM_KEEP:-0}" == 1 ]]; then
			echo "guest left running (qemu pid $qemu_pid): ssh ${SSH_OPTS[*]} -p $SSH_PORT root@127.0.0.1; API http://127.0.0.1:$API_PORT" >&2
		else
			kill "$qemu_pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.2; done
			kill -9 "$qemu_pid" 2>/dev/null || true
			rm -f "$RUN/disk.qcow2"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

boot() {
	qemu-system-x86_64 -name oj-vm "${ACCEL[@]}" -smp "${OJ_VM_CPUS:-2}" -m "${OJ_VM_MEM:-4096}" \
		-nodefaults -display none -serial "file:$RUN/console.log" \
		-kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.unified_cgroup_hierarchy=1" \
		-drive "file=$RUN/disk.qcow2,if=virtio,format=qcow2,cache=unsafe" \
		-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22,hostfwd=tcp:127.0.0.1:$API_PORT-:8080" \
		-device virtio-net-pci,netdev=n0 -device virtio-rng-pci \
		-daemonize -pidfile "$RUN/qemu.pid"
	qemu_pid=$(cat "$RUN/qemu.pid")
	wait_ssh
}
wait_ssh() {
	local deadline=$((SECONDS + 900))
	until vm true 2>/dev/null; do
		[[ $SECONDS -lt $deadline ]] || { echo "no ssh after 900 s; console tail:"; tail -n 20 "$RUN/console.log"; return 1; }
		kill -0 "$qemu_pid" 2>/dev/null || { echo "qemu exited"; tail -n 20 "$RUN/console.log"; return 1; }
		sleep 3
	done
	echo "ssh up after $((SECONDS - T_BOOT)) s"
}
T_BOOT=$SECONDS
fatal "guest: boot to ssh ($ACCEL_NAME)" boot

guest_basics() {
	vm 'set -e
		echo "pid1=$(readlink /proc/1/exe) cgroupfs=$(stat -fc %T /sys/fs/cgroup) controllers=$(cat /sys/fs/cgroup/cgroup.controllers | tr " " ,)"
		[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] && [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]
		grep -qw memory /sys/fs/cgroup/cgroup.controllers && grep -qw pids /sys/fs/cgroup/cgroup.controllers
		echo "kernel $(uname -r), $(. /etc/os-release; echo $PRETTY_NAME), system: $(systemctl is-system-running --wait || true)"'
}
fatal "guest: systemd PID 1, cgroup2, memory+pids" guest_basics

# --- install ----------------------------------------------------------------------------
TOKEN=""
install_deb() {
	# The image is built without /usr/share/doc (dpkg path-exclude); oj's docs hold the
	# examples the install guide uses, so this install keeps them.
	vm rm -f /etc/dpkg/dpkg.cfg.d/99mmdebstrap &&
		vm_put "$DEB" "$ROOT/scripts/vm/guest-setup.sh" root@127.0.0.1:/root/ &&
		vm "bash /root/guest-setup.sh /root/$(basename "$DEB")" >"$RUN/setup.log" 2>&1 || { tail -n 30 "$RUN/setup.log"; return 1; }
	TOKEN=$(tail -n 1 "$RUN/setup.log")
	vm 'dpkg -s oj | grep -E "^(Status|Version)"; id oj; systemctl is-active ojd-api ojd-dispatcher ojd-worker | tr "\n" " "'
}
fatal "guest: dpkg -i, PostgreSQL + Redis, units enabled" install_deb
export OJCTL_SERVER=http://127.0.0.1:$API_PORT OJCTL_TOKEN=$TOKEN
OJCTL=$ROOT/var/deb/bin/ojctl

wait_ready() {
	local deadline=$((SECONDS + 300))
	until curl -sf "$OJCTL_SERVER/readyz" >/dev/null; do
		[[ $SECONDS -lt $deadline ]] || { curl -s "$OJCTL_SERVER/readyz"; vm 'systemctl status --no-pager ojd-api | tail -n 5'; return 1; }
		sleep 2
	done
	curl -s "$OJCTL_SERVER/readyz"
	echo
}
fatal "host → guest: /readyz through the port forward" wait_ready
metrics_ports() {
	# The ports systemd/README.md and the alert rules' scrape jobs name.
	# The worker registers its own metrics once its sandbox pool is up (seconds under TCG).
	vm 'set -e
		for p in 8080:oj_api_requests_total 9101:oj_outbox_backlog 9102:oj_reclaim_deleted_entries_total; do
			i=0
			until curl -sf "127.0.0.1:${p%%:*}/metrics" | grep -q "^# TYPE ${p#*:} "; do
				i=$((i + 1)); [ $i -lt 60 ] || { echo "no ${p#*:} on :${p%%:*} after 120 s"; exit 1; }; sleep 2
			done
		done
		echo "api :8080, dispatcher :9101, worker :9102 serve /metrics"'
}
check "guest: metrics on :8080, :9101, :9102" metrics_ports || true
favordynmods() {
	# The worker sets favordynmods on systemd's cgroup2 mount (sandbox.favor_dynmods) and
	# must keep what systemd mounted it with.
	vm 'set -e
		m=$(grep " - cgroup2 " /proc/self/mountinfo); echo "$m"
		case "$m" in *favordynmods*) ;; *) echo "favordynmods not set"; exit 1 ;; esac
		case "$m" in *nsdelegate*) ;; *) echo "nsdelegate lost"; exit 1 ;; esac
		case "$m" in *nosuid,nodev,noexec*) ;; *) echo "nosuid,nodev,noexec lost"; exit 1 ;; esac
		journalctl -u ojd-worker --no-pager | grep -m1 favordynmods'
}
check "guest: the worker set cgroup2 favordynmods, keeping systemd's options" favordynmods || true

# --- judge ------------------------------------------------------------------------------
P=$RUN/problem/aplusb
mkdir -p "$P/tests" "$RUN/src"
cat >"$P/problem.yaml" <<'EOF'
title: A+B
time_limit_ms: 1000
memory_limit_mb: 64
EOF
printf '1 2\n' >"$P/tests/1.in"
printf '3\n' >"$P/tests/1.out"
printf '1000000000 2000000000\n' >"$P/tests/2.in"
printf '3000000000\n' >"$P/tests/2.out"
S=$RUN/src
printf '#include <cstdio>\nint main(){long long a,b;if(scanf("%%lld %%lld",&a,&b)!=2)return 1;printf("%%lld\\n",a+b);}\n' >"$S/ac.cpp"
printf '#include <cstdio>\nint main(){long long a,b;if(scanf("%%lld %%lld",&a,&b)!=2)return 1;printf("%%lld\\n",a-b);}\n' >"$S/wa.cpp"
printf 'int main(){volatile unsigned long x=0;for(;;)x++;}\n' >"$S/tle.cpp"
# 256 MiB touched page by page under a 64 MiB limit; the sum keeps -O2 from eliding it.
printf '#include <cstdio>\n#include <vector>\nint main(){long long a,b,s=0;if(scanf("%%lld %%lld",&a,&b)!=2)return 1;std::vector<char> v((size_t)256<<20);for(size_t i=0;i<v.size();i+=4096)v[i]=(char)(a+i);for(size_t i=0;i<v.size();i+=4096)s+=v[i];printf("%%lld\\n",a+b+(s==-1));}\n' >"$S/mle.cpp"
printf 'int main( { return 0; }\n' >"$S/ce.cpp"
printf 'a, b = map(int, input().split())\nprint(a + b)\n' >"$S/ac.py"
printf 'a, b = map(int, input().split())\nprint(a - b)\n' >"$S/wa.py"
printf 'while True:\n    pass\n' >"$S/tle.py"
printf 's = "x" * (256 * 1024 * 1024)\nprint(len(s))\n' >"$S/mle.py"
printf 'def f(:\n    pass\n' >"$S/ce.py"

check "host: ojctl problem push aplusb" "$OJCTL" problem push "$P" --id aplusb

declare -A VERDICT=()
# judge FILE WANT: submit from the host, wait for the verdict.
judge() {
	local file=$1 want=$2 out id v
	out=$(timeout 600 "$OJCTL" submit "$S/$file" --problem aplusb --wait -o json) || { echo "$out" | tail -n 3; return 1; }
	read -r id v < <(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], d.get("verdict",""))')
	VERDICT[$id]=$v
	echo "$id verdict $v (want $want)"
	[[ "$v" == "$want" ]]
}
for lang in cpp py; do
	for want in AC WA TLE MLE CE; do
		lower=$(tr '[:upper:]' '[:lower:]' <<<"$want")
		check "judge: ${lang/py/python3} $want" judge "$lower.$lang" "$want" || true
	done
done

# --- sandbox suites in the guest ---------------------------------------------------------
vm_put "$RUN/sbx" root@127.0.0.1:/root/ || true
# As the worker runs: in a systemd service of its own with a delegated cgroup subtree.
sandbox_suite() {
	local bin=$1 filter=$2 skip=${3:-}
	vm "cd /root/sbx && systemd-run --quiet --wait --pipe --collect -p Delegate=yes -p WorkingDirectory=/root/sbx \
		/root/sbx/$bin -test.v -test.count=1 -test.timeout=20m ${filter:+-test.run '$filter'} ${skip:+-test.skip '$skip'}" >"$RUN/$bin.${filter:-all}.log" 2>&1
	local rc=$?
	grep -E '^(--- (PASS|FAIL|SKIP)|PASS$|FAIL$|ok|LEFTOVERS)' "$RUN/$bin.${filter:-all}.log" | grep -vE '^    ' >>"$LOG" || true
	local p f s
	p=$(grep -cE '^--- PASS' "$RUN/$bin.${filter:-all}.log" || true)
	f=$(grep -cE '^--- FAIL' "$RUN/$bin.${filter:-all}.log" || true)
	s=$(grep -cE '^--- SKIP' "$RUN/$bin.${filter:-all}.log" || true)
	echo "top-level tests: $p passed, $f failed, $s skipped$(grep -E '^--- FAIL' "$RUN/$bin.${filter:-all}.log" | awk '{printf " %s", $3}')"
	return $rc
}
check "sandbox (v2): attack suite" sandbox_suite sandbox.test '^(TestAttacksAreBlocked|TestHostilePrograms)$' || true
if [[ $ACCEL_NAME == kvm ]]; then
	check "sandbox (v2): accuracy" sandbox_suite sandbox.test '^TestAccuracy$' || true
	check "sandbox (v2): whole package" sandbox_suite sandbox.test '' || true
else
	# Under TCG every instruction is emulated: a program's start-up costs ~50 ms of CPU
	# and touching 100 MiB takes over the test's 300 ms CPU limit, so the ±10 % accuracy
	# checks measure the emulator, not the cgroup. They run, their figures are logged,
	# and they do not count; the rest of the package does.
	info() {
		local t0=$SECONDS
		sandbox_suite sandbox.test '^TestAccuracy$' >"$VMDIR/check.out" 2>&1 || true
		record "sandbox (v2): accuracy (tcg: not counted)" INFO $((SECONDS - t0)) "$(tail -n 1 "$VMDIR/check.out")"
		grep -E 'sandbox_linux_test.go:[0-9]+: \[' "$RUN"/sandbox.test.*TestAccuracy*.log | sed -E 's/.*\]: //; s/ out .*//' >>"$LOG" || true
	}
	info
	check "sandbox (v2): whole package but accuracy" sandbox_suite sandbox.test '' '^TestAccuracy$' || true
fi
check "sandbox/cgroup (v2): whole package" sandbox_suite cgroup.test '' || true

# --- stop the worker during a run --------------------------------------------------------
STOP_ID=""
stop_worker() {
	local out cg i st
	out=$("$OJCTL" submit "$S/tle.py" --problem aplusb -o json) || return 1
	STOP_ID=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	for i in $(seq 120); do
		st=$("$OJCTL" status "$STOP_ID" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
		[[ "$st" == running ]] && break
		sleep 1
	done
	echo "submission $STOP_ID is $st; stopping ojd-worker"
	cg=$(vm systemctl show -p ControlGroup --value ojd-worker)
	vm "set -e
		t0=\$(date +%s)
		systemctl stop ojd-worker
		echo \"stop took \$((\$(date +%s) - t0)) s, ActiveState=\$(systemctl show -p ActiveState --value ojd-worker) Result=\$(systemctl show -p Result --value ojd-worker)\"
		[ \"\$(systemctl show -p Result --value ojd-worker)\" = success ]
		if [ -e /sys/fs/cgroup$cg ]; then echo 'cgroup left:'; find /sys/fs/cgroup$cg -name cgroup.procs -exec sh -c 'echo {}; cat {}' \\; ; exit 1; fi
		left=\$(ps -eo uid=,pid=,args= | awk '\$1 >= 60000 && \$1 < 61000')
		if [ -n \"\$left\" ]; then echo \"processes of sandbox uids left: \$left\"; exit 1; fi
		if grep -E 'oj-sandbox|/var/lib/oj/work/' /proc/self/mountinfo; then echo 'mounts left'; exit 1; fi
		echo \"no cgroup ($cg), no sandbox process, no mount left\""
}
check "guest: systemctl stop ojd-worker mid-run leaves nothing" stop_worker || true
after_restart() {
	vm systemctl start ojd-worker || return 1
	local i st v
	for i in $(seq 300); do
		read -r st v < <("$OJCTL" status "$STOP_ID" -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d.get("verdict") or "-")')
		[[ "$st" == finished || "$st" == dead ]] && break
		sleep 2
	done
	echo "submission $STOP_ID: $st $v after the worker came back"
	[[ "$st" == finished && "$v" == TLE ]]
}
[[ -n "$STOP_ID" ]] && { check "guest: that submission judged after restart" after_restart || true; }

# --- reboot -----------------------------------------------------------------------------
reboot_guest() {
	local before after
	before=$(vm cat /proc/sys/kernel/random/boot_id)
	vm 'systemctl reboot' || true
	sleep 10
	T_BOOT=$SECONDS
	wait_ssh || return 1
	after=$(vm cat /proc/sys/kernel/random/boot_id)
	[[ "$before" != "$after" ]] || { echo "boot id unchanged"; return 1; }
	wait_ready >/dev/null || return 1
	vm 'echo "units after reboot: $(systemctl is-active ojd-api ojd-dispatcher ojd-worker ojctl-trim.timer | tr "\n" " ")"; systemctl is-active -q ojd-api ojd-dispatcher ojd-worker'
}
check "guest: reboot, units come back" reboot_guest || true
survived() {
	local id v got n=0 bad=0
	for id in "${!VERDICT[@]}"; do
		got=$("$OJCTL" status "$id" -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d.get("verdict") or "-")') || got="error"
		n=$((n + 1))
		[[ "$got" == "finished ${VERDICT[$id]}" ]] || { echo "$id: $got, was ${VERDICT[$id]}"; bad=$((bad + 1)); }
	done
	echo "$n submissions read back after the reboot, $bad differ"
	[[ $n -gt 0 && $bad -eq 0 ]]
}
check "guest: submissions survive the reboot" survived || true
check "judge after reboot: cpp17 AC" judge ac.cpp AC || true
check "judge after reboot: python3 AC" judge ac.py AC || true

# --- package life cycle -----------------------------------------------------------------
upgrade() {
	# Installing the package over itself runs postinst as an upgrade: the config is kept,
	# the running daemons are restarted.
	vm "set -e
		before=\$(systemctl show -p ExecMainPID --value ojd-api)
		echo '# local edit' >>/etc/oj/ojd.yaml
		dpkg -i --force-confold /root/$(basename "$DEB") >/dev/null
		after=\$(systemctl show -p ExecMainPID --value ojd-api)
		tail -n 1 /etc/oj/ojd.yaml | grep -q 'local edit'
		[ \"\$(stat -c %U:%G:%a /etc/oj/ojd.yaml)\" = root:oj:640 ]
		if [ \"\$before\" = \"\$after\" ]; then echo 'ojd-api was not restarted'; exit 1; fi
		systemctl is-active -q ojd-api ojd-dispatcher ojd-worker
		echo \"config kept (root:oj 0640), ojd-api restarted (pid \$before -> \$after)\""
	wait_ready >/dev/null
}
check "guest: dpkg -i over itself (upgrade path)" upgrade || true
purge() {
	vm 'set -e
		dpkg --purge oj >/dev/null
		for u in ojd-api ojd-dispatcher ojd-worker; do
			! systemctl is-active -q $u || { echo "$u still active"; exit 1; }
		done
		[ ! -e /lib/systemd/system/ojd-worker.service ] && [ ! -e /etc/oj/ojd.yaml ] && [ ! -e /usr/bin/ojd ]
		[ ! -e /var/lib/oj/work ] && [ ! -e /var/lib/oj/cache ] && [ -d /var/lib/oj/objects ]
		echo "units stopped and gone, /etc/oj/ojd.yaml, work and cache removed; objects, ojd.env and the oj user kept: $(ls /etc/oj | tr "\n" " ")$(id -un oj)"'
}
check "guest: dpkg --purge oj" purge || true

report
