#include <iostream>

int main() {
    std::ios::sync_with_stdio(false);
    long long a, b;
    while (std::cin >> a >> b) std::cout << (a > b ? a - b : b - a) << '\n';
}
