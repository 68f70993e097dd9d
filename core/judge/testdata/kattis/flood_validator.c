/* A hostile validator: it tries to write 1 GiB of feedback for the judges, then accepts. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
	if (argc < 4) return 1;
	char path[4096];
	snprintf(path, sizeof path, "%sjudgemessage.txt", argv[3]);
	FILE *f = fopen(path, "w");
	if (!f) return 1;
	static char block[1 << 20];
	memset(block, 'x', sizeof block);
	for (int i = 0; i < 1024; i++) {
		if (fwrite(block, 1, sizeof block, f) != sizeof block) return 1;
	}
	fclose(f);
	return 42;
}
