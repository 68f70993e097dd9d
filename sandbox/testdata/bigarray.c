// A 512 MiB static array, touched.
#include <string.h>
static char a[512 << 20];
int main(void) { memset(a, 1, sizeof a); return a[12345] - 1; }
