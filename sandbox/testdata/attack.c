// One attack per argv[1]. Exit 0 means the sandbox stopped it ("blocked: ..." on
// stdout); exit 1 means it worked ("ESCAPED: ..."), which a test turns into a failure.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int blocked(const char *what) { printf("blocked: %s: %s\n", what, strerror(errno)); return 0; }
static int escaped(const char *what) { printf("ESCAPED: %s\n", what); return 1; }

static int try_read(const char *path) {
	int fd = open(path, O_RDONLY);
	if (fd < 0) return blocked(path);
	char buf[64];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n <= 0) return blocked(path);
	return escaped(path);
}

static int try_write(const char *path) {
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) return blocked(path);
	if (write(fd, "x", 1) != 1) return blocked(path);
	return escaped(path);
}

int main(int argc, char **argv) {
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "read")) return try_read(argv[2]);
	if (!strcmp(m, "ls")) { int fd = open(argv[2], O_RDONLY | O_DIRECTORY); return fd < 0 ? blocked(argv[2]) : escaped(argv[2]); }
	if (!strcmp(m, "write")) return try_write(argv[2]);
	if (!strcmp(m, "connect")) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) return blocked("socket");
		struct sockaddr_in a = {0};
		a.sin_family = AF_INET;
		a.sin_port = htons(atoi(argv[2]));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) return blocked("connect");
		return escaped("connect");
	}
	if (!strcmp(m, "socket") && argc > 2) {
		// Families the network namespace does not (or not wholly) isolate: vsock reaches
		// the hypervisor; none but AF_UNIX may open.
		static const struct { const char *name; int family, type; } fams[] = {
			{"inet", AF_INET, SOCK_STREAM}, {"inet6", AF_INET6, SOCK_DGRAM},
			{"vsock", 40 /* AF_VSOCK */, SOCK_STREAM}, {"netlink", AF_NETLINK, SOCK_RAW},
			{"packet", AF_PACKET, SOCK_RAW},
		};
		for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
			if (strcmp(argv[2], fams[i].name)) continue;
			if (socket(fams[i].family, fams[i].type, 0) >= 0) return escaped(argv[2]);
			int sv[2];
			if (socketpair(fams[i].family, fams[i].type, 0, sv) >= 0) return escaped("socketpair");
			return blocked(argv[2]);
		}
		fprintf(stderr, "unknown family %s\n", argv[2]);
		return 2;
	}
	if (!strcmp(m, "ptrace-self")) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) return blocked("ptrace traceme");
		return escaped("ptrace traceme");
	}
	if (!strcmp(m, "ptrace-parent")) {
		if (ptrace(PTRACE_ATTACH, getppid(), 0, 0) < 0) return blocked("ptrace parent");
		return escaped("ptrace parent");
	}
	if (!strcmp(m, "kill-all")) {
		// kill(-1) also kills ourselves; a child does it, and we report what survived.
		pid_t c = fork();
		if (c == 0) { kill(-1, SIGKILL); _exit(0); }
		sleep(1);
		return blocked("kill -1 (we were killed if this printed nothing)");
	}
	if (!strcmp(m, "kill-parent")) {
		if (kill(getppid(), SIGKILL) < 0) return blocked("kill parent");
		sleep(1);
		return escaped("kill parent");
	}
	if (!strcmp(m, "mount")) {
		if (mount("tmpfs", "/tmp", "tmpfs", 0, 0) < 0) return blocked("mount");
		return escaped("mount");
	}
	if (!strcmp(m, "nice")) {
		if (setpriority(PRIO_PROCESS, 0, 19) < 0) return blocked("setpriority 19");
		return escaped("setpriority 19");
	}
	if (!strcmp(m, "sched-idle")) {
		struct sched_param p = {0};
		if (sched_setscheduler(0, SCHED_IDLE, &p) < 0) return blocked("sched_setscheduler SCHED_IDLE");
		return escaped("sched_setscheduler SCHED_IDLE");
	}
	if (!strcmp(m, "sched-batch")) {
		struct sched_param p = {0};
		if (sched_setscheduler(0, SCHED_BATCH, &p) < 0) return blocked("sched_setscheduler SCHED_BATCH");
		return escaped("sched_setscheduler SCHED_BATCH");
	}
	if (!strcmp(m, "sched-other")) {
		/* Not an attack: the policy every run has, which Mono sets on its threads. */
		struct sched_param p = {0};
		if (sched_setscheduler(0, SCHED_OTHER, &p) < 0) return blocked("sched_setscheduler SCHED_OTHER");
		printf("allowed: sched_setscheduler SCHED_OTHER\n");
		return 0;
	}
	if (!strcmp(m, "sched-attr")) {
		unsigned int attr[14] = {48, 5 /* SCHED_IDLE */};
		if (syscall(SYS_sched_setattr, 0, attr, 0) < 0) return blocked("sched_setattr SCHED_IDLE");
		return escaped("sched_setattr SCHED_IDLE");
	}
	if (!strcmp(m, "unshare")) {
		if (unshare(CLONE_NEWUSER) < 0) return blocked("unshare user");
		return escaped("unshare user");
	}
	if (!strcmp(m, "setns")) {
		int fd = open("/proc/1/ns/mnt", O_RDONLY);
		if (fd < 0) fd = open("/proc/self/ns/mnt", O_RDONLY);
		if (fd < 0) return blocked("open ns");
		if (setns(fd, 0) < 0) return blocked("setns");
		return escaped("setns");
	}
	if (!strcmp(m, "clone-newuser")) {
		long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (r < 0) return blocked("clone(CLONE_NEWUSER)");
		if (r == 0) _exit(0);
		return escaped("clone(CLONE_NEWUSER)");
	}
	if (!strcmp(m, "symlink")) {
		if (symlink(argv[2], argv[3]) < 0) return blocked("symlink");
		return try_read(argv[3]);
	}
	fprintf(stderr, "unknown attack %s\n", m);
	return 2;
}
