#include <iostream>

int main() {
	long long a, b;
	std::cin >> a >> b;
	volatile unsigned long long x = a;
	for (;;) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}
