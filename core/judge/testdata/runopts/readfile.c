#include <stdio.h>

int main(void) {
	char line[256];
	FILE *f = fopen("data/in.txt", "r");
	if (!f || !fgets(line, sizeof line, f))
		return 3;
	fputs(line, stdout);
	return 0;
}
