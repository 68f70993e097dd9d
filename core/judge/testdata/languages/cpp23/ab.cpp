#include <bits/stdc++.h>

enum class Part : long long { none = 0 };

int main() {
	long long a, b;
	std::cin >> a >> b;
	if consteval {
		return 1;
	}
	std::cout << a + b + std::to_underlying(Part::none) << '\n';
}
