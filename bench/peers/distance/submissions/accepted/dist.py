import sys

out = []
for line in sys.stdin:
    parts = line.split()
    if parts:
        out.append(str(abs(int(parts[0]) - int(parts[1]))))
print("\n".join(out))
