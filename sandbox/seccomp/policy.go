package seccomp

// Denied lists the system calls refused with EPERM. Names unknown to the running
// kernel's architecture are skipped.
var Denied = []string{
	// debugging and other processes' memory
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	// mounts and namespaces
	"mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns",
	"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"open_by_handle_at", "name_to_handle_at",
	// keyrings, BPF, perf, io_uring
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	// the machine itself
	"kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module",
	"delete_module", "swapon", "swapoff", "syslog", "acct", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
	"iopl", "ioperm", "quotactl", "nfsservctl", "lookup_dcookie", "vhangup",
	// memory tricks useful for kernel exploits
	"userfaultfd", "move_pages", "migrate_pages", "mbind", "set_mempolicy",
	// fanotify and handles on the host
	"fanotify_init",
	// scheduling priority: a run that makes itself the host's last choice (nice 19,
	// SCHED_IDLE) waits for a CPU whenever the host is busy, and the sandbox counts that
	// wait as the host's (Result.Stalled), not the program's: it would run past its wall
	// limit into sandbox.max_stall and end as SE, a system error retried until dead
	// instead of the TLE it earned. No judged program needs to change its priority.
	// sched_setscheduler is refused by a rule of its own (SchedPolicyAllowed).
	"setpriority", "sched_setattr", "sched_setparam",
}

// SchedPolicyAllowed is the one scheduling policy sched_setscheduler(2) may set: the
// normal one, which every run already has. Mono sets it on each thread it starts
// (pthread_setschedparam to SCHED_OTHER) and, refused, prints a warning on the
// program's standard output. Any other policy (SCHED_IDLE, SCHED_BATCH, real-time)
// fails with EPERM, as does a policy word with flags or high bits set.
const SchedPolicyAllowed = 0 // SCHED_OTHER

// AllowedSocketFamilies are the only address families socket(2) and socketpair(2)
// accept; any other (AF_INET, AF_INET6, AF_VSOCK, AF_NETLINK, AF_PACKET, …) fails with
// EAFNOSUPPORT. An allow-list, because the network namespace isolates only the families
// it knows: AF_VSOCK, for one, reaches the hypervisor from a worker running in a VM.
// AF_UNIX stays: runtimes use socket pairs between their own threads and processes.
var AllowedSocketFamilies = []uint64{
	1, // AF_UNIX
}

// namespaceFlags are the clone flags that create namespaces; clone with any of them is
// refused.
var namespaceFlags = []uint64{
	0x00020000, // CLONE_NEWNS
	0x02000000, // CLONE_NEWCGROUP
	0x04000000, // CLONE_NEWUTS
	0x08000000, // CLONE_NEWIPC
	0x10000000, // CLONE_NEWUSER
	0x20000000, // CLONE_NEWPID
	0x40000000, // CLONE_NEWNET
	0x00000080, // CLONE_NEWTIME
}

// personalityBits are refused in personality(2): any execution domain other than
// PER_LINUX (the low byte) and the flags that weaken the address space
// (ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, READ_IMPLIES_EXEC,
// ADDR_LIMIT_32BIT, ADDR_LIMIT_3GB). The query personality(0xffffffff) and
// personality(PER_LINUX) keep working.
var personalityBits = []uint64{
	0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80,
	0x0040000, 0x0100000, 0x0200000, 0x0400000, 0x0800000, 0x8000000,
}
