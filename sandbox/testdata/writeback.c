// Work dir trees made to test the write-back, one mode per argv[1]; each prints one line.
//   links NAME MIB N      writes MIB MiB to NAME, then N hard links to it (NAME.1 … NAME.N):
//                         "linked"
//   deep N LEN            N directories, each inside the last, named with LEN 'd's, and a
//                         file at the bottom: "deep"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const char *what) { printf("failed: %s: %s\n", what, strerror(errno)); return 2; }

int main(int argc, char **argv) {
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "links") && argc > 4) {
		const char *name = argv[2];
		long mib = atol(argv[3]), n = atol(argv[4]);
		int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) return fail("open");
		static char buf[1 << 20];
		memset(buf, 'x', sizeof buf);
		for (long i = 0; i < mib; i++)
			if (write(fd, buf, sizeof buf) != sizeof buf) return fail("write");
		close(fd);
		char path[4096];
		for (long i = 1; i <= n; i++) {
			snprintf(path, sizeof path, "%s.%ld", name, i);
			if (link(name, path) < 0) return fail("link");
		}
		printf("linked\n");
		return 0;
	}
	if (!strcmp(m, "deep") && argc > 3) {
		long n = atol(argv[2]), len = atol(argv[3]);
		char name[256];
		if (len < 1 || len > 255) return fail("LEN");
		memset(name, 'd', len);
		name[len] = 0;
		for (long i = 0; i < n; i++)
			if (mkdir(name, 0755) < 0 || chdir(name) < 0) return fail("mkdir");
		int fd = open("bottom", O_WRONLY | O_CREAT, 0644);
		if (fd < 0) return fail("open");
		close(fd);
		printf("deep\n");
		return 0;
	}
	printf("usage: writeback links NAME MIB N | deep N LEN\n");
	return 1;
}
