// Package seccomp builds the sandbox's system-call filter with libseccomp and exports
// it as a classic BPF program, which the sandbox init loads in the child right before
// execve (after no_new_privs and the uid change).
//
// The policy is a deny list on top of "allow": everything a normal C, C++, Python, Go,
// Java or Rust program (and its compiler) needs keeps working, while the calls that
// reach outside the sandbox or into the kernel's riskier corners are refused with EPERM
// (see Denied). Sockets are the exception, an allow-list: socket and socketpair work
// only for the families in AllowedSocketFamilies (AF_UNIX) and fail with EAFNOSUPPORT
// for every other, since a network namespace does not isolate every family (AF_VSOCK
// reaches the hypervisor of a worker in a VM). clone with a namespace flag is refused,
// clone3 answers ENOSYS so libc falls back to clone where the flags can be inspected,
// and a call from a non-native ABI (i386 int 0x80, x32) kills the process with SIGSYS.
package seccomp
