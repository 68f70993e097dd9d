#include <stdio.h>
#include <string.h>

int main(void) {
	char reply[32];
	for (int g = 1;; g++) {
		printf("%d\n", g);
		fflush(stdout);
		if (scanf("%31s", reply) != 1 || !strcmp(reply, "correct")) return 0;
	}
}
