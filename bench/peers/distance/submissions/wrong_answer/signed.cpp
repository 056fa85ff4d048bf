#include <iostream>

// Forgets that the second number may be the larger.
int main() {
    long long a, b;
    while (std::cin >> a >> b) std::cout << a - b << '\n';
}
