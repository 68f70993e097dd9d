#include <bits/stdc++.h>

int main() {
	long long a, b;
	std::cin >> a >> b;
	auto [x, y] = std::pair{a, b};
	std::cout << x + y << '\n';
}
