#include <cstdlib>
#include <iostream>
int main() { std::cout << 3 << std::endl; std::exit(3); }
