"""huarong-road input validator: exit 0 when valid, otherwise 1 with the reason on stderr.

Checks: `n m q` with 1 <= n, m <= 30 and 1 <= q <= 500; n rows of m digits 0/1; q games of six
integers; E, S, T on the board and on cells marked 1; E != S. Tokens are separated by single
spaces, every line ends with "\n" (no "\r"), and nothing follows the last game."""
import re
import sys


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


data = sys.stdin.buffer.read().decode("ascii", errors="replace")
if not data.endswith("\n"):
    fail("the input must end with a newline")
lines = data[:-1].split("\n")
NUM = r"(0|[1-9][0-9]*)"
if not re.fullmatch(f"{NUM} {NUM} {NUM}", lines[0]):
    fail(f"line 1: expected `n m q`, found {lines[0]!r}")
n, m, q = map(int, lines[0].split())
if not (1 <= n <= 30 and 1 <= m <= 30 and 1 <= q <= 500):
    fail(f"n = {n}, m = {m}, q = {q}: need 1 <= n, m <= 30 and 1 <= q <= 500")
if len(lines) != 1 + n + q:
    fail(f"expected {1 + n + q} lines, found {len(lines)}")
grid = []
for r in range(n):
    row = lines[1 + r]
    if not re.fullmatch(r"[01]( [01])*", row) or len(row.split(" ")) != m:
        fail(f"board row {r + 1}: expected {m} digits 0/1 separated by single spaces, found {row!r}")
    grid.append(row.split(" "))
for i in range(q):
    line = lines[1 + n + i]
    if not re.fullmatch(" ".join([NUM] * 6), line):
        fail(f"game {i + 1}: expected six integers separated by single spaces, found {line!r}")
    ex, ey, sx, sy, tx, ty = map(int, line.split())
    for name, x, y in (("E", ex, ey), ("S", sx, sy), ("T", tx, ty)):
        if not (1 <= x <= n and 1 <= y <= m):
            fail(f"game {i + 1}: {name} = ({x}, {y}) is off the board")
        if grid[x - 1][y - 1] != "1":
            fail(f"game {i + 1}: {name} = ({x}, {y}) is on a fixed cell (0)")
    if (ex, ey) == (sx, sy):
        fail(f"game {i + 1}: the blank and the designated piece are on the same cell")
