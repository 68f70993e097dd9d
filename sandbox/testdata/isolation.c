// What one run may leave for the next, one mode per argv[1]; each prints one line.
//   ipc-leave MIB    SysV shared memory of MIB MiB (touched, holding a secret), a SysV
//                    message and semaphore set, and a POSIX message queue, all left behind
//   ipc-look         "clean" (exit 0) unless any of those is visible ("SEEN ...", exit 1)
//   fill PATH MIB    writes MIB MiB to PATH and leaves it; "filled" or "write failed"
//   shm-open MIB     shm_open + ftruncate + mmap of MIB MiB, touched and read back: "ok"
//   unix             socketpair(AF_UNIX) and socket(AF_UNIX) work: "ok"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

#define SHM_KEY 0x4f4a0001
#define MSG_KEY 0x4f4a0002
#define SEM_KEY 0x4f4a0003
#define MQ_NAME "/oj-secret"
#define SECRET "SECRET-FROM-RUN-1"

static int fail(const char *what) { printf("failed: %s: %s\n", what, strerror(errno)); return 2; }

int main(int argc, char **argv) {
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "ipc-leave") && argc > 2) {
		size_t n = (size_t)atol(argv[2]) << 20;
		int id = shmget(SHM_KEY, n, IPC_CREAT | 0666);
		if (id < 0) return fail("shmget");
		char *p = shmat(id, NULL, 0);
		if (p == (void *)-1) return fail("shmat");
		for (size_t i = 0; i < n; i += 4096) p[i] = 1;
		strcpy(p, SECRET);
		shmdt(p);
		int q = msgget(MSG_KEY, IPC_CREAT | 0666);
		if (q < 0) return fail("msgget");
		struct { long type; char text[64]; } msg = {1, SECRET};
		if (msgsnd(q, &msg, sizeof msg.text, 0) < 0) return fail("msgsnd");
		if (semget(SEM_KEY, 4, IPC_CREAT | 0666) < 0) return fail("semget");
		struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 64};
		mqd_t mq = mq_open(MQ_NAME, O_CREAT | O_WRONLY, 0666, &a);
		if (mq == (mqd_t)-1) return fail("mq_open");
		if (mq_send(mq, SECRET, sizeof SECRET, 0) < 0) return fail("mq_send");
		printf("left\n");
		return 0;
	}
	if (!strcmp(m, "ipc-look")) {
		int seen = 0;
		int id = shmget(SHM_KEY, 0, 0);
		if (id >= 0) {
			char *p = shmat(id, NULL, SHM_RDONLY);
			printf("SEEN shm %s\n", p == (void *)-1 ? "" : p);
			seen = 1;
		}
		if (msgget(MSG_KEY, 0) >= 0) { printf("SEEN msg queue\n"); seen = 1; }
		if (semget(SEM_KEY, 0, 0) >= 0) { printf("SEEN semaphores\n"); seen = 1; }
		if (mq_open(MQ_NAME, O_RDONLY) != (mqd_t)-1) { printf("SEEN POSIX mqueue\n"); seen = 1; }
		// Nothing of anybody else either: a fresh IPC namespace has no objects at all.
		struct shm_info si;
		if (shmctl(0, SHM_INFO, (struct shmid_ds *)&si) > 0 || si.used_ids > 0) { printf("SEEN %d shm segments\n", si.used_ids); seen = 1; }
		if (!seen) printf("clean\n");
		return seen;
	}
	if (!strcmp(m, "fill") && argc > 3) {
		long n = atol(argv[3]);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) return fail(argv[2]);
		static char buf[1 << 20];
		memset(buf, 'x', sizeof buf);
		for (long i = 0; i < n; i++) {
			if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
				printf("write failed after %ld MiB: %s\n", i, strerror(errno));
				return 3;
			}
		}
		printf("filled\n");
		return 0;
	}
	if (!strcmp(m, "shm-open") && argc > 2) {
		size_t n = (size_t)atol(argv[2]) << 20;
		int fd = shm_open("/oj-test", O_CREAT | O_RDWR | O_EXCL, 0600);
		if (fd < 0) return fail("shm_open");
		if (ftruncate(fd, n) < 0) return fail("ftruncate");
		char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) return fail("mmap");
		for (size_t i = 0; i < n; i += 4096) p[i] = (char)(i >> 12);
		for (size_t i = 0; i < n; i += 4096)
			if (p[i] != (char)(i >> 12)) { printf("read back wrong\n"); return 4; }
		printf("ok\n");
		return 0;
	}
	if (!strcmp(m, "unix")) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) return fail("socketpair");
		if (socket(AF_UNIX, SOCK_DGRAM, 0) < 0) return fail("socket");
		if (write(sv[0], "x", 1) != 1) return fail("write");
		char c;
		if (read(sv[1], &c, 1) != 1) return fail("read");
		printf("ok\n");
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", m);
	return 2;
}
