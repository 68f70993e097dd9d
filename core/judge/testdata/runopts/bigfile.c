#include <stdio.h>
#include <string.h>

/* Writes a file of 1 MiB in the work dir. */
int main(void) {
	static char block[4096];
	memset(block, 'x', sizeof block);
	FILE *f = fopen("big.bin", "w");
	if (!f)
		return 3;
	for (int i = 0; i < 256; i++)
		if (fwrite(block, 1, sizeof block, f) != sizeof block)
			return 4;
	return fclose(f) == 0 ? 0 : 5;
}
