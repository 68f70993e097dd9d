// Writes 1 GiB to stdout, or to the file argv[1].
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	static char buf[1 << 16];
	memset(buf, 'x', sizeof buf);
	int fd = argc > 1 ? open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
	if (fd < 0) return 2;
	for (long i = 0; i < (1L << 30) / (long)sizeof buf; i++)
		if (write(fd, buf, sizeof buf) < 0) return 3;
	return 0;
}
