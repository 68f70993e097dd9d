/* A Kattis output validator for A+B: accepts the sum, in any spacing; writes a message
   for the judges (with the expected answer) and one for the team (without it). */
#include <stdio.h>
#include <string.h>

static FILE *feedback(const char *dir, const char *name) {
	char path[4096];
	snprintf(path, sizeof path, "%s%s", dir, name);
	return fopen(path, "w");
}

int main(int argc, char **argv) {
	if (argc < 4) return 1;
	FILE *ans = fopen(argv[2], "r");
	long long want, got;
	if (!ans || fscanf(ans, "%lld", &want) != 1) return 1;
	FILE *judge = feedback(argv[3], "judgemessage.txt");
	FILE *team = feedback(argv[3], "teammessage.txt");
	if (!judge || !team) return 1;
	if (scanf("%lld", &got) != 1) {
		fprintf(judge, "no number; expected %lld\n", want);
		fprintf(team, "your output holds no number\n");
		return 43;
	}
	if (got != want) {
		fprintf(judge, "expected %lld, found %lld\n", want, got);
		fprintf(team, "the sum is off\n");
		return 43;
	}
	char extra[2];
	if (scanf("%1s", extra) == 1) {
		fprintf(team, "trailing output\n");
		return 43;
	}
	fprintf(judge, "ok %lld\n", got);
	return 42;
}
