#include <bits/stdc++.h>

template <std::integral T>
T sum(std::span<const T> xs) {
	return std::accumulate(xs.begin(), xs.end(), T{0});
}

int main() {
	long long v[2];
	std::cin >> v[0] >> v[1];
	std::cout << sum<long long>(v) << '\n';
}
