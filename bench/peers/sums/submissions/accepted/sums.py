import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
values = list(map(int, data[1 : n + 1]))
print(sum(values), max(values))
