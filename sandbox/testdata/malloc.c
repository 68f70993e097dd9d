// Allocates and touches argv[1] MiB in 1 MiB steps (default 1024), then exits 0.
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
	long mib = argc > 1 ? atol(argv[1]) : 1024;
	for (long i = 0; i < mib; i++) {
		char *p = malloc(1 << 20);
		if (!p) return 3;
		memset(p, 1, 1 << 20);
	}
	return 0;
}
