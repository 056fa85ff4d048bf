"""Snake input validator: exit 0 when valid, otherwise exit 1 with the reason on stderr."""
import re
import sys


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


data = sys.stdin.buffer.read().decode("ascii", errors="replace")
if not data.endswith("\n"):
    fail("the input must end with a newline")
lines = data[:-1].split("\n")
m_ = re.fullmatch(r"([1-9][0-9]?) ([1-9][0-9]?)", lines[0])
if not m_:
    fail(f"line 1: expected `n m`, found `{lines[0]}`")
n, m = int(m_.group(1)), int(m_.group(2))
if not (1 <= n <= 15 and 1 <= m <= 15):
    fail(f"n = {n}, m = {m}: both must be in [1, 15]")
if len(lines) != n + 1:
    fail(f"expected {n} rows after the first line, found {len(lines) - 1}")
segments = {}
apples = []
for r, row in enumerate(lines[1:]):
    if len(row) != m or not re.fullmatch(r"[#.@1-9]*", row):
        fail(f"row {r + 1}: expected {m} characters from `#.@1-9`, found `{row}`")
    for c, ch in enumerate(row):
        if ch == "@":
            apples.append((r, c))
        elif ch.isdigit():
            if ch in segments:
                fail(f"segment {ch} appears twice")
            segments[ch] = (r, c)
if len(apples) != 1:
    fail(f"expected exactly one apple, found {len(apples)}")
k = len(segments)
if not 3 <= k <= 9:
    fail(f"the snake has {k} segments; it must have 3 to 9")
if sorted(segments) != [str(i) for i in range(1, k + 1)]:
    fail(f"the segments must be 1..{k}, found {''.join(sorted(segments))}")
for i in range(1, k):
    (r1, c1), (r2, c2) = segments[str(i)], segments[str(i + 1)]
    if abs(r1 - r2) + abs(c1 - c2) != 1:
        fail(f"segments {i} and {i + 1} are not edge-adjacent")
