/* A validator that exits 0, as a testlib checker would on success: not the Kattis protocol. */
int main(void) { return 0; }
