n = int(input())
total = 0
best = None
for word in input().split():
    x = int(word)
    total += x
    if best is None or x > best:
        best = x
print(total, best)
