// The sandbox init: pid 1 of one pooled slot's PID/mount/net/IPC/UTS namespaces. Each
// run gets an IPC namespace of its own: the init enters a fresh one after each run
// (see fresh_ipc).
//
// It is plain C, not Go, because the per-run child is started with
// clone(CLONE_VM|CLONE_VFORK) and must run setup code (cgroup join, rlimits, uid,
// no_new_privs, seccomp) between clone and execve, which the Go runtime cannot do.
// The protocol with the host is described in proto.go.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "init.h"

#define MAXMSG (1 << 20)
#define MAXFDS 250
#define MAXSTR 4096
#define MAXEXTRA 64

struct rd {
	const uint8_t *p;
	size_t n;
	int bad;
};

static uint32_t rd_u32(struct rd *r) {
	uint32_t v = 0;
	if (r->n < 4) { r->bad = 1; return 0; }
	memcpy(&v, r->p, 4);
	r->p += 4; r->n -= 4;
	return v;
}

static uint64_t rd_u64(struct rd *r) {
	uint64_t v = 0;
	if (r->n < 8) { r->bad = 1; return 0; }
	memcpy(&v, r->p, 8);
	r->p += 8; r->n -= 8;
	return v;
}

// rd_str returns a pointer into the message; the host NUL-terminates every string.
static char *rd_str(struct rd *r) {
	uint32_t len = rd_u32(r);
	if (r->bad || len == 0 || r->n < len || r->p[len - 1] != 0) { r->bad = 1; return NULL; }
	char *s = (char *)r->p;
	r->p += len; r->n -= len;
	return s;
}

static int sock = 3;
static uint8_t msgbuf[MAXMSG];
static struct sock_filter *bpf;
static unsigned short bpf_len;

static char extra_now[MAXEXTRA][MAXSTR];
static int nextra_now;

// recv_msg reads one SEQPACKET message and its file descriptors (all close-on-exec).
static ssize_t recv_msg(int *fds, int *nfds) {
	char cbuf[CMSG_SPACE(sizeof(int) * MAXFDS)];
	struct iovec iov = {msgbuf, sizeof msgbuf};
	struct msghdr mh = {0};
	mh.msg_iov = &iov; mh.msg_iovlen = 1;
	mh.msg_control = cbuf; mh.msg_controllen = sizeof cbuf;
	ssize_t n;
	do { n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC); } while (n < 0 && errno == EINTR);
	*nfds = 0;
	if (n <= 0) return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds + *nfds, CMSG_DATA(c), k * sizeof(int));
			*nfds += k;
		}
	}
	return n;
}

static void send_all(const void *b, size_t n) {
	while (send(sock, b, n, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

// fail_hello reports a setup error to the host and exits: a slot that cannot be
// built is useless, the host reports it and may retry.
static void fail_hello(const char *step) {
	char out[512];
	int e = errno;
	uint32_t st = 1;
	int len = snprintf(out + 8, sizeof out - 8, "%s: %s", step, strerror(e));
	uint32_t l = (uint32_t)len;
	memcpy(out, &st, 4); memcpy(out + 4, &l, 4);
	send_all(out, 8 + len);
	_exit(1);
}

static int mkdir_p(const char *path, mode_t mode) {
	char tmp[MAXSTR];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, mode) < 0 && errno != EEXIST) return -1;
			*p = '/';
		}
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST) return -1;
	return 0;
}

// mkparent creates the parent directories of path.
static int mkparent(const char *path) {
	char tmp[MAXSTR];
	snprintf(tmp, sizeof tmp, "%s", path);
	char *s = strrchr(tmp, '/');
	if (!s || s == tmp) return 0;
	*s = 0;
	return mkdir_p(tmp, 0755);
}

static int setattr_ro(const char *path) {
	struct mount_attr a = {0};
	a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	return syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof a);
}

// bind_ro makes host path src visible read-only at root+src. A symlink is copied as a
// symlink, so /bin -> usr/bin on merged-/usr systems resolves inside the sandbox.
static int bind_ro(const char *root, const char *src, const char **step) {
	char dst[MAXSTR];
	struct stat st;
	snprintf(dst, sizeof dst, "%s%s", root, src);
	if (lstat(src, &st) < 0) return 0; // a missing runtime dir is not an error
	*step = "mkdir bind target";
	if (mkparent(dst) < 0) return -1;
	if (S_ISLNK(st.st_mode)) {
		char target[MAXSTR];
		ssize_t n = readlink(src, target, sizeof target - 1);
		if (n < 0) { *step = "readlink"; return -1; }
		target[n] = 0;
		*step = "symlink";
		if (symlink(target, dst) < 0 && errno != EEXIST) return -1;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdir(dst, 0755) < 0 && errno != EEXIST) return -1;
	} else {
		int fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) return -1;
		close(fd);
	}
	*step = "bind mount";
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0) return -1;
	*step = "remount read-only";
	if (setattr_ro(dst) < 0) return -1;
	return 0;
}

static int bind_dev(const char *root, const char *name) {
	char dst[MAXSTR], src[64];
	snprintf(dst, sizeof dst, "%s/dev/%s", root, name);
	snprintf(src, sizeof src, "/dev/%s", name);
	int fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0) return -1;
	close(fd);
	if (mount(src, dst, NULL, MS_BIND, NULL) < 0) return -1;
	struct mount_attr a = {0};
	a.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
	return syscall(SYS_mount_setattr, AT_FDCWD, dst, 0, &a, sizeof a);
}

// hello builds the slot's filesystem once: a tmpfs root with read-only binds, a
// minimal /dev, a fresh /proc for this PID namespace, then pivot_root into it.
static void hello(void) {
	int fds[MAXFDS], nfds;
	ssize_t n = recv_msg(fds, &nfds);
	if (n <= 0) _exit(1);
	struct rd r = {msgbuf, (size_t)n, 0};
	if (rd_u32(&r) != OJ_MAGIC_HELLO) { errno = EPROTO; fail_hello("hello"); }
	char *root = rd_str(&r);
	uint32_t nbind = rd_u32(&r);
	char *binds[1024];
	if (nbind > 1024) r.bad = 1;
	for (uint32_t i = 0; i < nbind && !r.bad; i++) binds[i] = rd_str(&r);
	uint32_t blen = rd_u32(&r);
	if (r.bad || blen > r.n || blen % 8 != 0 || blen / 8 > 65535) { errno = EPROTO; fail_hello("hello"); }
	bpf = malloc(blen ? blen : 8);
	memcpy(bpf, r.p, blen);
	bpf_len = blen / 8;

	const char *step = "";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) fail_hello("make mounts private");
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755") < 0) fail_hello("mount root tmpfs");
	for (uint32_t i = 0; i < nbind; i++)
		if (bind_ro(root, binds[i], &step) < 0) fail_hello(step);
	char p[MAXSTR];
	snprintf(p, sizeof p, "%s/dev", root);
	if (mkdir(p, 0755) < 0 && errno != EEXIST) fail_hello("mkdir /dev");
	const char *devs[] = {"null", "zero", "full", "random", "urandom"};
	for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
		if (bind_dev(root, devs[i]) < 0) fail_hello("bind /dev node");
	const char *links[][2] = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
		{"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s/dev/%s", root, links[i][1]);
		if (symlink(links[i][0], p) < 0) fail_hello("symlink /dev");
	}
	// /dev/shm is only a mount point: the slot's scratch tmpfs goes there (run_one).
	snprintf(p, sizeof p, "%s/dev/shm", root);
	if (mkdir(p, 0755) < 0) fail_hello("mkdir /dev/shm");
	// The layers of a work dir given by the host (run_one), out of the runs' reach.
	snprintf(p, sizeof p, "%s" OJ_LAYERS, root);
	if (mkdir(p, 0700) < 0) fail_hello("mkdir " OJ_LAYERS);
	snprintf(p, sizeof p, "%s" OJ_LAYERS "/lower", root);
	if (mkdir(p, 0700) < 0) fail_hello("mkdir " OJ_LAYERS "/lower");
	snprintf(p, sizeof p, "%s" OJ_LAYERS "/upper", root);
	if (mkdir(p, 0700) < 0) fail_hello("mkdir " OJ_LAYERS "/upper");
	snprintf(p, sizeof p, "%s/proc", root);
	if (mkdir(p, 0555) < 0) fail_hello("mkdir /proc");
	if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") < 0) fail_hello("mount /proc");
	snprintf(p, sizeof p, "%s/w", root);
	if (mkdir(p, 0755) < 0) fail_hello("mkdir /w");
	snprintf(p, sizeof p, "%s/tmp", root);
	if (mkdir(p, 0755) < 0) fail_hello("mkdir /tmp");
	if (chdir(root) < 0) fail_hello("chdir root");
	if (syscall(SYS_pivot_root, ".", ".") < 0) fail_hello("pivot_root");
	if (umount2(".", MNT_DETACH) < 0) fail_hello("detach old root");
	if (chdir("/") < 0) fail_hello("chdir /");
	if (sethostname("oj", 2) < 0) fail_hello("sethostname");
	for (int i = 0; i < nfds; i++) close(fds[i]);
	uint32_t ok[2] = {0, 0};
	send_all(ok, sizeof ok);
}

// The signals the init ignores (found once at start: nothing changes them later),
// which the run's child must reset; every other disposition execve resets itself.
static int ignored[NSIG], nignored;

static void find_ignored(void) {
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (s == SIGKILL || s == SIGSTOP || (s >= 32 && s < SIGRTMIN)) continue;
		if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) ignored[nignored++] = s;
	}
}

// ipc_fresh says the init's IPC namespace has not been used by a run yet. The init
// enters a new one after answering for a run (off the host's wait): the namespace the
// run had, with whatever SysV objects or POSIX message queues it left, is freed by the
// kernel (uncharging their memory) once the run's last process and the init are out of
// it. A run never starts in a used one (run_one tries again, or fails the run).
// unshare moves only the calling thread, and the Go runtime's other threads of this
// process stay in the slot's first IPC namespace for good: no run may use that one
// (its leftovers would never be freed), so the init leaves it before the first run.
static int ipc_fresh = 0;

static int fresh_ipc(void) {
	if (ipc_fresh) return 0;
	if (unshare(CLONE_NEWIPC) < 0) return -1;
	ipc_fresh = 1;
	return 0;
}

struct child_arg {
	int in, out, err;
	int cg[8];
	int ncg;
	uint32_t uid, gid;
	uint64_t rl[OJ_NRLIM];
	const char *path;
	char **argv, **envp;
	volatile int fail_step, fail_errno;
};

static const int rl_res[OJ_NRLIM] = {RLIMIT_STACK, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CPU, RLIMIT_CORE};

enum { ST_CGROUP = 1, ST_STDIO, ST_CHDIR, ST_RLIMIT, ST_SETGROUPS, ST_SETGID, ST_SETUID, ST_NNP, ST_SIGNALS, ST_SECCOMP, ST_EXEC };
static const char *step_name[] = {"", "join cgroup", "stdio", "chdir /w", "setrlimit", "setgroups",
	"setgid", "setuid", "no_new_privs", "signals", "seccomp", "execve"};

// child runs between clone(CLONE_VM|CLONE_VFORK) and execve: raw system calls only,
// writing nothing but its own stack and the failure fields the parent reads afterwards.
static int child(void *p) {
	struct child_arg *a = p;
	int step = ST_CGROUP;
	for (int i = 0; i < a->ncg; i++)
		if (write(a->cg[i], "0", 1) != 1) goto fail;
	step = ST_STDIO;
	if (dup2(a->in, 0) < 0 || dup2(a->out, 1) < 0 || dup2(a->err, 2) < 0) goto fail;
	step = ST_CHDIR;
	if (chdir("/w") < 0) goto fail;
	step = ST_RLIMIT;
	for (int i = 0; i < OJ_NRLIM; i++) {
		if (a->rl[i] == 0 && rl_res[i] != RLIMIT_CORE) continue;
		struct rlimit rl = {a->rl[i], a->rl[i]};
		if (rl_res[i] == RLIMIT_CPU) rl.rlim_max = a->rl[i] + 1; // SIGXCPU first, then SIGKILL
		if (a->rl[i] == UINT64_MAX) rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
		if (setrlimit(rl_res[i], &rl) < 0) goto fail;
	}
	step = ST_SETGROUPS;
	if (syscall(SYS_setgroups, 0, NULL) < 0) goto fail;
	step = ST_SETGID;
	if (syscall(SYS_setresgid, a->gid, a->gid, a->gid) < 0) goto fail;
	step = ST_SETUID;
	if (syscall(SYS_setresuid, a->uid, a->uid, a->uid) < 0) goto fail;
	step = ST_NNP;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) goto fail;
	step = ST_SIGNALS;
	sigset_t none;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) goto fail;
	// execve resets caught signals to their default; only ignored ones would stay so.
	for (int i = 0; i < nignored; i++) signal(ignored[i], SIG_DFL);
	step = ST_SECCOMP;
	if (bpf_len) {
		struct sock_fprog prog = {bpf_len, bpf};
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) goto fail;
	}
	step = ST_EXEC;
	execve(a->path, a->argv, a->envp);
fail:
	a->fail_errno = errno;
	a->fail_step = step;
	_exit(127);
}

// resolve finds argv0 on the PATH given in envp, as execvp would, inside the sandbox.
static const char *resolve(const char *argv0, char **envp, char *buf, size_t bufsz) {
	if (strchr(argv0, '/')) return argv0;
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	for (char **e = envp; *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
	while (*path) {
		const char *c = strchr(path, ':');
		size_t l = c ? (size_t)(c - path) : strlen(path);
		snprintf(buf, bufsz, "%.*s/%s", (int)l, path, argv0);
		if (access(buf, X_OK) == 0) return buf;
		if (!c) break;
		path = c + 1;
	}
	return argv0;
}

static void reap_all_nohang(void) {
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0) {}
}

// kill_all kills every process of the namespace but us and reaps them all, so the run's
// cgroup is empty when the host reads it and removes it.
static void kill_all(void) {
	for (;;) {
		kill(-1, SIGKILL);
		pid_t p;
		int n = 0;
		while ((p = waitpid(-1, NULL, WNOHANG | __WALL)) > 0) n++;
		if (p < 0 && errno == ECHILD) return;
		if (n == 0) {
			struct timespec ts = {0, 200000};
			nanosleep(&ts, NULL);
		}
	}
}

struct resp {
	uint32_t magic;
	int32_t setup_failed;
	int32_t status;
	int32_t pad;
	int64_t wall_ns, utime_ns, stime_ns, maxrss_kb;
	uint32_t msglen;
	char msg[512];
};

static void respond(struct resp *rs) {
	rs->magic = OJ_MAGIC_RESULT;
	send_all(rs, offsetof(struct resp, msg) + rs->msglen);
}

static int64_t tv_ns(struct timeval tv) { return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000; }

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static char child_stack[256 * 1024] __attribute__((aligned(16)));

#include <stdarg.h>

static void se(struct resp *rs, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(rs->msg, sizeof rs->msg, fmt, ap);
	va_end(ap);
	rs->setup_failed = 1;
	rs->msglen = n < 0 ? 0 : (n >= (int)sizeof rs->msg ? (int)sizeof rs->msg - 1 : n);
}

#define SE(...) do { se(&rs, __VA_ARGS__); goto done; } while (0)

// run_one handles one run request: per-run mounts, the child, the wait, the cleanup.
static void run_one(ssize_t n, int *fds, int nfds) {
	struct resp rs;
	memset(&rs, 0, sizeof rs);
	struct rd r = {msgbuf, (size_t)n, 0};
	int mounted_w = 0, mounted_lower = 0, mounted_upper = 0;
	struct child_arg a;
	memset(&a, 0, sizeof a);
	char *argv[MAXSTR], *envp[MAXSTR], *extra[MAXEXTRA];
	uint32_t magic = rd_u32(&r);
	uint32_t flags = rd_u32(&r);
	a.uid = rd_u32(&r);
	a.gid = rd_u32(&r);
	for (int i = 0; i < OJ_NRLIM; i++) a.rl[i] = rd_u64(&r);
	uint64_t wsize = rd_u64(&r), tsize = rd_u64(&r), ssize = rd_u64(&r);
	uint32_t ncg = rd_u32(&r), nex = rd_u32(&r);
	if (ncg > 8 || nex > MAXEXTRA) r.bad = 1;
	for (uint32_t i = 0; i < nex && !r.bad; i++) extra[i] = rd_str(&r);
	uint32_t argc = rd_u32(&r);
	if (argc == 0 || argc >= MAXSTR) r.bad = 1;
	for (uint32_t i = 0; i < argc && !r.bad; i++) argv[i] = rd_str(&r);
	uint32_t envc = rd_u32(&r);
	if (envc >= MAXSTR) r.bad = 1;
	for (uint32_t i = 0; i < envc && !r.bad; i++) envp[i] = rd_str(&r);
	// A host work dir comes as two descriptors: its read-only tree and the upper tmpfs.
	int hasw = (flags & OJ_FLAG_WORKTREE) ? 2 : 0;
	if (r.bad || magic != OJ_MAGIC_RUN || nfds != 3 + hasw + (int)ncg + (int)((flags & OJ_FLAG_EXTRAS) ? nex : 0))
		SE("protocol: malformed run request");
	argv[argc] = NULL;
	envp[envc] = NULL;
	a.in = fds[0]; a.out = fds[1]; a.err = fds[2];
	for (uint32_t i = 0; i < ncg; i++) a.cg[i] = fds[3 + hasw + i];
	a.ncg = ncg;

	if (flags & OJ_FLAG_EXTRAS) {
		for (int i = nextra_now - 1; i >= 0; i--) umount2(extra_now[i], MNT_DETACH);
		nextra_now = 0;
		for (uint32_t i = 0; i < nex; i++) {
			int fd = fds[3 + hasw + ncg + i];
			struct stat st;
			if (fstat(fd, &st) < 0) SE("stat extra %s: %s", extra[i], strerror(errno));
			if (access(extra[i], F_OK) < 0) {
				if (mkparent(extra[i]) < 0) SE("mkdir extra %s: %s", extra[i], strerror(errno));
				if (S_ISDIR(st.st_mode)) {
					if (mkdir(extra[i], 0755) < 0) SE("mkdir extra %s: %s", extra[i], strerror(errno));
				} else {
					int f = open(extra[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
					if (f < 0) SE("create extra %s: %s", extra[i], strerror(errno));
					close(f);
				}
			}
			if (syscall(SYS_move_mount, fd, "", AT_FDCWD, extra[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
				SE("mount extra %s: %s", extra[i], strerror(errno));
			snprintf(extra_now[nextra_now++], MAXSTR, "%s", extra[i]);
		}
	}
	if (hasw) {
		// /w is an overlay: the host directory read-only below, the run's writes in a
		// tmpfs of the host's above it. The run cannot change the directory, the next
		// run sees none of its writes, and what it wrote is charged to its own cgroup
		// and freed with the tmpfs (the host copies it back first when asked to).
		if (syscall(SYS_move_mount, fds[3], "", AT_FDCWD, OJ_LAYERS "/lower", MOVE_MOUNT_F_EMPTY_PATH) < 0)
			SE("mount work dir: %s", strerror(errno));
		mounted_lower = 1;
		if (syscall(SYS_move_mount, fds[4], "", AT_FDCWD, OJ_LAYERS "/upper", MOVE_MOUNT_F_EMPTY_PATH) < 0)
			SE("mount work dir upper: %s", strerror(errno));
		mounted_upper = 1;
		const char *data = OJ_LAYERS "/upper/" OJ_UPPER_DATA;
		if (mkdir(data, 0755) < 0 || chown(data, a.uid, a.gid) < 0 || mkdir(OJ_LAYERS "/upper/work", 0700) < 0)
			SE("prepare work dir upper: %s", strerror(errno));
		if (mount("overlay", "/w", "overlay", MS_NOSUID | MS_NODEV,
			"lowerdir=" OJ_LAYERS "/lower,upperdir=" OJ_LAYERS "/upper/" OJ_UPPER_DATA ",workdir=" OJ_LAYERS "/upper/work,volatile") < 0)
			SE("mount work dir overlay: %s", strerror(errno));
	} else {
		char opt[128];
		snprintf(opt, sizeof opt, "size=%llu,mode=0755,uid=%u,gid=%u", (unsigned long long)wsize, a.uid, a.gid);
		if (mount("tmpfs", "/w", "tmpfs", MS_NOSUID | MS_NODEV, opt) < 0) SE("mount work tmpfs: %s", strerror(errno));
	}
	mounted_w = 1;
	// /tmp, and /dev/shm for POSIX shared memory (shm_open): tmpfs whose pages are
	// charged to the run's cgroup, kept by the slot and emptied after each run
	// (scratch_linux.c), so a run sees nothing an earlier one left there.
	uint64_t scratch_size[OJ_NSCRATCH] = {tsize, ssize};
	for (int i = 0; i < OJ_NSCRATCH; i++)
		if (oj_scratch_ready(i, scratch_size[i]) < 0) SE("mount %s: %s", oj_scratch_path(i), strerror(errno));

	char pbuf[MAXSTR];
	a.path = resolve(argv[0], envp, pbuf, sizeof pbuf);
	a.argv = argv;
	a.envp = envp;
	// SysV shared memory, message queues, semaphores and POSIX message queues a run
	// leaves are nobody else's to see: each run starts in an IPC namespace no run used.
	if (fresh_ipc() < 0) SE("new IPC namespace: %s", strerror(errno));
	int64_t t0 = now_ns();
	pid_t pid = clone(child, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	if (pid < 0) SE("clone: %s", strerror(errno));
	ipc_fresh = 0;
	int pfd = syscall(SYS_pidfd_open, pid, 0);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	if (pfd >= 0) {
		struct pollfd pf[2] = {{pfd, POLLIN, 0}, {sock, POLLIN, 0}};
		for (;;) {
			int k = poll(pf, 2, -1);
			if (k < 0 && errno == EINTR) continue;
			if (pf[0].revents) break;
			if (pf[1].revents) {
				char cmd;
				ssize_t m = recv(sock, &cmd, 1, 0);
				kill(-1, SIGKILL); // 'K' from the host, or the host went away
				if (m <= 0) { kill_all(); _exit(0); }
			}
		}
		close(pfd);
	}
	while (wait4(pid, &status, __WALL, &ru) < 0 && errno == EINTR) {}
	rs.wall_ns = now_ns() - t0;
	kill_all();
	if (a.fail_step) SE("%s: %s", step_name[a.fail_step], strerror(a.fail_errno));
	rs.status = status;
	rs.utime_ns = tv_ns(ru.ru_utime);
	rs.stime_ns = tv_ns(ru.ru_stime);
	rs.maxrss_kb = ru.ru_maxrss;
done:
	kill_all();
	// Every process of the run is dead and reaped, so a plain umount succeeds and is
	// cheaper than a lazy one; MNT_DETACH is only the fallback.
	if (mounted_w && umount2("/w", 0) < 0 && umount2("/w", MNT_DETACH) < 0 && !rs.setup_failed)
		se(&rs, "unmount work dir: %s", strerror(errno));
	oj_scratch_reset();
	// The host still holds both layers (it reads the upper after the run), so these
	// mounts are busy: detach them; the host's close frees the upper tmpfs.
	if (mounted_upper) umount2(OJ_LAYERS "/upper", MNT_DETACH);
	if (mounted_lower) umount2(OJ_LAYERS "/lower", MNT_DETACH);
	for (int i = 0; i < nfds; i++) close(fds[i]);
	respond(&rs);
}

void oj_init_main(void) {
	// Nothing of ours may reach a run: not the control socket (a program could forge
	// results or read the host's messages), not what the Go runtime opened before us.
	if (fcntl(sock, F_SETFD, FD_CLOEXEC) < 0) _exit(1);
	if (syscall(SYS_close_range, 4, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (int fd = 4; fd < 1024; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	// Host death closes the socket; PR_SET_PDEATHSIG (set by the host) covers the rest.
	find_ignored();
	hello();
	fresh_ipc(); // out of the namespace the runtime's threads hold
	for (;;) {
		int fds[MAXFDS], nfds;
		reap_all_nohang();
		ssize_t n = recv_msg(fds, &nfds);
		if (n <= 0) { kill_all(); _exit(0); }
		if (n == 1) { for (int i = 0; i < nfds; i++) close(fds[i]); continue; } // a late 'K'
		run_one(n, fds, nfds);
		// Ready for the next run while the host reads this one's figures; should it
		// fail, the next run tries again before it starts.
		fresh_ipc();
	}
}
