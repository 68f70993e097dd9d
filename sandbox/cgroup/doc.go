// Package cgroup gives sandbox runs a cgroup (one per pool slot, reset between its
// runs so that each run's figures are its own): a memory limit with swap
// disabled, a pids limit, CPU accounting over all threads, peak memory and the OOM-kill
// counter, and removal that waits for exiting processes instead of leaking (EBUSY is
// retried, never ignored). After each run the memory charge must drain back to the
// baseline (Settle, ErrNotDrained: the pool then replaces the slot's cgroup), and a
// starting pool removes what pools of killed workers left (Manager.ReapSiblings).
//
// Both hierarchies are supported and detected at start: cgroup v2 (production, a
// delegated subtree under systemd with Delegate=yes) and cgroup v1 (older hosts, where
// memory, cpuacct and pids are separate hierarchies). Resetting a v2 cgroup's peak
// needs Linux 6.12; Detect probes for it, and where it is missing each run gets a fresh
// leaf cgroup under its slot's instead (see leaf_linux.go and Manager.PerRunLeaf). Each
// of the three ways is its own type behind the Group interface (v1Group, v2Group,
// v2LeafGroup), chosen once per Manager. Run cgroups are created under a
// parent that is either relative to the caller's own cgroup or absolute from the
// hierarchy's root, so a process that already lives in a cgroup (a systemd service, a
// container) keeps its runs inside its own subtree.
package cgroup
