// Package ns owns the sandbox's namespaces: it starts one long-lived sandbox init per
// pool slot (our own binary, re-executed into new PID, mount, network, IPC and UTS
// namespaces), builds the slot's read-only root there once, and then asks that init to
// start each run. The init is written in C (init_linux.c) because the per-run child is
// started with clone(CLONE_VM|CLONE_VFORK) and must join its cgroup, set rlimits, drop to
// an unprivileged uid, set no_new_privs and load the seccomp filter between clone and
// execve — code the Go runtime cannot run in a forked child.
//
// Creating namespaces is the dominant cost of a one-shot sandbox (a mount namespace
// alone is milliseconds); a slot pays it once and a run then costs one clone and exec
// plus a few mounts (the work dir, /tmp) inside the existing namespaces.
package ns
