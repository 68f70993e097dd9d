# checkout.sh — sourced by run.sh and stop.sh (make run, make stop, make distclean): where
# this checkout's local judge keeps its state, and how to undo what a killed ojd left.

# oj_sandbox_dir PATH prints the directory PATH is in that every sandboxed run gets a
# fresh one of (/tmp, /dev, /proc, /w: sandbox.ReservedDir), or nothing: the worker
# refuses a work dir there.
oj_sandbox_dir() {
	local d
	for d in /w /tmp /proc /dev; do
		if [[ "$1" == "$d" || "$1" == "$d"/* ]]; then
			echo "$d"
			return
		fi
	done
}

# oj_work_dir ROOT prints the judge.work_dir that make run gives the checkout at ROOT (a
# physical path): ROOT/var/work, unless ROOT is in a directory of oj_sandbox_dir; then
# /var/tmp/oj-work-NAME-HASH, NAME the checkout's directory name and HASH the first 8 hex
# digits of the sha256 of ROOT, so that two checkouts of the same name get one each.
oj_work_dir() {
	local root=$1 name hash
	if [[ -z "$(oj_sandbox_dir "$root")" ]]; then
		echo "$root/var/work"
		return
	fi
	name=$(basename "$root" | tr -c 'A-Za-z0-9._\n-' '_')
	hash=$(printf '%s' "$root" | sha256sum | cut -c1-8)
	echo "/var/tmp/oj-work-$name-$hash"
}

# oj_mounts_under DIR prints the mount points at or below DIR, one a line, the deepest
# first (the order to unmount them in); a point mounted twice is printed twice.
oj_mounts_under() {
	local dir=${1%/} point
	[[ -n "$dir" ]] || return 0
	# The fifth field of mountinfo is the mount point, with space, tab, newline and
	# backslash as octal escapes (\040): as \0NNN, printf %b decodes them.
	while read -r _ _ _ _ point _; do
		point=$(printf '%b' "${point//\\/\\0}")
		if [[ "$point" == "$dir" || "$point" == "$dir"/* ]]; then
			printf '%d\t%s\n' "${#point}" "$point"
		fi
	done </proc/self/mountinfo | sort -rn -s -k1,1 | cut -f2-
}

# oj_unmount_under DIR detaches every mount at or below DIR (what a killed worker leaves:
# its tasks tmpfs) and says so; it fails, naming them, if some cannot be. A mount hidden
# under another one is reached once the upper one is gone: hence the passes.
oj_unmount_under() {
	local point pass done_any left
	for pass in 1 2 3 4 5 6 7 8; do
		done_any=
		while IFS= read -r point; do
			if umount -l "$point" 2>/dev/null; then
				echo "unmounted $point (left by an ojd that did not stop cleanly)"
				done_any=1
			fi
		done < <(oj_mounts_under "$1")
		[[ -n "$done_any" ]] || break
	done
	left=$(oj_mounts_under "$1")
	if [[ -n "$left" ]]; then
		echo "still mounted under $1 (umount -l failed):" >&2
		printf '  %s\n' "$left" >&2
		return 1
	fi
}

# oj_ojd_pid ROOT prints the pid of the ojd that make run started for the checkout at ROOT
# (var/ojd.pid) and fails when that process is gone or is not ROOT's bin/ojd.
oj_ojd_pid() {
	local root=$1 pid exe
	pid=$(cat "$root/var/ojd.pid" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	# A rebuilt binary shows as "PATH (deleted)".
	[[ "${exe% (deleted)}" == "$root/bin/ojd" ]] || return 1
	echo "$pid"
}
