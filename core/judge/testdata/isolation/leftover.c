// A+B that tries to pass something to the next case of its submission: it answers
// "SEEN ..." (a wrong answer) when anything an earlier case left is visible, then
// touches 40 MiB of heap and frees it, and leaves 40 MiB in its work dir plus files in
// /tmp and /dev/shm. Under a 64 MiB limit every case fits on its own, but a case that
// found an earlier case's 40 MiB still charged to its cgroup would go over (MLE).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void leave(const char *path, int mib) {
	static char buf[1 << 20];
	memset(buf, 'x', sizeof buf);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) { perror(path); exit(3); }
	for (int i = 0; i < mib; i++)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) { perror(path); exit(3); }
	close(fd);
}

int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 2;
	const char *paths[] = {"leftover", "/tmp/leftover", "/dev/shm/leftover"};
	for (int i = 0; i < 3; i++)
		if (access(paths[i], F_OK) == 0) { printf("SEEN %s\n", paths[i]); return 0; }
	size_t n = 40u << 20;
	char *p = malloc(n);
	if (!p) return 4;
	for (size_t i = 0; i < n; i += 4096) p[i] = 1;
	free(p);
	leave("leftover", 40);
	leave("/tmp/leftover", 1);
	leave("/dev/shm/leftover", 1);
	printf("%lld\n", a + b);
	return 0;
}
