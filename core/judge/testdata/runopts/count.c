#include <stdio.h>

/* Appends a line to runs.txt and says how many lines it holds. */
int main(void) {
	FILE *f = fopen("runs.txt", "a+");
	if (!f)
		return 3;
	fputs("run\n", f);
	fflush(f);
	rewind(f);
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	printf("runs seen %d\n", n);
	return 0;
}
