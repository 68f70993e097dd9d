/* A hostile validator: its judge message is a symlink to a host file. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 4) return 1;
	char path[4096];
	snprintf(path, sizeof path, "%sjudgemessage.txt", argv[3]);
	if (symlink("/etc/shadow", path) != 0) return 1;
	return 42;
}
