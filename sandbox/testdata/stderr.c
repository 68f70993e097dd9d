// Writes to stderr and exits 0.
#include <stdio.h>
int main(void) { fputs("warning: this is fine\n", stderr); puts("42"); return 0; }
